/**
 * The wait for the suite's images, before the clock of the pods' readiness starts: a first pull of
 * a Windows image on a fresh node takes many minutes, which a readiness bound sized for starting
 * containers would report as a failure. Bounded by its own timeout (PREPULL_TIMEOUT_MS), with
 * progress per node. A pull that failed ends the wait for its pod at once: the readiness wait,
 * with its own bound, names it and why.
 */
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { pollFor } from '../../../lab/wait/poll.ts';
import { apiErrorText, type CoreClient } from './kube-clients.ts';

/** How far one pod has got with its images. */
export type PullState =
  /** Every container's image is on the node. */
  | { state: 'pulled' }
  /** The kubelet is pulling. */
  | { state: 'pulling'; detail: string }
  /** Not at the pull yet: being scheduled, its sandbox being made. */
  | { state: 'waiting'; detail: string }
  /**
   * Will not get its images by waiting here: unschedulable, no sandbox, or a pull that failed
   * (the kubelet retries after a back-off): the readiness wait after this one reports it.
   */
  | { state: 'stuck'; detail: string };

/** Waiting reasons of a pull that failed or cannot be made. */
const PULL_FAILED = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
]);

/** The reasons of each pod's events. */
export function eventReasons(events: readonly CoreV1Event[]): Map<string, Set<string>> {
  const reasons = new Map<string, Set<string>>();
  for (const event of events) {
    const pod = event.involvedObject.name;
    if (pod === undefined || event.reason === undefined) continue;
    reasons.set(pod, (reasons.get(pod) ?? new Set()).add(event.reason));
  }
  return reasons;
}

/** Where `pod` is with its images, from its status and the reasons of its events. */
export function pullState(pod: V1Pod | undefined, reasons: ReadonlySet<string>): PullState {
  if (pod === undefined) return { state: 'waiting', detail: 'not listed yet' };
  const statuses = pod.status?.containerStatuses ?? [];
  const failed = statuses.find((s) => PULL_FAILED.has(s.state?.waiting?.reason ?? ''));
  if (failed !== undefined) return { state: 'stuck', detail: failed.state!.waiting!.reason! };
  const onNode = (s: (typeof statuses)[number]) =>
    s.imageID !== '' || s.state?.running !== undefined || s.state?.terminated !== undefined;
  if ((statuses.length > 0 && statuses.every(onNode)) || reasons.has('Pulled'))
    return { state: 'pulled' };
  if (reasons.has('Pulling')) return { state: 'pulling', detail: 'Pulling' };
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False')
    return { state: 'stuck', detail: scheduled.reason ?? 'not scheduled' };
  if (reasons.has('FailedCreatePodSandBox'))
    return { state: 'stuck', detail: 'FailedCreatePodSandBox' };
  return { state: 'waiting', detail: pod.status?.phase ?? 'Pending' };
}

export interface PullWaitOptions {
  timeoutMs: number;
  /** Pause between polls; default 2 s. */
  pollMs?: number;
  /** Nothing is said when every image is there within this; default 10 s. */
  quietMs?: number;
  /** How often the nodes still pulling are named after that; default 60 s. */
  progressMs?: number;
  /** Progress for the user, one line at a time. */
  say: (line: string) => void;
  /** The setting that bounds the wait, named in the progress and the timeout. */
  setting: string;
}

/**
 * Waits until every pod has its images on its node or will not get them by waiting (the readiness
 * wait after this one says why). Past `quietMs`, says which nodes are pulling, when each is done
 * and, every `progressMs`, which are still at it. Throws WaitTimeoutError naming each pod still at it when `timeoutMs` runs out.
 */
export async function forImagesPulled(
  core: CoreClient,
  namespace: string,
  pods: readonly { name: string; node: string }[],
  options: PullWaitOptions,
): Promise<void> {
  const { say, timeoutMs, setting } = options;
  const progressMs = options.progressMs ?? 60_000;
  const quietMs = options.quietMs ?? 10_000;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const seconds = () => Math.round(elapsed() / 1000);
  const nodes = [...new Set(pods.map((p) => p.node))];
  const doneNodes = new Set<string>();
  const openNodes = () => [...new Set(open.map((o) => o.node))].join(', ');
  let announced = false;
  let nextProgress = progressMs;
  let open: { pod: string; node: string; detail: string }[] = [];
  let apiError: unknown;
  const round = async (): Promise<boolean> => {
    let list;
    try {
      list = await core.listNamespacedPod({ namespace });
      apiError = undefined;
    } catch (error) {
      apiError = error; // an API server that blinks: the next poll asks again
      return false;
    }
    const events = await core.listNamespacedEvent({ namespace }).then(
      (e) => e.items,
      () => [], // the states say enough without events
    );
    const byName = new Map(list.items.map((p) => [p.metadata?.name ?? '', p]));
    const reasons = eventReasons(events);
    const states = pods.map((p) => ({
      ...p,
      ...pullState(byName.get(p.name), reasons.get(p.name) ?? new Set()),
    }));
    open = states.flatMap((s) =>
      s.state === 'pulling' || s.state === 'waiting'
        ? [{ pod: s.name, node: s.node, detail: s.detail }]
        : [],
    );
    if (!announced && open.length > 0 && elapsed() >= quietMs) {
      announced = true;
      say(
        `images: pulling on ${openNodes()}, for up to ${Math.round(timeoutMs / 1000)} s (${setting})`,
      );
    }
    for (const node of nodes) {
      if (doneNodes.has(node) || open.some((o) => o.node === node)) continue;
      doneNodes.add(node);
      if (announced)
        say(
          `images on ${node}: there after ${seconds()} s (${doneNodes.size} of ${nodes.length} nodes)`,
        );
    }
    if (open.length > 0 && elapsed() >= nextProgress) {
      nextProgress += progressMs;
      say(
        `images: still pulling on ${openNodes()} after ${seconds()} s of ${Math.round(timeoutMs / 1000)} s (${setting})`,
      );
    }
    return open.length === 0;
  };
  await pollFor(`the images of the pods in ${namespace}`, round, {
    timeoutMs,
    intervalMs: options.pollMs ?? 2000,
    lastSeen: () =>
      [
        ...open.map((o) => `${o.pod} on ${o.node}: ${o.detail}`),
        ...(apiError === undefined ? [] : [`the last poll failed: ${apiErrorText(apiError)}`]),
      ].join('; '),
  });
}
