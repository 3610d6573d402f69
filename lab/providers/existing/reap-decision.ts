/**
 * Whether `lab reap` deletes a run namespace on a cluster the harness did not make, where the
 * runs of colleagues share the cluster (and, from a bare KUBECONFIG, the lab name `existing`):
 * this machine's user's own runs whose process is gone, and any run past an age the user names.
 * Whether a process runs is known on Linux only (/proc); elsewhere every own run counts as gone.
 */
import type { RunStamp } from '../../contracts/kubernetes-names.ts';
import { formatAge } from '../../text/duration.ts';

/** A run namespace as the cluster lists it. */
export interface RunNamespace {
  name: string;
  /** Its LAB_LABEL value: the lab's name. */
  lab: string;
  /** What its annotations say of the run (nothing for a run of an older harness). */
  stamp: Partial<RunStamp>;
  /** metadata.creationTimestamp: the API server's clock, the same for every colleague's run. */
  createdAt?: string;
}

/** Who reaps: this machine's user and host, and whether a process of this host still runs. */
export interface Reaper {
  owner: string;
  host: string;
  alive: (pid: number) => boolean;
  nowMs: number;
  /** `lab reap --older-than`: any run older than this goes, whoever started it. */
  olderThanMs?: number;
}

export type ReapDecision = { reap: true; why: string } | { reap: false; why: string };

/** The run's age: from the API server's creation time, else the stamp; undefined when neither parses. */
function ageMs(ns: RunNamespace, nowMs: number): number | undefined {
  for (const at of [ns.createdAt, ns.stamp.startedAt]) {
    const ms = at === undefined ? NaN : Date.parse(at);
    if (!Number.isNaN(ms)) return nowMs - ms;
  }
  return undefined;
}

function whose(stamp: Partial<RunStamp>): string {
  return stamp.owner === undefined
    ? 'a run that does not say whose it is (an older harness)'
    : `${stamp.owner}'s run on ${stamp.host ?? 'an unnamed host'}`;
}

/** Whether `reaper` deletes `ns`, and why, in words a log line can carry. */
export function reapDecision(ns: RunNamespace, reaper: Reaper): ReapDecision {
  const age = ageMs(ns, reaper.nowMs);
  const aged = age === undefined ? '' : `, ${formatAge(age)} old`;
  const { stamp } = ns;
  const own = stamp.owner === reaper.owner && stamp.host === reaper.host;
  const running = own && stamp.pid !== undefined && reaper.alive(stamp.pid);
  const limit = reaper.olderThanMs;
  // An age the user names is theirs to name: it covers every run, a process id reused long after
  // the run died too.
  if (limit !== undefined && age !== undefined && age > limit) {
    const who = own ? `your run${running ? ` (process ${stamp.pid} runs)` : ''}` : whose(stamp);
    return { reap: true, why: `${who}${aged}, past --older-than ${formatAge(limit)}` };
  }
  if (running)
    return { reap: false, why: `your run, still running as process ${stamp.pid}${aged}` };
  if (own) return { reap: true, why: `your run, its process gone${aged}` };
  const hint =
    limit === undefined
      ? '`lab reap --older-than <age>` reaps other runs past that age'
      : age === undefined
        ? `its age unknown, never past --older-than ${formatAge(limit)}`
        : `younger than --older-than ${formatAge(limit)}`;
  return { reap: false, why: `${whose(stamp)}${aged}: ${hint}` };
}
