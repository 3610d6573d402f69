// Unit level only: the API server and kubelet are recorded fakes (fake-core.ts); no real cluster
// exists on this machine. The only sockets opened are the external echo's, on 127.0.0.1.
import { expect } from 'chai';
import { podNames } from '../../model/workload-names.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import { KubernetesDriver } from './kubernetes-driver.ts';
import {
  containerCreating,
  imagePullBackOff,
  NODES,
  readyCondition,
  recordedNode,
  runningStatus,
  warningEvent,
} from '../../testing/kube-recorded-objects.ts';

describe('KubernetesDriver (unit; recorded fake of the API, no cluster)', () => {
  it('discovers nodes (os, role, InternalIP), the server version and OS builds', async () => {
    const { kubeconfig, facts, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    expect(driver.nodes).to.deep.equal([
      { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
      { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
      { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.12' },
    ]);
    expect(driver.info).to.deep.equal({
      lab: 'hybrid',
      provider: 'existing',
      emulated: false,
      kubernetesVersion: 'v1.30.4',
      cni: 'flannel/vxlan',
      osBuilds: {
        cp1: 'Debian GNU/Linux 12 (bookworm) (6.1.0-18-amd64)',
        lin1: 'Debian GNU/Linux 12 (bookworm) (6.1.0-18-amd64)',
        win1: 'Windows Server 2022 Datacenter (10.0.20348.2582)',
      },
    });
  });

  it('checkReady names exactly the nodes that are not Ready or are cordoned', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    await driver.checkReady();
    core.nodes = [
      NODES.cp1(),
      recordedNode('lin1', 'linux', '192.168.200.11', { cordoned: true }),
      recordedNode('win1', 'windows', '192.168.200.12', {
        ready: readyCondition(
          'Unknown',
          'NodeStatusUnknown',
          'Kubelet stopped posting node status.',
        ),
      }),
    ];
    const error = await driver.checkReady().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    const message = (error as Error).message;
    expect(message).to.contain('lin1 (cordoned');
    expect(message).to.contain(
      'win1 (Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting node status.))',
    );
    expect(message).not.to.contain('cp1');
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
      expect(core.namespaces.get(ns)?.metadata?.labels).to.deep.equal({
        'hybrid-lab/run': 'r1',
        'hybrid-lab/lab': 'hybrid',
      });
      expect(core.pods.map((p) => p.metadata?.name)).to.deep.equal([
        'netexec-cp1-a',
        'netexec-cp1-b',
        'netexec-lin1-a',
        'netexec-lin1-b',
        'netexec-win1-a',
        'netexec-win1-b',
      ]);
      const win = core.pods.find((p) => p.metadata?.name === 'netexec-win1-a')!;
      expect(win.spec?.nodeSelector).to.deep.equal({
        'kubernetes.io/os': 'windows',
        'kubernetes.io/hostname': 'win1',
      });
      expect(win.spec?.tolerations?.map((t) => t.key)).to.deep.equal([
        'node-role.kubernetes.io/control-plane',
        'node-role.kubernetes.io/master',
        'os',
      ]);
      expect(win.spec?.containers[0]?.image).to.equal('mirror.local:5000/e2e/agnhost:2.52');
      expect(core.services.map((s) => s.metadata?.name)).to.deep.equal([
        'netexec',
        'web-linux',
        'web-windows',
      ]);
      const pod = workloads.pods.find((p) => p.name === 'netexec-win1-a')!;
      expect(pod).to.deep.equal({
        name: 'netexec-win1-a',
        node: 'win1',
        os: 'windows',
        ip: '10.244.2.14',
        fqdn: `netexec-win1-a.netexec.${ns}.svc.lab.example`,
      });
      expect(workloads.services).to.deep.equal([
        {
          name: 'web-linux',
          os: 'linux',
          clusterIP: '10.96.101.21',
          port: 80,
          nodePort: 30081,
          fqdn: `web-linux.${ns}.svc.lab.example`,
        },
        {
          name: 'web-windows',
          os: 'windows',
          clusterIP: '10.96.102.22',
          port: 80,
          nodePort: 30082,
          fqdn: `web-windows.${ns}.svc.lab.example`,
        },
      ]);
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

  it('times out naming the pods that are not Ready and what they last showed', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const image = 'mirror.local:5000/e2e/agnhost:2.52';
    core.podStatus = (pod) => {
      const name = pod.metadata?.name ?? '';
      if (name.startsWith('netexec-win1')) return imagePullBackOff(image);
      if (name === 'netexec-lin1-b') return containerCreating;
      return runningStatus(core.podIp(pod));
    };
    core.events.push(
      warningEvent(
        'netexec-lin1-b',
        'FailedCreatePodSandBox',
        'plugin type="flannel" failed (add): failed to delegate add: no IP addresses available in range set',
      ),
    );
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      podsReadyTimeoutMs: 40,
    });
    const error = await driver.deploy('r3', podNames(driver.nodes)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    const message = (error as Error).message;
    expect(message).to.contain(
      'timed out after 40 ms waiting for pods netexec-lin1-b, netexec-win1-a, netexec-win1-b in hybrid-lab-r3',
    );
    expect(message).to.contain(
      `netexec-win1-a: ImagePullBackOff: Back-off pulling image "${image}"`,
    );
    expect(message).to.contain(
      'netexec-lin1-b: ContainerCreating; last warning: FailedCreatePodSandBox: plugin type="flannel"',
    );
    expect(message).not.to.contain('netexec-cp1-a:');
    expect(error).to.have.property('hint').that.contains('AGNHOST_IMAGE');
    await driver.cleanup();
    expect(core.calls).to.include('deleteNamespace hybrid-lab-r3');
  });

  it('keeps the run namespace for the nightly collector when asked, still stopping the echo', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      env: { ...options.env, HYBRID_KEEP_RUN_NAMESPACE: '1' },
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
      namespaceGoneTimeoutMs: 50,
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

  it('CLEANUP_TIMEOUT_MS sets the wait and a bad value names itself', async () => {
    const { kubeconfig, facts, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      namespaceGoneTimeoutMs: undefined,
      env: { ...options.env, CLEANUP_TIMEOUT_MS: 'soon' },
    });
    await expectRejection(
      driver.deploy('r6', podNames(driver.nodes)),
      /CLEANUP_TIMEOUT_MS must be a positive integer, got "soon"/,
    );
  });
});

async function expectRejection(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).to.be.instanceOf(Error);
  expect((error as Error).message).to.match(pattern);
}
