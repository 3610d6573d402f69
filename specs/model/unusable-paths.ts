/**
 * Cells whose path the run found unusable before the matrix (Workloads.unreachable): a probe from
 * outside to a node the outside cannot reach at all, or to the external echo from a node whose own
 * network gets no answer from it. Those say nothing of the data plane, so the cell is skipped with
 * the reason instead of failing as a network fault.
 */
import { sourceNode, type ProbeRequest, type Workloads } from './lab-driver.ts';
import type { ProbeSpec } from './cell-plan.ts';

/** The host a request goes to, where it names one (a lookup names none). */
function targetHost(request: ProbeRequest): string | undefined {
  switch (request.kind) {
    case 'http':
      return new URL(request.url).hostname;
    case 'endpoints':
    case 'perf':
      return new URL(request.base).hostname;
    case 'tcp':
    case 'icmp':
    case 'udp':
      return request.host;
    default:
      return undefined;
  }
}

/** The names a request reaches the external echo by: its address, the ExternalName and its CNAME. */
function echoHosts(workloads: Workloads): string[] {
  const external = workloads.features?.externalName;
  return [
    workloads.external.address,
    ...(external === undefined ? [] : [external.fqdn, external.target]),
  ];
}

/** Why `spec`'s path cannot be used on this cluster, or undefined when nothing says so. */
export function unusablePath(spec: ProbeSpec, workloads: Workloads): string | undefined {
  const unreachable = workloads.unreachable;
  if (unreachable === undefined) return undefined;
  const host = targetHost(spec.request);
  if (spec.from === 'outside') {
    const node = workloads.hostNetwork.find((h) => h.address === host)?.node;
    const why = node === undefined ? undefined : unreachable.outside[node];
    return why === undefined ? undefined : `the outside cannot reach ${node} (${host}): ${why}`;
  }
  if (host === undefined || !echoHosts(workloads).includes(host)) return undefined;
  const node = sourceNode(workloads, spec.from);
  const why = node === undefined ? undefined : unreachable.echo[node];
  return why === undefined
    ? undefined
    : `${node} cannot reach the external echo (${host}) from its own network: ${why}`;
}
