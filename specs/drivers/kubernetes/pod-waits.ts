/** Waits of the Kubernetes driver: each bounded, each naming what it waited for and what it last saw. */
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { WaitTimeoutError } from '../../../lab/errors.ts';
import { pollFor, pollUntil } from '../../../lab/wait/poll.ts';
import { apiErrorText, isNotFound, type CoreClient } from './kube-clients.ts';

export interface WaitOptions {
  timeoutMs: number;
  /** Pause between polls; default 2 s. */
  pollMs?: number;
}

const DEFAULT_POLL_MS = 2000;

/** Why a pod is not Ready yet, most specific first (container waiting reason, scheduling, condition). */
export function podProblem(pod: V1Pod | undefined): string | undefined {
  if (pod === undefined) return 'not found';
  const status = pod.status;
  const ready = status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'True' && status?.podIP !== undefined) return undefined;
  for (const container of status?.containerStatuses ?? []) {
    const waiting = container.state?.waiting;
    if (waiting?.reason !== undefined) {
      return [waiting.reason, waiting.message].filter(Boolean).join(': ');
    }
    const terminated = container.state?.terminated ?? container.lastState?.terminated;
    if (terminated !== undefined) {
      return `container exited ${terminated.exitCode}${terminated.reason === undefined ? '' : ` (${terminated.reason})`}`;
    }
  }
  const unscheduled = status?.conditions?.find(
    (c) => c.type === 'PodScheduled' && c.status !== 'True',
  );
  if (unscheduled !== undefined) {
    return [unscheduled.reason ?? 'Unscheduled', unscheduled.message].filter(Boolean).join(': ');
  }
  if (ready !== undefined) {
    const why = [ready.reason, ready.message].filter(Boolean).join(': ');
    return `Ready=${ready.status}${why === '' ? '' : ` (${why})`}`;
  }
  return `phase ${status?.phase ?? 'unknown'}`;
}

/** The newest Warning event per pod (sandbox and CNI errors show only there); best effort. */
async function warnings(core: CoreClient, namespace: string): Promise<Map<string, string>> {
  const newest = new Map<string, { at: number; text: string }>();
  try {
    const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning' });
    for (const event of events.items) {
      const pod = event.involvedObject.name;
      const at = new Date(event.lastTimestamp ?? event.eventTime ?? 0).getTime();
      if (pod !== undefined && at >= (newest.get(pod)?.at ?? -1)) {
        newest.set(pod, { at, text: `${event.reason ?? 'Warning'}: ${event.message ?? ''}` });
      }
    }
  } catch {
    // The pod states already say something; events are a bonus.
  }
  return new Map([...newest].map(([pod, { text }]) => [pod, text]));
}

/** Waits until every named pod is Ready with an IP; the timeout names the laggards and why. */
export async function forPodsReady(
  core: CoreClient,
  namespace: string,
  names: readonly string[],
  options: WaitOptions,
): Promise<V1Pod[]> {
  let lastSeen = new Map<string, string>(names.map((n) => [n, 'not listed yet']));
  let lastError: unknown;
  try {
    return await pollUntil(
      `pods of ${namespace} to be Ready`,
      async () => {
        try {
          const list = await core.listNamespacedPod({ namespace });
          const byName = new Map(list.items.map((p) => [p.metadata?.name ?? '', p]));
          lastSeen = new Map();
          for (const name of names) {
            const problem = podProblem(byName.get(name));
            if (problem !== undefined) lastSeen.set(name, problem);
          }
          lastError = undefined;
          return lastSeen.size === 0 ? names.map((n) => byName.get(n)!) : undefined;
        } catch (error) {
          lastError = error;
          return undefined;
        }
      },
      { timeoutMs: options.timeoutMs, intervalMs: options.pollMs ?? DEFAULT_POLL_MS },
    );
  } catch (error) {
    if (!(error instanceof WaitTimeoutError)) throw error;
  }
  const events = await warnings(core, namespace);
  const lines = [...lastSeen].map(([pod, problem]) => {
    const event = events.get(pod);
    return `${pod}: ${problem}${event === undefined || problem.includes(event) ? '' : `; last warning: ${event}`}`;
  });
  const apiNote =
    lastError === undefined ? '' : `\n  the last poll failed: ${apiErrorText(lastError)}`;
  const detail = new Error(
    `${lastSeen.size} of ${names.length} pods not Ready:\n  ${lines.join('\n  ')}${apiNote}`,
    { cause: lastError },
  );
  throw new WaitTimeoutError(
    `pods ${[...lastSeen.keys()].join(', ')} in ${namespace} to be Ready`,
    options.timeoutMs,
    detail,
  );
}

