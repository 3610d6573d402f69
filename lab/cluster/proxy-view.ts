/** What one node's kube-proxy makes of the cluster's Services: its view, with what faults make it get wrong. */
import { endpointPods } from './control/cluster-objects.ts';
import type { ClusterState, KubeProxyQuirk, ServiceRecord } from './control/cluster-state.ts';
import type { ServiceEndpoints } from './dataplane/kube-proxy-rules.ts';

/**
 * The Services as `node`'s kube-proxy sees them: every endpoint, except workload pods on nodes its
 * stale view leaves out (system pods such as cluster DNS are always programmed); Local traffic
 * policy as Cluster where a fault says it ignores it, and what its quirks get wrong.
 */
export function servicesSeenBy(node: string, state: ClusterState): ServiceEndpoints[] {
  const stale = state.staleProxy?.[node] ?? [];
  const clusterOnly = state.ignoresLocalPolicy?.includes(node) === true;
  const kept = state.keptEndpoints?.[node];
  const quirks = state.proxyQuirks?.[node] ?? [];
  return state.services.map((seen) => {
    const service = withQuirks(seen, quirks);
    const live =
      service.staticEndpoints ??
      endpointPods(service, state)
        .filter((p) => p.system === true || !stale.includes(p.node))
        .map((p) => p.ip);
    const key = `${service.namespace}/${service.name}`;
    // A node that keeps endpoints remembers what it programmed, and programs it again.
    const endpoints = kept === undefined ? live : [...new Set([...(kept[key] ?? []), ...live])];
    if (kept !== undefined) kept[key] = endpoints;
    return {
      service:
        clusterOnly && service.externalTrafficPolicy === 'Local'
          ? { ...service, externalTrafficPolicy: 'Cluster' }
          : service,
      endpoints,
    };
  });
}

/** A Service as a kube-proxy with `quirks` programs it. */
function withQuirks(service: ServiceRecord, quirks: readonly KubeProxyQuirk[]): ServiceRecord {
  let seen = service;
  if (quirks.includes('ignores-affinity') && seen.sessionAffinity === 'ClientIP')
    seen = { ...seen, sessionAffinity: 'None' };
  if (quirks.includes('ignores-internal-policy') && seen.internalTrafficPolicy === 'Local')
    seen = { ...seen, internalTrafficPolicy: 'Cluster' };
  if (quirks.includes('ports-by-number')) {
    // Keyed by number alone, the second protocol of a port number overwrites nothing: it is lost.
    const ports = seen.ports.filter((p, i) => seen.ports.findIndex((q) => q.port === p.port) === i);
    if (ports.length < seen.ports.length) seen = { ...seen, ports };
  }
  return seen;
}
