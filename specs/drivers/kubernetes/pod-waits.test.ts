// The pod statuses are those kubelet posted on a live v1.20.2 cluster, poll by poll; the namespace
// reads those the API server answered while the namespace was Terminating (kube-recorded-objects.ts).
import { expect } from 'chai';
import type { V1PodStatus } from '@kubernetes/client-node';
import { forNamespaceGone, podProblem } from './pod-waits.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import {
  FAILING_PODS,
  failedStatuses,
  RECORDED,
  recorded,
  RECORDED_RUN_PODS,
  UNPULLABLE_IMAGE,
} from '../../testing/kube-recorded-objects.ts';
import { V1Namespace, V1Pod } from '@kubernetes/client-node';

const pod = (status: unknown) => recorded(V1Pod, { status });

/** Every distinct status a recorded suite pod went through until Ready, in order. */
function road(name: string): V1PodStatus[] {
  return RECORDED.pods.untilReady.pods[name]!.map((s) => s.status as V1PodStatus);
}

describe('pod waits (recorded pod statuses and namespace reads)', () => {
  it('finds no problem only in the last status of each recorded pod: Ready with an IP', () => {
    for (const name of RECORDED_RUN_PODS) {
      const statuses = road(name);
      expect(statuses.length, name).to.be.above(1);
      expect(podProblem(pod(statuses.at(-1))), name).to.equal(undefined);
      for (const status of statuses.slice(0, -1)) {
        expect(podProblem(pod(status)), `${name}: ${JSON.stringify(status)}`).to.be.a('string');
      }
    }
  });

  it('says what the road to Ready showed: ContainerCreating, then Running but not Ready', () => {
    const seen = RECORDED_RUN_PODS.flatMap((name) => road(name).map((s) => podProblem(pod(s))));
    expect(seen).to.include('ContainerCreating');
    // Running, but the readiness probe (netexec's /healthz) has not passed yet.
    expect(seen).to.include(
      'Ready=False (ContainersNotReady: containers with unready status: [netexec])',
    );
  });

  it('names the failures kubelet and the scheduler reported', () => {
    const pull = failedStatuses(FAILING_PODS.imagePull).map((s) => podProblem(pod(s)));
    expect(pull).to.include(`ImagePullBackOff: Back-off pulling image "${UNPULLABLE_IMAGE}"`);
    expect(pull.some((p) => p?.startsWith(`ErrImagePull: rpc error`))).to.equal(true);
    const unscheduled = failedStatuses(FAILING_PODS.unschedulable).map((s) => podProblem(pod(s)));
    expect(unscheduled.at(-1)).to.match(/^Unschedulable: 0\/\d+ nodes are available: /);
    // A sandbox that cannot start says nothing more in the pod; its reason is in an event.
    const sandbox = failedStatuses(FAILING_PODS.sandbox).map((s) => podProblem(pod(s)));
    expect(sandbox.at(-1)).to.equal('ContainerCreating');
    expect(podProblem(undefined)).to.equal('not found');
  });

  it('waits for the namespace through its Terminating reads until the recorded 404', async () => {
    const core = new FakeCore();
    const name = 'hybrid-lab-r1';
    await core.createNamespace({ body: recorded(V1Namespace, { metadata: { name } }) });
    core.terminatingReads = 3;
    await core.deleteNamespace({ name });
    // The recorded Terminating reads carry the namespace controller's conditions as they came.
    const reads = RECORDED.namespaces.readUntilGone.map((s) => s.value);
    expect(reads.at(-1)?.error).to.have.property('code', 404);
    expect(reads.slice(0, -1).every((r) => r.response !== undefined)).to.equal(true);
    await forNamespaceGone(core, name, { timeoutMs: 1000, pollMs: 1 });
    expect(core.calls.filter((c) => c === `readNamespace ${name}`)).to.have.length(4);
  });

  it('gives up on a namespace that stays Terminating, saying its phase', async () => {
    const core = new FakeCore();
    const name = 'hybrid-lab-r2';
    await core.createNamespace({ body: recorded(V1Namespace, { metadata: { name } }) });
    core.terminatingReads = Infinity;
    await core.deleteNamespace({ name });
    const error = await forNamespaceGone(core, name, { timeoutMs: 30, pollMs: 1 }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).to.contain(`namespace ${name} to be deleted`);
    expect((error as Error).message).to.contain('phase Terminating');
  });
});
