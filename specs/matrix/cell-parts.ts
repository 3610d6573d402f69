/** What the matrix's cell builders share: node order, endpoints, ids, skip reasons, sweeps. */
import { cellId, rowId, type CellKey, type Os, type Placement } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../model/cell-plan.ts';
import type {
  DeployedPod,
  DeployedService,
  HostNetexec,
  SuiteNode,
  Workloads,
} from '../model/lab-driver.ts';
import { SERVICE_SLOT, serviceName, slotOf } from '../model/workload-names.ts';
import { FULL_MESH, crossNodePairs, nodesOf, type Mesh } from './mesh.ts';

export { nodesOf } from './mesh.ts';

/** A deployed pod by name. */
export function pod(w: Workloads, name: string): DeployedPod {
  const found = w.pods.find((p) => p.name === name);
  if (found === undefined) throw new Error(`pod ${name} was not deployed`);
  return found;
}

/** The deployed Service backed by pods of `os`. */
export function service(w: Workloads, os: Os): DeployedService {
  const found = w.services.find((s) => s.os === os);
  if (found === undefined) throw new Error(`service ${serviceName(os)} was not deployed`);
  return found;
}

/** A pod as a grid endpoint. */
export function podEnd(os: Os, node: string, name?: string): Endpoint {
  return { os, node, label: `${os} pod`, ...(name === undefined ? {} : { name }) };
}

/** The world outside the cluster as a grid endpoint. */
export const OUTSIDE: Endpoint = { os: 'external', node: 'outside', label: 'external' };

/** The id fields every cell shares, from its key. */
export function ids(key: CellKey): { row: string; cell: string; via: string } {
  return { row: rowId(key), cell: cellId(key), via: key.via };
}

/** Why a lab without `need` cannot host a cell. */
export function lacking(nodes: readonly SuiteNode[], os: Os, need = `a ${os} node`): string {
  const has = nodesOf(nodes, os).length;
  return `needs ${need}; the lab has ${has} ${os} node${has === 1 ? '' : 's'}`;
}

/**
 * The node pairs of a pairwise row: every node (same-node), or the ordered pairs the mesh takes
 * (cross-node: every one on a full mesh).
 */
export function nodePairs(
  row: { from: Os; to: Os },
  placement: Placement,
  nodes: readonly SuiteNode[],
  mesh: Mesh = FULL_MESH,
): [SuiteNode, SuiteNode][] {
  if (placement === 'same-node') return nodesOf(nodes, row.from).map((n) => [n, n]);
  return crossNodePairs(row, nodes, mesh);
}

/** Requests a Service sweep may make per endpoint before it calls one missing. */
/** A Service as a cell's target: its backends' nodes, comma-separated (`-` for none). */
export function serviceTarget(
  os: Os,
  backendNodes: readonly string[],
  name: string,
  label: string,
): Endpoint {
  return { os, node: backendNodes.join(',') || '-', name, label };
}

export const REQUESTS_PER_ENDPOINT = 20;

/** The pods behind a Service (its endpoints), as `deploy` created them. */
export function endpointsOf(w: Workloads, os: Os): string[] {
  return w.pods.filter((p) => p.os === os && slotOf(p.name) === SERVICE_SLOT).map((p) => p.name);
}

/** A sweep of `base` until every endpoint of the `os` Service answered (with `source`, seeing it). */
export function everyEndpoint(
  w: Workloads,
  os: Os,
  from: string,
  base: string,
  source?: string,
): ProbeSpec {
  const expect = endpointsOf(w, os);
  return {
    from,
    request: {
      kind: 'endpoints',
      base,
      service: service(w, os).name,
      expect,
      maxRequests: REQUESTS_PER_ENDPOINT * expect.length,
    },
    check: { kind: 'every-endpoint', expect, ...(source === undefined ? {} : { source }) },
  };
}

/** A node's own network as a grid endpoint. */
export function hostEnd(os: Os, node: string): Endpoint {
  return { os, node, name: 'host-network', label: `${os} node` };
}

/** The netexec on `node`'s own network, as deployed. */
export function hostNetexec(w: Workloads, node: string): HostNetexec {
  const found = w.hostNetwork.find((h) => h.node === node);
  if (found === undefined) throw new Error(`no host-network netexec was deployed on ${node}`);
  return found;
}
