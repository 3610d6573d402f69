/** Names the harness, the suite's drivers and its manifests (manifests/suite) share on a cluster. */
import { hostname, userInfo } from 'node:os';

/** Label on everything the suite creates; its value is the lab's name. `lab reap` finds killed runs by it. */
export const LAB_LABEL = 'hybrid-lab/lab';
/** Label on everything one run creates; its value is the run id. */
export const RUN_LABEL = 'hybrid-lab/run';
/** Pod label naming the pod's slot on its node (`a` or `b`). */
export const SLOT_LABEL = 'hybrid-lab/slot';

/** Pod label whose value is the pod's hostname: a hairpin Service selects one pod by it. */
export const POD_LABEL = 'hybrid-lab/pod';

/**
 * Pod label, `"true"` on the `b` pods that back the Services with externalTrafficPolicy Local
 * (on the nodes `localEndpointNodes` names).
 */
export const LOCAL_BACKEND_LABEL = 'hybrid-lab/local-backend';

/** The suite's per-run namespace, on emulated and real clusters alike. */
export function runNamespace(runId: string): string {
  return `hybrid-lab-${runId}`;
}

/**
 * Annotations on the run namespace saying whose run it is, so that `lab reap` deletes only the
 * runs of this machine's user (or others' past an age the user names). Annotations, not labels:
 * a label value is at most 63 characters of [A-Za-z0-9._-], which user and host names need not be.
 */
export const OWNER_ANNOTATION = 'hybrid-lab/owner';
/** The machine the run was started on (os.hostname()). */
export const HOST_ANNOTATION = 'hybrid-lab/host';
/** When the run was started, ISO 8601. */
export const STARTED_ANNOTATION = 'hybrid-lab/started-at';
/** The process of the run on its host: `lab reap` there leaves a run whose process still runs. */
export const PID_ANNOTATION = 'hybrid-lab/pid';

/** Who started a run, on which machine, when, and which process carries it. */
export interface RunStamp {
  owner: string;
  host: string;
  startedAt: string;
  pid: number;
}

/** The user this process runs as; the environment's name where the system has none (a bare uid). */
export function thisUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

/** This process's stamp, for a run starting now. */
export function runStamp(now = new Date()): RunStamp {
  return { owner: thisUser(), host: hostname(), startedAt: now.toISOString(), pid: process.pid };
}

/** What of a stamp a namespace's annotations carry (a run of an older harness carries none). */
export function stampOf(annotations: Readonly<Record<string, string>> = {}): Partial<RunStamp> {
  const pid = Number(annotations[PID_ANNOTATION]);
  return {
    ...(annotations[OWNER_ANNOTATION] === undefined
      ? {}
      : { owner: annotations[OWNER_ANNOTATION] }),
    ...(annotations[HOST_ANNOTATION] === undefined ? {} : { host: annotations[HOST_ANNOTATION] }),
    ...(annotations[STARTED_ANNOTATION] === undefined
      ? {}
      : { startedAt: annotations[STARTED_ANNOTATION] }),
    ...(Number.isInteger(pid) && pid > 0 ? { pid } : {}),
  };
}
