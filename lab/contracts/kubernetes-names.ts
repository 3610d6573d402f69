/** Names the harness, the suite's drivers and its manifests (manifests/suite) share on a cluster. */

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
