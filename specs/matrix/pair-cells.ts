/**
 * The pairwise rows: every node (same-node) and every ordered pair of nodes (cross-node) of two
 * OSes, pod to pod over TCP, UDP and ICMP, large answers, and a node's own network to and from pods.
 */
import type { CellKey, Os, Placement, Via } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { hostNetworkSource, type SuiteNode, type Workloads } from '../model/lab-driver.ts';
import {
  LARGE_RESPONSE_BYTES,
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
  backendPod,
  sourcePod,
} from '../model/workload-names.ts';
import {
  hostEnd,
  hostNetexec,
  ids,
  lacking,
  nodePairs,
  nodesOf,
  pod,
  podEnd,
} from './cell-parts.ts';
import type { MatrixRow } from './rows.ts';
import type { Mesh } from './mesh.ts';

type PairRow =
  Extract<MatrixRow, { placements: Placement[] }> | { kind: 'large-response'; from: Os; to: Os };

/** The two ends of one pairwise cell and how it probes. */
interface PairCell {
  source: Endpoint;
  target: Endpoint;
  probe: (w: Workloads) => ProbeSpec;
}

/**
 * The cells of a pairwise row over `vias`: one per node (same-node) and per ordered pair of nodes
 * (cross-node), titled `KIND FROM-to-TO WHERE PLACEMENT via VIA`; a placement the lab cannot host
 * gives skipped cells saying what it lacks. `blank` is the skipped cells' source and target.
 */
function pairCells(
  row: PairRow,
  placements: readonly Placement[],
  vias: readonly Via[],
  nodes: readonly SuiteNode[],
  blank: { source: Endpoint; target: Endpoint },
  cell: (src: SuiteNode, dst: SuiteNode, placement: Placement, via: Via) => PairCell,
  mesh?: Mesh,
): CellPlan[] {
  const key = (placement: Placement, via: Via, src?: SuiteNode, dst?: SuiteNode): CellKey => ({
    kind: row.kind,
    from: row.from,
    to: row.to,
    placement,
    via,
    ...(src === undefined ? {} : { node: src.name }),
    ...(dst === undefined || placement === 'same-node' ? {} : { peer: dst.name }),
  });
  return placements.flatMap((placement) => {
    const pairs = nodePairs(row, placement, nodes, mesh);
    if (pairs.length === 0) {
      const lacks = nodesOf(nodes, row.from).length === 0 ? row.from : row.to;
      const need =
        row.from === row.to && placement === 'cross-node' ? `two ${row.to} nodes` : undefined;
      return vias.map((via) => ({
        meta: {
          ...ids(key(placement, via)),
          title: `${row.kind} ${row.from}-to-${row.to} ${placement} via ${via}`,
          ...blank,
          placement,
        },
        skip: lacking(nodes, lacks, need),
      }));
    }
    return pairs.flatMap(([src, dst]) =>
      vias.map((via): CellPlan => {
        const where = placement === 'same-node' ? src.name : `${src.name}-to-${dst.name}`;
        const { source, target, probe } = cell(src, dst, placement, via);
        return {
          meta: {
            ...ids(key(placement, via, src, dst)),
            title: `${row.kind} ${row.from}-to-${row.to} ${where} ${placement} via ${via}`,
            source,
            target,
            placement,
          },
          probe,
        };
      }),
    );
  });
}

/** The pod a pairwise cell targets on `dst`: the other slot on its own node, else the `a` pod. */
function targetPod(dst: SuiteNode, placement: Placement): string {
  return placement === 'same-node' ? backendPod(dst.name) : sourcePod(dst.name);
}

/** What a pod-to-pod cell asks the far end (`host`) and how it judges the answer. */
function podRequest(
  row: Extract<MatrixRow, { kind: 'pod-to-pod' | 'pod-to-pod-udp' | 'large-response' }>,
  host: string,
  source: string,
  target: string,
): Pick<ProbeSpec, 'request' | 'check'> {
  const base = `http://${host}:${NETEXEC_HTTP_PORT}`;
  // By name, the name must also have led to the target pod, not just to some pod.
  const sourceSeen = { kind: 'source-ip' as const, expect: source, peer: target };
  switch (row.kind) {
    case 'pod-to-pod':
      return { request: { kind: 'http', url: `${base}/clientip` }, check: sourceSeen };
    case 'pod-to-pod-udp':
      return {
        request: { kind: 'udp', host, port: NETEXEC_UDP_PORT, message: 'clientip' },
        check: sourceSeen,
      };
    case 'large-response':
      return {
        // netexec's /echo (agnhost's too) answers the message: a large answer without a custom endpoint.
        request: { kind: 'http', url: `${base}/echo?msg=${'x'.repeat(LARGE_RESPONSE_BYTES)}` },
        check: { kind: 'bytes', expect: LARGE_RESPONSE_BYTES },
      };
  }
}

