// Pod Security admission's refusals, in the form a 1.25+ API server answers them
// (recordings/pod-security-403.json), through the fakes of kube-fake-core.ts.
import { V1Namespace } from '@kubernetes/client-node';
import { expect } from 'chai';
import { podNames } from '../../model/workload-names.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import { FakeExec } from '../../testing/kube-fake-exec.ts';
import {
  exitStatus,
  noServiceAccount,
  podSecurityRefused,
  recorded,
  recordedApiError,
  RECORDED,
  runningStatus,
} from '../../testing/kube-recorded-objects.ts';
import { KubernetesDriver } from './kubernetes-driver.ts';
import { NodeShellPods } from './node-shell-pods.ts';
import { POD_KINDS, podSecurityRefusal } from './pod-security.ts';

describe('Pod Security (a cluster that enforces baseline where a namespace says nothing)', () => {
  it("names the pod's kind, the level that refused it and the label the namespace needs", () => {
    const error = podSecurityRefusal(
      podSecurityRefused('host-win1'),
      { name: 'host-win1', kind: POD_KINDS.hostNetworkWindows },
      'hybrid-lab-r1',
    );
    expect(error).to.be.instanceOf(InfrastructureError);
    expect(error!.message).to.equal(
      'Pod Security refused the HostProcess netexec pod host-win1 in hybrid-lab-r1 ' +
        `(${POD_KINDS.hostNetworkWindows.why}): HTTP 403: pods "host-win1" is forbidden: ` +
        'violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    );
    expect(error!.hint).to.contain(
      'needs the label pod-security.kubernetes.io/enforce=privileged, which the run gives it, yet "baseline:latest" was enforced',
    );
    expect(error!.hint).to.contain('kubectl get namespace hybrid-lab-r1 --show-labels');
    expect(error!.hint).to.contain('hybrid-lab-*');
  });

  it('leaves every other refusal to the caller: a 403 of another admission, a 409', () => {
    const pod = { name: 'netexec-lin1-a', kind: POD_KINDS.netexec };
    const other = noServiceAccount('netexec-lin1-a', 'hybrid-lab-r1', 'default');
    expect(podSecurityRefusal(other, pod, 'hybrid-lab-r1')).to.equal(undefined);
    const exists = recordedApiError(RECORDED.pods.createAgain, 'netexec-lin1-a');
    expect(podSecurityRefusal(exists, pod, 'hybrid-lab-r1')).to.equal(undefined);
    expect(podSecurityRefusal(new Error('ECONNRESET'), pod, 'hybrid-lab-r1')).to.equal(undefined);
  });

  it('deploys: the namespace asks for privileged, which lets the host-network pods in', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    core.podSecurity = { level: 'baseline', overridden: false };
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    try {
      const workloads = await driver.deploy('ps1', podNames(driver.nodes));
      expect(workloads.hostNetwork.map((h) => h.node)).to.deep.equal(['cp1', 'lin1', 'win1']);
    } finally {
      await driver.cleanup();
    }
  });

  it('a refusal in the dry run before any Service: every call answered first, the error names pod kind and label, nothing but the namespace was made, and cleanup removes it', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    // A policy puts baseline on whatever the namespace asks for.
    core.podSecurity = { level: 'baseline', overridden: true };
    // Creates that pass answer late, so a refusal comes while they are still under way.
    let pending = 0;
    const create = core.createNamespacedPod;
    core.createNamespacedPod = async (request) => {
      pending++;
      try {
        const created = create(request);
        if (request.body.spec?.hostNetwork !== true) await new Promise((r) => setTimeout(r, 20));
        return await created;
      } finally {
        pending--;
      }
    };
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    const error = await driver.deploy('ps2', podNames(driver.nodes)).catch((e: unknown) => e);
    const stillPending = pending;
    const leftBehind = driver.pending();
    // Cleaned up whatever the assertions say: a started echo left open would keep mocha alive.
    await driver.cleanup();
    expect(stillPending, 'pod creates still under way when deploy failed').to.equal(0);
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as InfrastructureError).message).to.match(
      /^Pod Security refused the host-network netexec pod host-cp1 in hybrid-lab-ps2 \(.*\): HTTP 403: pods "host-cp1" is forbidden: violates PodSecurity "baseline:latest"/,
    );
    expect((error as InfrastructureError).hint).to.contain(
      'pod-security.kubernetes.io/enforce=privileged',
    );
    // One dry run per kind of pod, nothing stored: no Service (no load balancer), no pod.
    expect(core.calls.filter((c) => c.startsWith('dryRunNamespacedPod'))).to.deep.equal([
      'dryRunNamespacedPod hybrid-lab-ps2/netexec-cp1-a',
      'dryRunNamespacedPod hybrid-lab-ps2/host-cp1',
      'dryRunNamespacedPod hybrid-lab-ps2/host-win1',
      'dryRunNamespacedPod hybrid-lab-ps2/netexec-cp1-c',
    ]);
    expect(core.services).to.deep.equal([]);
    expect(core.pods).to.deep.equal([]);
    expect(leftBehind).to.have.length(1);
    expect(core.calls).to.include('deleteNamespace hybrid-lab-ps2');
    expect(driver.pending()).to.deep.equal([]);
    // The echo the deploy started is stopped too: a second cleanup has nothing left to do.
    const calls = core.calls.length;
    await driver.cleanup();
    expect(core.calls.length).to.equal(calls);
  });

  it("a node shell pod it refuses names path evidence's pod and the label", async () => {
    const core = new FakeCore();
    core.podStatus = (pod) => runningStatus(core.podIp(pod));
    core.podSecurity = { level: 'baseline', overridden: false };
    const namespace = 'hybrid-lab-ps3';
    await core.createNamespace({
      body: recorded(V1Namespace, {
        metadata: { name: namespace, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } },
      }),
    });
    const pods = new NodeShellPods(core, new FakeExec(() => ({ status: exitStatus(0) })), {
      namespace,
      runId: 'ps3',
      lab: 'existing',
      linuxImage: 'registry.example/agnhost:2.52',
      windowsImage: 'registry.example/agnhost:2.52',
      nodes: [{ name: 'lin1', nodeHostname: 'lin1', os: 'linux' }],
      pollMs: 1,
    });
    const error = await pods
      .shell('lin1')
      .exec(['true'])
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as Error).message).to.match(
      /^Pod Security refused the node shell pod shell-lin1 in hybrid-lab-ps3 /,
    );
  });
});
