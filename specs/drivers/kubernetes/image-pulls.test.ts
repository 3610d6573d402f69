// Pod statuses and Warning events as kubelet posted them on a live v1.20.2 cluster
// (kube-recorded-objects.ts); the Normal events of a pull (Pulling, Pulled) as kubelet names them.
import { expect } from 'chai';
import { CoreV1Event, V1Pod, type V1PodStatus } from '@kubernetes/client-node';
import { eventReasons, forImagesPulled, pullState } from './image-pulls.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import {
  FAILING_PODS,
  failedStatus,
  RECORDED,
  recorded,
  recordedWarnings,
  RECORDED_RUN_PODS,
} from '../../testing/kube-recorded-objects.ts';
import { WaitTimeoutError } from '../../../lab/errors.ts';

const pod = (status: unknown, name = 'p') => recorded(V1Pod, { metadata: { name }, status });
const road = (name: string): V1PodStatus[] =>
  RECORDED.pods.untilReady.pods[name]!.map((s) => s.status as V1PodStatus);
const event = (pod: string, reason: string) =>
  recorded(CoreV1Event, { involvedObject: { kind: 'Pod', name: pod }, reason, message: reason });
const none = new Set<string>();

describe('image pulls: the wait before the readiness clock', () => {
  it('a recorded pod is pulled once its container runs, waiting before that', () => {
    for (const name of RECORDED_RUN_PODS) {
      const states = road(name).map((s) => pullState(pod(s), none).state);
      expect(states[0], name).to.equal('waiting');
      expect(states.at(-1), name).to.equal('pulled');
    }
  });

  it('reads the pull from the events while the status lags: Pulling, then Pulled', () => {
    const creating = road(RECORDED_RUN_PODS[0]!)[0];
    expect(pullState(pod(creating), new Set(['Scheduled', 'Pulling']))).to.deep.equal({
      state: 'pulling',
      detail: 'Pulling',
    });
    expect(pullState(pod(creating), new Set(['Pulling', 'Pulled'])).state).to.equal('pulled');
  });

  it('leaves to the readiness wait what waiting here cannot cure: a failed pull, no sandbox, no node', () => {
    const reasons = eventReasons(recordedWarnings());
    const state = (name: string) =>
      pullState(pod(failedStatus(name), name), reasons.get(name) ?? none);
    expect(Object.values(FAILING_PODS).map(state)).to.have.deep.members([
      { state: 'stuck', detail: 'ImagePullBackOff' },
      { state: 'stuck', detail: 'FailedCreatePodSandBox' },
      { state: 'stuck', detail: 'Unschedulable' },
    ]);
    expect(pullState(undefined, none)).to.deep.equal({
      state: 'waiting',
      detail: 'not listed yet',
    });
  });

  describe('forImagesPulled', () => {
    /** A fake whose pods pull for `pulls[name]` lists (Pulling events), then run. */
    function cluster(pulls: Record<string, number>) {
      const core = new FakeCore();
      const running = road(RECORDED_RUN_PODS[0]!).at(-1)!;
      const creating = road(RECORDED_RUN_PODS[0]!)[0]!;
      for (const name of Object.keys(pulls)) {
        core.pods.push(recorded(V1Pod, { metadata: { name, namespace: 'ns' } }));
        core.events.push(event(name, 'Pulling'));
      }
      core.podStatus = (p, list) => {
        const name = p.metadata?.name ?? '';
        if (list < pulls[name]!) return creating;
        core.events.push(event(name, 'Pulled'));
        return running;
      };
      return core;
    }
    const pods = [
      { name: 'a', node: 'lin1' },
      { name: 'b', node: 'win1' },
    ];

    it('returns once every node has its images, past the quiet time saying which and when', async () => {
      const core = cluster({ a: 1, b: 4 });
      const said: string[] = [];
      await forImagesPulled(core, 'ns', pods, {
        timeoutMs: 5000,
        pollMs: 5,
        quietMs: 0,
        progressMs: 10_000,
        say: (l) => said.push(l),
        setting: 'PREPULL_TIMEOUT_MS',
      });
      expect(said[0]).to.equal('images: pulling on lin1, win1, for up to 5 s (PREPULL_TIMEOUT_MS)');
      expect(said.slice(1).map((l) => l.replace(/after \d+ s/, 'after N s'))).to.deep.equal([
        'images on lin1: there after N s (1 of 2 nodes)',
        'images on win1: there after N s (2 of 2 nodes)',
      ]);
    });

    it('says nothing when the images are there within the quiet time', async () => {
      const said: string[] = [];
      await forImagesPulled(cluster({ a: 0, b: 1 }), 'ns', pods, {
        timeoutMs: 5000,
        pollMs: 5,
        say: (l) => said.push(l),
        setting: 'S',
      });
      expect(said).to.deep.equal([]);
    });

    it('times out naming each pod still pulling and where; the progress names the setting', async () => {
      const said: string[] = [];
      const error = await forImagesPulled(cluster({ a: 0, b: 1e9 }), 'ns', pods, {
        timeoutMs: 400,
        pollMs: 5,
        quietMs: 0,
        progressMs: 100,
        say: (l) => said.push(l),
        setting: 'PREPULL_TIMEOUT_MS',
      }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(WaitTimeoutError);
      expect((error as Error).message).to.match(
        /timed out after 400 ms waiting for the images of the pods in ns; last error: "b on win1: Pulling"/,
      );
      expect(
        said.some((l) =>
          /^images: still pulling on win1 after \d+ s of \d+ s \(PREPULL_TIMEOUT_MS\)$/.test(l),
        ),
      ).to.be.true;
      expect(said.join('\n')).not.to.match(/still pulling on lin1/);
    });

    it('asks again when the API server blinks, and names its error if it never answers', async () => {
      const core = cluster({ a: 0, b: 0 });
      let blinks = 2;
      const list = core.listNamespacedPod.bind(core);
      core.listNamespacedPod = (args) =>
        blinks-- > 0 ? Promise.reject(new Error('connection reset')) : list(args);
      await forImagesPulled(core, 'ns', pods, {
        timeoutMs: 5000,
        pollMs: 5,
        say: () => {},
        setting: 'S',
      });
      core.listNamespacedPod = () => Promise.reject(new Error('connection refused'));
      const error = await forImagesPulled(core, 'ns', pods, {
        timeoutMs: 100,
        pollMs: 5,
        say: () => {},
        setting: 'S',
      }).catch((e: unknown) => e);
      expect((error as Error).message).to.match(/the last poll failed: .*connection refused/);
    });
  });
});
