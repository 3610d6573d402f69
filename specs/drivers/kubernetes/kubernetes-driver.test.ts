// The API server and kubelet are fakes that answer what a live v1.20.2 API server answered the
// same calls (kube-fake-core.ts over kube-recorded-objects.ts); the Windows node is hand-written.
// The only sockets opened are the external echo's, on 127.0.0.1.
import { hostname } from 'node:os';
import { expect } from 'chai';
import { stampOf, thisUser } from '../../../lab/contracts/kubernetes-names.ts';
import { podNames } from '../../model/workload-names.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import type { LabOutside } from '../../../lab/providers/lab-provider.ts';
import { KubernetesDriver, type KubernetesDriverOptions } from './kubernetes-driver.ts';
import { CoreV1Event, V1Namespace, V1Pod, V1Secret, V1Taint } from '@kubernetes/client-node';
import {
  cordoned,
  FAILING_PODS,
  failedStatus,
  NODES,
  POLLS_UNTIL_READY,
  readyCondition,
  recorded,
  recordedService,
  recordedWarnings,
  runningStatus,
  UNPULLABLE_IMAGE,
  withReady,
} from '../../testing/kube-recorded-objects.ts';

/** A kubelet event about a pod's image (Pulling, Pulled), as the events API lists it. */
const pullEvent = (pod: string, reason: string) =>
  recorded(CoreV1Event, {
    involvedObject: { kind: 'Pod', name: pod },
    reason,
    type: 'Normal',
    message: `${reason} image`,
  });