/** The source pod on `src`, the target pod on `dst` for `placement`, and the cell's two ends. */
function podPair(row: { from: Os; to: Os }, src: SuiteNode, dst: SuiteNode, placement: Placement) {
  const from = sourcePod(src.name);
  const to = targetPod(dst, placement);
  return {
    from,
    to,
    ends: { source: podEnd(row.from, src.name, from), target: podEnd(row.to, dst.name, to) },
  };
}

/** Pod → pod over TCP or UDP by IP and by name, and large answers by IP. */
export function podToPod(
  row: Extract<MatrixRow, { kind: 'pod-to-pod' | 'pod-to-pod-udp' | 'large-response' }>,
  nodes: readonly SuiteNode[],
  mesh?: Mesh,
): CellPlan[] {
  const { placements, vias } =
    row.kind !== 'large-response'
      ? row
      : { placements: ['cross-node' as const], vias: ['ip' as const] };
  const blank = { source: podEnd(row.from, '-'), target: podEnd(row.to, '-') };
  return pairCells(
    row,
    placements,
    vias,
    nodes,
    blank,
    (src, dst, placement, via) => {
      const { from, to, ends } = podPair(row, src, dst, placement);
      return {
        ...ends,
        probe: (w) => {
          const target = pod(w, to);
          const host = via === 'ip' ? target.ip : target.fqdn;
          return { from, ...podRequest(row, host, pod(w, from).ip, target.ip) };
        },
      };
    },
    mesh,
  );
}

/** ICMP echo pod → pod by pod IP; the echo reply must come from the target. */
export function icmp(
  row: Extract<MatrixRow, { kind: 'icmp' }>,
  nodes: readonly SuiteNode[],
  mesh?: Mesh,
): CellPlan[] {
  const blank = { source: podEnd(row.from, '-'), target: podEnd(row.to, '-') };
  return pairCells(
    row,
    row.placements,
    ['ip'],
    nodes,
    blank,
    (src, dst, placement) => {
      const { from, to, ends } = podPair(row, src, dst, placement);
      return {
        ...ends,
        probe: (w) => {
          const target = pod(w, to).ip;
          return {
            from,
            request: { kind: 'icmp', host: target },
            check: { kind: 'echo-reply', from: target },
          };
        },
      };
    },
    mesh,
  );
}

/**
 * A node's own network → a pod (`host-network-to-pod`), or a pod → a node's own address
 * (`pod-to-host-network`), by address; the answer must come from the target (its /hostname).
 */
export function hostNetworkPods(
  row: Extract<MatrixRow, { kind: 'host-network-to-pod' | 'pod-to-host-network' }>,
  nodes: readonly SuiteNode[],
  mesh?: Mesh,
): CellPlan[] {
  if (row.kind === 'pod-to-host-network') {
    const blank = { source: podEnd(row.from, '-'), target: hostEnd(row.to, '-') };
    return pairCells(
      row,
      row.placements,
      ['ip'],
      nodes,
      blank,
      (src, dst) => {
        const from = sourcePod(src.name);
        return {
          source: podEnd(row.from, src.name, from),
          target: hostEnd(row.to, dst.name),
          probe: (w) => {
            const host = hostNetexec(w, dst.name);
            return {
              from,
              request: { kind: 'http', url: `http://${host.address}:${host.port}/hostname` },
              check: { kind: 'body', expect: host.hostname },
            };
          },
        };
      },
      mesh,
    );
  }
  const blank = { source: hostEnd(row.from, '-'), target: podEnd(row.to, '-') };
  return pairCells(
    row,
    row.placements,
    ['ip'],
    nodes,
    blank,
    (src, dst, placement) => {
      const to = targetPod(dst, placement);
      return {
        source: hostEnd(row.from, src.name),
        target: podEnd(row.to, dst.name, to),
        probe: (w) => ({
          from: hostNetworkSource(src.name),
          request: { kind: 'http', url: `http://${pod(w, to).ip}:${NETEXEC_HTTP_PORT}/hostname` },
          check: { kind: 'body', expect: to },
        }),
      };
    },
    mesh,
  );
}
