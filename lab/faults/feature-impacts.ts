/**
 * The cells of the Service-feature rows (docs/service-features.md) a fault breaks, derived from the lab's nodes.
 * Facts about the suite this relies on (docs/service-features.md): a pod-to-nodeport cell names
 * the node whose port it probes as its target; an affinity cell reaches one endpoint of the
 * `to` Service at random; an internal-local cell's target lists the Service's endpoints (the `b`
 * pods on localEndpointNodes), and Windows nodes ignore the policy, so their cells reach any of
 * them.
 */
import { controlPlane } from '../cluster/cluster-bootstrap.ts';
import { OSES, localEndpointNodes, type Os } from '../contracts/cells.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import type { CellSelector } from './cell-selector.ts';

/** Whether traffic from node `from` (or its pods) to a pod on node `to` is lost. */
type PathBroken = (from: string, to: string) => boolean;

const names = (plan: LabPlan, os?: string): string[] =>
  plan.nodes.filter((n) => os === undefined || n.os === os).map((n) => n.name);

/**
 * Pod-to-nodeport cells: through node V, the Service of OS o fails when a backend of o sits
 * across a broken V → backend path (V's masquerade makes the rest of the path V's own traffic).
 */
export function podNodePortImpact(plan: LabPlan, broken: PathBroken): CellSelector[] {
  return OSES.flatMap((os) => {
    const backends = names(plan, os);
    return names(plan)
      .filter((via) => backends.some((backend) => broken(via, backend)))
      .map((via): CellSelector => ({ kinds: ['pod-to-nodeport'], toOs: os, toAll: [via] }));
  });
}

/**
 * Affinity cells (of sources `from`, else every source) when Service traffic to the endpoints on
 * `lost` is lost: they fail where every endpoint is lost, and may where some are (the sticky
 * endpoint is a random pick).
 */
export function affinityImpact(
  lost: readonly string[],
  from?: readonly string[],
): { mustFail: CellSelector[]; mayFail: CellSelector[] } {
  const sources = from === undefined ? {} : { from };
  return {
    mustFail: [{ kinds: ['affinity'], toAll: lost, ...sources }],
    mayFail: [{ kinds: ['affinity'], toAny: lost, ...sources }],
  };
}

/**
 * internal-local cells when Service traffic from a node's pods to an endpoint on node E is lost
 * (`lost(node, E)`): a Linux node's cells with an endpoint of its own, where that is lost; a
 * Windows node ignores the policy and reaches every endpoint of the Service, so its cells fail
 * where every one is lost (a no-endpoint cell then meets its check, red as an unexpected pass: the
 * profiles expect Windows to forward), and may fail where some are.
 */
export function internalLocalImpact(
  plan: LabPlan,
  lost: PathBroken,
): { mustFail: CellSelector[]; mayFail: CellSelector[] } {
  const linux = names(plan, 'linux').filter((n) => lost(n, n));
  const mustFail: CellSelector[] =
    linux.length === 0
      ? []
      : [{ kinds: ['internal-local'], from: linux, variants: ['has-endpoint', 'only-endpoint'] }];
  const mayFail: CellSelector[] = [];
  for (const source of names(plan, 'windows')) {
    for (const os of OSES) {
      const endpoints = localEndpointNodes(plan.nodes, os);
      const cells: CellSelector = { kinds: ['internal-local'], from: [source], toOs: os };
      const cut = endpoints.filter((e) => lost(source, e));
      if (endpoints.length > 0 && cut.length === endpoints.length) mustFail.push(cells);
      else if (cut.length > 0) mayFail.push(cells);
    }
  }
  return { mustFail, mayFail };
}

/**
 * The health-check node port through `node` when its kube-proxy counts every endpoint of a
 * Service as its own: wrong wherever that count is not the node's true one (1 with a local
 * endpoint, else 0 and a 503).
 */
export function healthCountsAllImpact(plan: LabPlan, node: string): CellSelector[] {
  return OSES.flatMap((os) => {
    const endpoints = localEndpointNodes(plan.nodes, os);
    const own = endpoints.includes(node) ? 1 : 0;
    return endpoints.length === own
      ? []
      : [{ kinds: ['health-check-nodeport'], toOs: os, toAll: [node] } satisfies CellSelector];
  });
}

/**
 * The feature cells a node's kube-proxy breaks when it never programs the endpoints on the node
 * itself: the NodePort through it misses its endpoint; an affinity Service whose one endpoint it
 * was rejects; internalTrafficPolicy Local finds no local endpoint (a Windows node ignores the
 * policy, so only where its endpoint was the Service's only one); its health check reports none.
 */
export function ownEndpointUnseenImpact(plan: LabPlan, node: PlannedNode): CellSelector[] {
  const local = localEndpointNodes(plan.nodes, node.os).includes(node.name);
  const internal = internalLocalImpact(plan, (from, to) => from === node.name && to === node.name);
  return [
    { kinds: ['pod-to-nodeport'], toOs: node.os, toAll: [node.name] },
    { kinds: ['affinity'], from: [node.name], toAll: [node.name] },
    ...internal.mustFail,
    ...(local
      ? [{ kinds: ['health-check-nodeport'], toOs: node.os, toAll: [node.name] } as const]
      : []),
  ];
}

/**
 * The feature cells of `node`'s pods when their new connections to the pods of `otherOs` are
 * dropped on the node: the NodePort through their own node (its DNAT happens there), and, on a
 * Windows node, which ignores internalTrafficPolicy, the Local Service it forwards to.
 */
export function otherOsCutImpact(plan: LabPlan, node: PlannedNode, otherOs: Os): CellSelector[] {
  const os = new Map(plan.nodes.map((n) => [n.name, n.os]));
  const internal = internalLocalImpact(
    plan,
    (from, to) => from === node.name && os.get(to) === otherOs,
  );
  return [
    { kinds: ['pod-to-nodeport'], from: [node.name], toOs: otherOs, toAll: [node.name] },
    ...internal.mustFail,
  ];
}

/**
 * pod-to-apiserver when `cut` is cut off: Windows pods reach the API server unSNATed (the service
 * CIDR is an OutBoundNAT exception), so its node's replies to them need a route to their pod
 * CIDR (gone from every other node: `route`) and, on vxlan, its own encapsulation (gone when the
 * API server's node is the one cut: `encapsulation`). Linux pods are masqueraded to their node.
 */
export function apiServerCutImpact(
  plan: LabPlan,
  cut: PlannedNode,
  how: 'route' | 'encapsulation',
): CellSelector[] {
  if (how === 'route') {
    return cut.os === 'windows' ? [{ kinds: ['pod-to-apiserver'], from: [cut.name] }] : [];
  }
  return cut.name === controlPlane(plan).name
    ? [{ kinds: ['pod-to-apiserver'], fromOs: 'windows' }]
    : [];
}