describe('KubernetesDriver (unit; fakes answering with recorded API responses)', () => {
  it('discovers nodes (os, role, InternalIP), the server version and OS builds', async () => {
    const { kubeconfig, facts, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    expect(driver.nodes).to.deep.equal([
      { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
      { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
      { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
    ]);
    const linux = `Debian GNU/Linux 12 (bookworm) (${NODES.lin1().status?.nodeInfo?.kernelVersion})`;
    expect(driver.info).to.deep.equal({
      lab: 'hybrid',
      provider: 'existing',
      emulated: false,
      kubernetesVersion: 'v1.20.2',
      // No CNI runs as pods on the recorded cluster (a bridge CNI): the lab's word stands.
      cni: 'flannel/vxlan',
      clusterDns: 'hl-cluster-dns (a stand-in for CoreDNS: hybrid-lab/cluster-dns:0.1.0)',
      osBuilds: {
        cp1: linux,
        lin1: linux,
        win1: 'Windows Server 2022 Datacenter (10.0.20348.2582)',
      },
    });
  });

  it("checks Windows nodes against the Windows image's variants, and warns when it cannot read them", async () => {
    const { kubeconfig, facts, options, warnings } = driverFixture();
    const asked: string[] = [];
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      windowsVariants: (image) => {
        asked.push(image);
        return Promise.resolve(['10.0.17763.5830']);
      },
    });
    expect(asked).to.deep.equal(['mirror.local:5000/e2e/agnhost:2.52']);
    expect(driver.nodes.map((n) => n.name)).to.deep.equal(['cp1', 'lin1']);
    expect(driver.leftOut.map((l) => l.node.name)).to.deep.equal(['win1']);
    const unread = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      windowsVariants: () => Promise.reject(new Error('fetch failed')),
    });
    expect(unread.nodes.map((n) => n.name)).to.include('win1');
    expect(warnings).to.deep.equal([
      'cannot read the Windows builds mirror.local:5000/e2e/agnhost:2.52 has variants for (fetch failed); Windows nodes are not checked against them, and one without a variant shows as a pod that does not start',
    ]);
  });

  it("makes path evidence opt-in where it would go through privileged pods on the user's nodes", async () => {
    const { kubeconfig, facts, options } = driverFixture();
    const theirs = await KubernetesDriver.open(kubeconfig, facts, options);
    expect(theirs.evidenceOptIn).to.match(/^on a cluster the harness did not make, path evidence/);
    // A lab the harness made: its own node shells, evidence by default.
    const shell = (node: string) => ({ node, exec: () => Promise.reject(new Error('unused')) });
    const ours = await KubernetesDriver.open(
      kubeconfig,
      { ...facts, provider: 'netns' },
      { ...options, nodeShell: shell },
    );
    expect(ours.evidenceOptIn).to.equal(undefined);
  });

  it('opens with a cordoned and a NotReady node left out, and checkReady does not refuse the run for them', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    core.nodes = [
      NODES.cp1(),
      cordoned(NODES.lin1()),
      withReady(
        NODES.win1(),
        readyCondition('Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'),
      ),
    ];
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    expect(driver.nodes.map((n) => n.name)).to.deep.equal(['cp1']);
    expect(driver.leftOut.map((l) => `${l.node.name} ${l.why}`)).to.deep.equal([
      'lin1 is cordoned (spec.unschedulable; kubectl uncordon lin1 to use it)',
      'win1 is not Ready (Ready=Unknown: NodeStatusUnknown: Kubelet stopped posting node status.)',
    ]);
    await driver.checkReady();
  });

  it('checkReady names exactly the planned nodes that have become unusable since', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    await driver.checkReady();
    core.nodes = [
      NODES.cp1(),
      cordoned(NODES.lin1()),
      withReady(
        NODES.win1(),
        readyCondition('Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'),
      ),
    ];
    const error = await driver.checkReady().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    const message = (error as Error).message;
    expect(message).to.contain('lin1 is cordoned');
    expect(message).to.contain(
      'win1 is not Ready (Ready=Unknown: NodeStatusUnknown: Kubelet stopped posting node status.)',
    );
    expect(message).not.to.contain('cp1');
  });

  it("gives every pod it creates the TOLERATIONS and the pull secret, beside each OS's own tolerations", async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const tainted = NODES.lin1();
    tainted.spec!.taints = [
      recorded(V1Taint, { key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }),
    ];
    core.nodes = [NODES.cp1(), tainted, NODES.win1()];
    const settings = {
      ...options.settings!,
      tolerations: [
        {
          key: 'CriticalAddonsOnly',
          operator: 'Equal' as const,
          value: 'true',
          effect: 'NoSchedule' as const,
        },
      ],
      imagePullSecret: { namespace: 'default', name: 'regcred' },
    };
    core.secrets.set(
      'default/regcred',
      recorded(V1Secret, {
        metadata: { name: 'regcred', namespace: 'default' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': 'e30=' },
      }),
    );
    const driver = await KubernetesDriver.open(kubeconfig, facts, { ...options, settings });
    expect(driver.nodes.map((n) => n.name)).to.deep.equal(['cp1', 'lin1', 'win1']);
    try {
      await driver.deploy('20250101-tol', podNames(driver.nodes));
      expect(core.pods).not.to.be.empty;
      for (const pod of core.pods) {
        const keys = pod.spec?.tolerations?.map((t) => `${t.key}=${t.value ?? ''}`);
        expect(keys, pod.metadata?.name).to.include('CriticalAddonsOnly=true');
        expect(pod.spec?.imagePullSecrets, pod.metadata?.name).to.deep.equal([{ name: 'regcred' }]);
      }
      // The secret was copied into the run namespace before the first pod.
      const copied = core.calls.findIndex((c) =>
        c.startsWith('createNamespacedSecret hybrid-lab-20250101-tol/regcred'),
      );
      expect(copied).to.be.greaterThan(-1);
      expect(copied).to.be.lessThan(
        core.calls.findIndex((c) => c.startsWith('createNamespacedPod')),
      );
      expect(core.secrets.get('hybrid-lab-20250101-tol/regcred')?.type).to.equal(
        'kubernetes.io/dockerconfigjson',
      );
    } finally {
      await driver.cleanup();
    }
  });

  it('a missing IMAGE_PULL_SECRET ends the deploy naming it, before any Service or pod', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const settings = {
      ...options.settings!,
      imagePullSecret: { namespace: 'default', name: 'regcred' },
    };
    const driver = await KubernetesDriver.open(kubeconfig, facts, { ...options, settings });
    try {
      const error = await driver
        .deploy('20250101-nosecret', podNames(driver.nodes))
        .catch((e: unknown) => e);
      expect((error as Error).message).to.equal(
        'IMAGE_PULL_SECRET default/regcred: HTTP 404: secrets "regcred" not found',
      );
      expect(
        core.calls.filter((c) => /^create(NamespacedService|NamespacedPod)/.test(c)),
      ).to.deep.equal([]);
    } finally {
      await driver.cleanup();
    }
  });

  it('on a cluster it did not build, asks for every permission first and names each one missing, creating nothing', async () => {
    const { kubeconfig, facts, core, options, reviews } = driverFixture();
    reviews.denied.add('create endpoints');
    reviews.denied.add('get pods/exec');
    const error = await KubernetesDriver.open(kubeconfig, facts, options).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as Error).message).to.equal(
      'the cluster does not let this run start (nothing was created): this identity may not get pods/exec in the run namespace: ClusterRole hybrid-lab-suite grants it; this identity may not create endpoints in the run namespace: ClusterRole hybrid-lab-suite grants it',
    );
    expect((error as InfrastructureError).hint).to.contain(
      'kubectl apply -f manifests/rbac/hybrid-lab-suite.yaml',
    );
    expect(core.calls.filter((c) => c.startsWith('create'))).to.deep.equal([]);
    // Labs the harness made are not asked.
    const made = driverFixture();
    await KubernetesDriver.open(
      made.kubeconfig,
      { ...made.facts, provider: 'netns' },
      made.options,
    );
    expect(made.reviews.asked).to.deep.equal([]);
  });

  it('deploys the rendered manifests, waits for Ready, and reports the workloads', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(
      kubeconfig,
      { ...facts, dnsDomain: 'lab.example' },
      options,
    );
    const workloads = await driver.deploy('r1', podNames(driver.nodes));
    try {
      const ns = 'hybrid-lab-r1';
      expect(workloads.namespace).to.equal(ns);
      expect(core.namespaces.get(ns)?.metadata?.labels).to.deep.include({
        'hybrid-lab/run': 'r1',
        'hybrid-lab/lab': 'hybrid',
        'pod-security.kubernetes.io/enforce': 'privileged',
      });
      // Whose run it is: this process, for `lab reap`.
      expect(stampOf(core.namespaces.get(ns)?.metadata?.annotations)).to.deep.include({
        owner: thisUser(),
        host: hostname(),
        pid: process.pid,
      });
      expect(core.pods.map((p) => p.metadata?.name)).to.deep.equal([
        'netexec-cp1-a',
        'netexec-cp1-b',
        'netexec-lin1-a',
        'netexec-lin1-b',
        'netexec-win1-a',
        'netexec-win1-b',
        'host-cp1',
        'host-lin1',
        'host-win1',
        // Each OS's churn Service: one `c` pod per node of it.
        'netexec-cp1-c',
        'netexec-lin1-c',
        'netexec-win1-c',
      ]);
      // A netexec on every node's own network: hostNetwork, a HostProcess pod on Windows.
      const hostWin = core.pods.find((p) => p.metadata?.name === 'host-win1')!;
      expect(hostWin.spec).to.deep.include({ hostNetwork: true });
      expect(hostWin.spec?.securityContext?.windowsOptions?.hostProcess).to.equal(true);
      const hostLin = core.pods.find((p) => p.metadata?.name === 'host-lin1')!;
      expect(hostLin.spec).to.deep.include({ hostNetwork: true });
      expect(hostLin.spec?.securityContext).to.equal(undefined);
      expect(workloads.hostNetwork).to.deep.equal(
        driver.nodes.map((n) => ({ node: n.name, address: n.ip, port: 8085, hostname: n.name })),
      );
      const win = core.pods.find((p) => p.metadata?.name === 'netexec-win1-a')!;
      expect(win.spec?.nodeSelector).to.deep.equal({
        'kubernetes.io/os': 'windows',
        'kubernetes.io/hostname': 'win1',
      });
      // Windows pods tolerate the Windows taints, as sig-windows and OpenShift spell them.
      expect(win.spec?.tolerations?.map((t) => `${t.key}=${t.value ?? ''}`)).to.deep.equal([
        'os=windows',
        'os=Windows',
      ]);
      expect(win.spec?.containers[0]?.image).to.equal('mirror.local:5000/e2e/agnhost:2.52');
      expect(core.services.map((s) => s.metadata?.name)).to.deep.equal([
        'netexec',
        'web-linux',
        'web-windows',
        'hairpin-cp1',
        'hairpin-lin1',
        'hairpin-win1',
        'local-linux',
        'local-windows',
        'affinity-linux',
        'affinity-timeout-linux',
        'dual-linux',
        'health-linux',
        'affinity-windows',
        'affinity-timeout-windows',
        'dual-windows',
        'health-windows',
        'external-echo',
        'external-name',
        'churn-linux',
        'churn-windows',
      ]);
      // The Service features (v1.20.2 has no internalTrafficPolicy: none of those).
      const made = (name: string) => core.services.find((s) => s.metadata?.name === name)!.spec!;
      expect(made('affinity-linux')).to.deep.include({ sessionAffinity: 'ClientIP' });
      expect(made('affinity-linux').sessionAffinityConfig).to.equal(undefined);
      expect(made('affinity-timeout-windows').sessionAffinityConfig).to.deep.equal({
        clientIP: { timeoutSeconds: 10 },
      });
      expect(
        made('dual-windows').ports?.map((p) => `${p.port}/${p.protocol}>${p.targetPort}`),
      ).to.deep.equal(['8080/TCP>8080', '8080/UDP>8081']);
      expect(made('health-linux')).to.deep.include({
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
      });
      expect(made('external-name')).to.deep.include({
        type: 'ExternalName',
        externalName: `external-echo.${ns}.svc.lab.example`,
      });
      expect(core.endpoints.map((e) => e.subsets)).to.deep.equal([
        [
          {
            addresses: [{ ip: '127.0.0.1' }],
            ports: [{ name: 'http', port: workloads.external.port, protocol: 'TCP' }],
          },
        ],
      ]);
      expect(workloads.features?.internalLocal).to.deep.equal([]);
      expect(workloads.features?.healthCheck.map((h) => h.healthCheckNodePort)).to.deep.equal([
        made('health-linux').healthCheckNodePort,
        made('health-windows').healthCheckNodePort,
      ]);
      expect(workloads.features?.externalName).to.deep.include({
        fqdn: `external-name.${ns}.svc.lab.example`,
        address: '127.0.0.1',
        port: workloads.external.port,
      });
      // Local traffic policy: every node of an OS but the last hosts a backend (cp1; win1 alone).
      const backends = core.pods
        .filter((p) => p.metadata?.labels?.['hybrid-lab/local-backend'] === 'true')
        .map((p) => p.metadata?.name);
      expect(backends).to.deep.equal(['netexec-cp1-b', 'netexec-win1-b']);
      expect(workloads.local).to.deep.equal(
        (['linux', 'windows'] as const).map((os) => ({
          name: `local-${os}`,
          os,
          nodePort: recordedService(`local-${os}`)!.spec!.ports![0]!.nodePort,
        })),
      );
      expect(workloads.outsideAddress).to.equal('127.0.0.1');
      // A hairpin Service selects its node's source pod alone, by the pod label the pod carries.
      const hairpin = core.services.find((s) => s.metadata?.name === 'hairpin-win1')!;
      expect(hairpin.spec?.type).to.equal('ClusterIP');
      expect(hairpin.spec?.selector).to.deep.include({ 'hybrid-lab/pod': 'netexec-win1-a' });
      expect(win.metadata?.labels).to.deep.include({ 'hybrid-lab/pod': 'netexec-win1-a' });
      // The wait took the recorded road to Ready: Pending, ContainerCreating, Running but not
      // Ready (readiness probe), Ready; deploy returned on the poll the real pods were all Ready.
      const lists = core.calls.filter((c) => c === `listNamespacedPod ${ns}`);
      expect(lists).to.have.length(POLLS_UNTIL_READY);
      const pod = workloads.pods.find((p) => p.name === 'netexec-win1-a')!;
      expect(pod).to.deep.equal({
        name: 'netexec-win1-a',
        node: 'win1',
        os: 'windows',
        ip: core.podIp(win),
        fqdn: `netexec-win1-a.netexec.${ns}.svc.lab.example`,
      });
      // clusterIP and nodePort as the recorded API server assigned them.
      const assigned = (name: string) => {
        const spec = recordedService(name)!.spec!;
        const udp = spec.ports!.find((p) => p.protocol === 'UDP');
        return {
          clusterIP: spec.clusterIP,
          nodePort: spec.ports![0]!.nodePort,
          ...(udp === undefined ? {} : { udpNodePort: udp.nodePort }),
        };
      };
      expect(workloads.services).to.deep.equal([
        {
          name: 'web-linux',
          os: 'linux',
          ...assigned('web-linux'),
          port: 80,
          udpPort: 8081,
          fqdn: `web-linux.${ns}.svc.lab.example`,
        },
        {
          name: 'web-windows',
          os: 'windows',
          ...assigned('web-windows'),
          port: 80,
          udpPort: 8081,
          fqdn: `web-windows.${ns}.svc.lab.example`,
        },
      ]);
      expect(workloads.hairpin).to.deep.equal(
        ['cp1', 'lin1', 'win1'].map((node) => ({
          name: `hairpin-${node}`,
          pod: `netexec-${node}-a`,
          clusterIP: assigned(`hairpin-${node}`).clusterIP,
          port: 80,
          fqdn: `hairpin-${node}.${ns}.svc.lab.example`,
        })),
      );
      expect(workloads.services[0]!.clusterIP).to.match(/^10\.\d+\.\d+\.\d+$/);
      expect(workloads.services[0]!.nodePort).to.be.within(30000, 32767);
      expect(workloads.apiServiceIP).to.equal('10.96.0.1');
      expect(workloads.dnsDomain).to.equal('lab.example');
      expect(workloads.external.address).to.equal('127.0.0.1');
      const echo = await driver.probeFromOutside(
        { kind: 'http', url: `http://127.0.0.1:${workloads.external.port}/clientip` },
        2000,
      );
      expect(echo.body).to.match(/^127\.0\.0\.1:\d+$/);
      await expectRejection(driver.deploy('r2', []), /already deployed in hybrid-lab-r1/);
    } finally {
      await driver.cleanup();
    }
  });

  it('times out naming the pods that are not Ready and what they last showed, having made no Service', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    // The recorded failing pods keep their names here: a pod pinned to a Windows node the cluster
    // lacks, an image that cannot be pulled (the fixture's IMAGE_REPO names the same one), and a
    // sandbox the runtime cannot start; their recorded statuses and Warning events.
    core.nodes = [NODES.cp1(), NODES.lin1(), NODES.lin2(), NODES.win1()];
    const failing: string[] = Object.values(FAILING_PODS);
    core.podStatus = (pod) => {
      const name = pod.metadata?.name ?? '';
      return failing.includes(name) ? failedStatus(name) : runningStatus(core.podIp(pod));
    };
    core.events.push(...recordedWarnings());
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, podsReadyTimeoutMs: 40 },
    });
    const error = await driver.deploy('r3', podNames(driver.nodes)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    const message = (error as Error).message;
    expect(message).to.contain(
      'timed out after 40 ms waiting for pods netexec-lin1-a, netexec-lin2-b, netexec-win1-a in hybrid-lab-r3',
    );
    expect(message).to.contain(
      `netexec-lin1-a: ImagePullBackOff: Back-off pulling image "${UNPULLABLE_IMAGE}"`,
    );
    // The sandbox error shows only in the event.
    expect(message).to.match(
      /netexec-lin2-b: ContainerCreating; last warning: FailedCreatePodSandBox: Failed to create pod sandbox: .*ip_local_port_range: invalid argument/,
    );
    expect(message).to.contain(
      "netexec-win1-a: Unschedulable: 0/3 nodes are available: 3 node(s) didn't match",
    );
    expect(message).not.to.contain('netexec-cp1-a:');
    expect(error).to.have.property('hint').that.contains('AGNHOST_IMAGE');
    // Pods come before any Service: a run whose pods cannot start made nothing else.
    const services = core.services.map((svc) => svc.metadata?.name);
    await driver.cleanup();
    expect(services).to.deep.equal([]);
    expect(core.calls).to.include('deleteNamespace hybrid-lab-r3');
  });

  it('a pull that outlasts the readiness bound but not PREPULL_TIMEOUT_MS still deploys: the readiness clock starts after it', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    // win1's pods pull for 600 ms (Pulling, no Pulled yet), six times the readiness bound; then
    // every pod is Ready at once, so the readiness wait needs one poll.
    const pullMs = 600;
    let pullUntil = Infinity;
    const pulling = new Set<string>();
    const creating = core.podStatus;
    core.podStatus = (pod) => {
      const name = pod.metadata?.name ?? '';
      if (pullUntil === Infinity) pullUntil = performance.now() + pullMs;
      if (!name.includes('win1') || performance.now() >= pullUntil)
        return runningStatus(core.podIp(pod));
      if (!pulling.has(name)) core.events.push(pullEvent(name, 'Pulling'));
      pulling.add(name);
      return creating(pod, 0);
    };
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, podsReadyTimeoutMs: 100, prePullTimeoutMs: 30_000 },
      pollMs: 5,
    });
    // Cleaned up whatever the assertions say: a started echo left open would keep mocha alive.
    try {
      expect(driver.imagePullTimeoutMs).to.equal(30_000);
      const workloads = await driver.deploy('r9', podNames(driver.nodes));
      expect(performance.now()).to.be.at.least(pullUntil);
      expect(workloads.pods.map((p) => p.node)).to.include('win1');
      expect([...pulling].sort()).to.include.members(['host-win1', 'netexec-win1-a']);
    } finally {
      await driver.cleanup();
    }
  });

  it('pulls that outlast PREPULL_TIMEOUT_MS end the deploy naming the pods, their nodes and the setting', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    // win1's pods never get past the pull; the others come up as recorded.
    const normal = core.podStatus;
    const pulling = new Set<string>();
    core.podStatus = (pod, list) => {
      const name = pod.metadata?.name ?? '';
      if (!name.includes('win1')) return normal(pod, list);
      if (!pulling.has(name)) core.events.push(pullEvent(name, 'Pulling'));
      pulling.add(name);
      return normal(pod, 0);
    };
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, prePullTimeoutMs: 500 },
    });
    const error = await driver.deploy('r8', podNames(driver.nodes)).catch((e: unknown) => e);
    await driver.cleanup();
    expect(error).to.be.instanceOf(InfrastructureError);
    const message = (error as Error).message;
    expect(message).to.match(
      /^the suite's images were not pulled in time: timed out after 500 ms waiting for the images of the pods in hybrid-lab-r8; last error: "/,
    );
    for (const pod of ['netexec-win1-a', 'netexec-win1-b', 'host-win1'])
      expect(message).to.contain(`${pod} on win1: Pulling`);
    expect((error as Error).message).not.to.match(/on (cp1|lin1):/);
    expect(error)
      .to.have.property('hint')
      .that.matches(/^PREPULL_TIMEOUT_MS=500 bounds the pulls/);
    expect(core.calls).to.include('deleteNamespace hybrid-lab-r8');
  });

  it('on a cluster it did not build, finds before the matrix which nodes the outside and the echo cannot reach, and says so', async () => {
    const { kubeconfig, facts, options, unreachable, warnings } = driverFixture();
    // The recorded nodes' kubelets listen on 10250 (status.daemonEndpoints).
    unreachable.add('192.168.200.11:10250');
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    const workloads = await driver
      .deploy('r7', podNames(driver.nodes))
      .finally(() => driver.cleanup());
    expect(workloads.unreachable).to.deep.equal({
      outside: { lin1: 'not even its kubelet port 10250 answers (timeout: no answer)' },
      echo: {},
    });
    expect(warnings).to.include(
      'the outside cannot reach lin1: not even its kubelet port 10250 answers (timeout: no answer); its cells from outside are skipped',
    );
    // The labs the harness made reach their nodes by construction: nothing is asked there.
    const made = driverFixture();
    made.unreachable.add('192.168.200.11:10250');
    const own = await KubernetesDriver.open(
      made.kubeconfig,
      { ...made.facts, provider: 'netns' },
      made.options,
    );
    const ownWorkloads = await own.deploy('r6', podNames(own.nodes)).finally(() => own.cleanup());
    expect(ownWorkloads.unreachable).to.equal(undefined);
  });

  it('a run whose namespace exists fails on the recorded 409 and cleanup leaves that namespace alone', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    await core.createNamespace({
      body: recorded(V1Namespace, { metadata: { name: 'hybrid-lab-r8' } }),
    });
    const error = await driver.deploy('r8', podNames(driver.nodes)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    // apiErrorText over the recorded AlreadyExists body, not client-node's multi-line dump.
    expect((error as Error).message).to.equal(
      'create namespace hybrid-lab-r8 failed: HTTP 409: namespaces "hybrid-lab-r8" already exists',
    );
    await driver.cleanup();
    expect(core.calls.filter((c) => c.startsWith('deleteNamespace'))).to.deep.equal([]);
    expect(core.pods).to.deep.equal([]);
  });

  it('repeats a pod create the server answers with the recorded 500 ServerTimeout (no service-account token yet)', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    core.createsTooEarly = 2;
    const names = podNames(driver.nodes);
    const workloads = await driver.deploy('r9', names);
    expect(core.createsTooEarly).to.equal(0);
    expect(Object.keys(workloads.pods).length).to.equal(names.length);
    expect(core.pods.map((p) => p.metadata?.name).sort()).to.deep.equal(
      [
        ...names.map((p) => p.name),
        ...['host-cp1', 'host-lin1', 'host-win1'],
        ...['netexec-cp1-c', 'netexec-lin1-c', 'netexec-win1-c'],
      ].sort(),
    );
    await driver.cleanup();
  });

  it("creates no pod before the namespace's default service account exists (the recorded 403 otherwise)", async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    core.serviceAccountLag = 3;
    // What a pod create meets meanwhile: the admission's recorded refusal, re-addressed.
    await core.createNamespace({
      body: recorded(V1Namespace, { metadata: { name: 'hybrid-lab-early' } }),
    });
    const refused = await core
      .createNamespacedPod({
        namespace: 'hybrid-lab-early',
        body: recorded(V1Pod, { metadata: { name: 'netexec-lin1-a' } }),
      })
      .catch((e: unknown) => e);
    expect(refused).to.have.property('code', 403);
    expect(String((refused as { body: unknown }).body)).to.contain(
      'pods \\"netexec-lin1-a\\" is forbidden: error looking up service account hybrid-lab-early/default: serviceaccount \\"default\\" not found',
    );
    const names = podNames(driver.nodes);
    const workloads = await driver.deploy('r10', names);
    expect(workloads.pods).to.have.length(names.length);
    const ns = 'hybrid-lab-r10';
    const reads = core.calls.flatMap((c, i) =>
      c === `readNamespacedServiceAccount ${ns}/default` ? [i] : [],
    );
    const firstPod = core.calls.findIndex((c) => c.startsWith(`createNamespacedPod ${ns}/`));
    // Three 404s, then the account: every pod create came after it.
    expect(reads).to.have.length(4);
    expect(firstPod).to.be.above(reads.at(-1)!);
    await driver.cleanup();
  });

  it('probes nothing before every Service lists its pods as ready endpoints; names what is lacking', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    core.endpointsLag = 5;
    await driver.deploy('r12', podNames(driver.nodes));
    expect(core.endpointsLag).to.equal(0);
    const ns = 'hybrid-lab-r12';
    const reads = core.calls.filter((c) => c.startsWith(`readNamespacedEndpoints ${ns}/`));
    // One read per Service for each poll until none lacked a pod (the first 5 reads saw none).
    expect(reads.length).to.be.above(core.services.length);
    await driver.cleanup();
    const stuck = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, podsReadyTimeoutMs: 300 },
    });
    // Pods Ready at the first poll, so the bound is spent on the endpoints alone, whatever the load.
    core.podStatus = (pod) => runningStatus(core.podIp(pod));
    core.endpointsLag = Infinity;
    // Cleaned up whatever the assertions say: a started echo left open would keep mocha alive.
    try {
      const error = await stuck.deploy('r13', podNames(stuck.nodes)).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(InfrastructureError);
      expect((error as Error).message).to.match(
        /^the run's Services have not got their pods: timed out after 300 ms waiting for the endpoints of \d+ Services in hybrid-lab-r13/,
      );
      expect((error as Error).message).to.contain(
        `netexec lacks ${core.podIp(core.pods.find((p) => p.metadata?.namespace === 'hybrid-lab-r13')!)}`,
      );
    } finally {
      await stuck.cleanup();
    }
  });

  it('says which account it waited for when the controller never makes it, and cleans up', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, podsReadyTimeoutMs: 40 },
    });
    core.serviceAccountLag = Infinity;
    const error = await driver.deploy('r11', podNames(driver.nodes)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as Error).message).to.match(
      /^no pod can be created in hybrid-lab-r11 yet: timed out after 40 ms waiting for service account hybrid-lab-r11\/default to exist/,
    );
    expect(error).to.have.property('hint').that.contains('kube-controller-manager');
    expect(core.pods).to.deep.equal([]);
    await driver.cleanup();
    expect(core.calls).to.include('deleteNamespace hybrid-lab-r11');
  });

  it('keeps the run namespace for the nightly collector when asked, still stopping the echo', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, keepRunNamespace: true },
    });
    const workloads = await driver.deploy('r6', podNames(driver.nodes));
    const echoProbe = { kind: 'tcp' as const, host: '127.0.0.1', port: workloads.external.port };
    await driver.cleanup();
    expect(core.calls.filter((c) => c.startsWith('deleteNamespace'))).to.deep.equal([]);
    expect((await driver.probeFromOutside(echoProbe, 1000)).result).to.equal('refused');
  });

  it('a namespace slow to go is a warning naming it, not a failed run; the echo stops all the same', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      settings: { ...options.settings!, namespaceGoneTimeoutMs: 50 },
    });
    core.terminatingReads = Infinity;
    const workloads = await driver.deploy('r5', podNames(driver.nodes));
    const echoProbe = { kind: 'tcp' as const, host: '127.0.0.1', port: workloads.external.port };
    expect((await driver.probeFromOutside(echoProbe, 1000)).result).to.equal('ok');
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(chunk) > 0;
    let pendingWhileWaiting: string[] | undefined;
    try {
      const cleanup = driver.cleanup();
      await new Promise((resolve) => setTimeout(resolve, 10));
      pendingWhileWaiting = driver.pending();
      await cleanup;
    } finally {
      process.stderr.write = write;
    }
    expect(pendingWhileWaiting).to.deep.equal([
      'namespace hybrid-lab-r5 (Terminating; `npm run lab -- reap` removes it)',
    ]);
    expect(written.join('')).to.include(
      'hybrid-lab: warning: namespace hybrid-lab-r5 is still Terminating after 0.05 s',
    );
    expect((await driver.probeFromOutside(echoProbe, 1000)).result).to.equal('refused');
    expect(driver.pending()).to.deep.equal([]);
    const before = core.calls.length;
    await driver.cleanup();
    await driver[Symbol.asyncDispose]();
    expect(core.calls).to.have.length(before);
    expect(
      await driver.probeFromPod(workloads.pods[0]!, { kind: 'dns', name: 'x' }, 100),
    ).to.include({ result: 'error' });
  });

  it('churns a churn Service: deletes its pods and waits until they are gone, creates new ones and waits until Ready', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    const workloads = await driver.deploy('r11', podNames(driver.nodes));
    expect(workloads.churn.map((s) => [s.os, s.name, s.port])).to.deep.equal([
      ['linux', 'churn-linux', 80],
      ['windows', 'churn-windows', 80],
    ]);
    const churnPods = () =>
      core.pods
        .filter((p) => p.metadata?.labels?.app === 'churn' && p.metadata.labels.os === 'linux')
        .map((p) => `${p.metadata?.name}@${p.spec?.nodeSelector?.['kubernetes.io/hostname']}`);
    expect(churnPods()).to.deep.equal(['netexec-cp1-c@cp1', 'netexec-lin1-c@lin1']);
    await driver.churn('linux', 'backend-deleted');
    expect(churnPods()).to.deep.equal(['netexec-cp1-c@cp1']);
    await driver.churn('linux', 'backend-recreated');
    expect(churnPods()).to.deep.equal(['netexec-cp1-c@cp1', 'netexec-lin1-d@lin1']);
    await driver.churn('linux', 'scaled-to-zero');
    expect(churnPods()).to.deep.equal([]);
    await driver.churn('linux', 'scaled-back');
    expect(churnPods()).to.deep.equal(['netexec-cp1-c@cp1', 'netexec-lin1-c@lin1']);
    // No Service of the suite's selects them: they back the churn Service alone.
    const service = core.services.find((s) => s.metadata?.name === 'churn-linux')!;
    expect(service.spec?.selector).to.deep.include({ app: 'churn', os: 'linux' });
    await driver.cleanup();
  });

  it("probes from a node in its host-network pod, with the node's OS's commands", async () => {
    const { kubeconfig, facts, exec, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    await driver.deploy('r10', podNames(driver.nodes));
    // Deploy asked the Windows host what it calls itself, on its own node (host-identity.ts).
    expect(exec.calls.map((c) => [c.pod, c.command[0]])).to.deep.equal([['host-win1', 'curl.exe']]);
    exec.calls.length = 0;
    const request = { kind: 'http' as const, url: 'http://10.244.1.10:8080/hostname' };
    await driver.probeFromNode('win1', request, 1000);
    await driver.probeFromNode('lin1', request, 1000);
    expect(exec.calls.map((c) => [c.pod, c.container, c.command[0]])).to.deep.equal([
      ['host-win1', 'netexec', 'curl.exe'],
      ['host-lin1', 'netexec', 'curl'],
    ]);
    expect(await driver.probeFromNode('nosuch', request, 1000)).to.include({ result: 'error' });
    await driver.cleanup();
  });

  describe('the outbound-NAT echo sits outside every OutBoundNAT exception list', () => {
    const echoOf = async (extra: Partial<KubernetesDriverOptions>, echoAddress?: string) => {
      const { kubeconfig, facts, runner, options } = driverFixture();
      const driver = await KubernetesDriver.open(kubeconfig, facts, {
        ...options,
        ...extra,
        settings: { ...options.settings!, echoAddress },
      });
      const { external } = await driver.deploy('r7', podNames(driver.nodes));
      const probe = await driver.probeFromOutside(
        { kind: 'http', url: `http://${external.address}:${external.port}/healthz` },
        1000,
      );
      await driver.cleanup();
      return { address: external.address, answered: probe.result, routes: runner.lines() };
    };

    it("listens on the lab's external address (libvirt: on the lab bridge), not on the route to the nodes", async () => {
      // On host-gw labs the lab network is in the Windows ExceptionList: an echo there would see
      // Windows pods un-NATed and fail outbound-NAT cells for the wrong reason.
      // The one route lookup is where NodePort probes leave from, not where the echo listens.
      expect(await echoOf({ externalAddress: '127.0.0.2' })).to.deep.equal({
        address: '127.0.0.2',
        answered: 'ok',
        routes: ['ip route get 192.168.200.10'],
      });
    });

    it('EXTERNAL_ECHO_ADDRESS wins; without a lab address, the route to the first node decides', async () => {
      expect((await echoOf({ externalAddress: '127.0.0.2' }, '127.0.0.3')).address).to.equal(
        '127.0.0.3',
      );
      expect(await echoOf({})).to.deep.include({
        address: '127.0.0.1',
        routes: ['ip route get 192.168.200.10'],
      });
    });

    it("uses the echo a lab runs itself (netns kubeadm: the outside namespace's) as it is", async () => {
      const { kubeconfig, facts, options } = driverFixture();
      const labEcho = { address: '198.51.100.1', port: 8099 };
      const outside: LabOutside = {
        echo: labEcho,
        address: '192.168.200.1',
        exec: () => Promise.reject(new Error('unused')),
      };
      const driver = await KubernetesDriver.open(kubeconfig, facts, { ...options, outside });
      expect((await driver.deploy('r8', podNames(driver.nodes))).external).to.deep.equal(labEcho);
      await driver.cleanup();
    });
  });
});

async function expectRejection(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).to.be.instanceOf(Error);
  expect((error as Error).message).to.match(pattern);
}