/**
 * Waits until the service-account controller has made the namespace's `default` account: until
 * then the API refuses every pod in it (403, "error looking up service account"). A fresh
 * namespace usually has it within a second; a control plane just restored from a snapshot can
 * take longer. Any error but 404 ends the wait at once.
 */
export async function forDefaultServiceAccount(
  core: CoreClient,
  namespace: string,
  options: WaitOptions,
): Promise<void> {
  await pollFor(
    `service account ${namespace}/default to exist`,
    async () => {
      try {
        await core.readNamespacedServiceAccount({ name: 'default', namespace });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },
    // It is a controller's first move, not a kubelet's: look again soon.
    { timeoutMs: options.timeoutMs, intervalMs: options.pollMs ?? 250 },
  );
}

/** The pod IPs a Service's selector picks among `pods`. */
function selectedIps(service: V1Service, pods: readonly V1Pod[]): string[] {
  const selector = Object.entries(service.spec?.selector ?? {});
  return pods
    .filter((pod) => selector.every(([key, value]) => pod.metadata?.labels?.[key] === value))
    .flatMap((pod) => (pod.status?.podIP === undefined ? [] : [pod.status.podIP]));
}

/**
 * Waits until the Endpoints of every Service list, as ready addresses, every pod its selector
 * picks among the Ready `pods`. The endpoints controller writes them after the pods turn Ready
 * (on a control plane just restored from a snapshot, a while after): until then cluster DNS has
 * no record of the pods and kube-proxy no rule to them, and a probe would blame the network.
 * The timeout names each Service and the pod IPs it still lacked.
 */
export async function forEndpoints(
  core: CoreClient,
  namespace: string,
  services: readonly V1Service[],
  pods: readonly V1Pod[],
  options: WaitOptions,
): Promise<void> {
  let lacking = new Map<string, string[]>();
  await pollFor(
    `the endpoints of ${services.length} Services in ${namespace}`,
    async () => {
      lacking = new Map();
      for (const service of services) {
        const name = service.metadata?.name ?? '';
        let ready: string[] = [];
        try {
          const endpoints = await core.readNamespacedEndpoints({ name, namespace });
          ready = (endpoints.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        const missing = selectedIps(service, pods).filter((ip) => !ready.includes(ip));
        if (missing.length > 0) lacking.set(name, missing);
      }
      return lacking.size === 0;
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: options.pollMs ?? 250,
      lastSeen: () =>
        [...lacking].map(([name, ips]) => `${name} lacks ${ips.join(', ')}`).join('; '),
    },
  );
}

/** Waits until none of the named pods is listed any more (deleted, not only terminating). */
export async function forPodsGone(
  core: CoreClient,
  namespace: string,
  names: readonly string[],
  options: WaitOptions,
): Promise<void> {
  let left: string[] = [...names];
  await pollFor(
    `pods ${names.join(', ')} in ${namespace} to be deleted`,
    async () => {
      const list = await core.listNamespacedPod({ namespace });
      const listed = new Set(list.items.map((p) => p.metadata?.name ?? ''));
      left = names.filter((name) => listed.has(name));
      return left.length === 0;
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: options.pollMs ?? DEFAULT_POLL_MS,
      lastSeen: () => `still listed: ${left.join(', ')}`,
    },
  );
}

/** Waits until the namespace is gone (the API answers 404). */
export async function forNamespaceGone(
  core: CoreClient,
  name: string,
  options: WaitOptions,
): Promise<void> {
  await pollFor(
    `namespace ${name} to be deleted`,
    async () => {
      try {
        const ns = await core.readNamespace({ name });
        throw new Error(`phase ${ns.status?.phase ?? 'unknown'}`);
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: options.pollMs ?? DEFAULT_POLL_MS,
      retryOnError: true,
    },
  );
}
