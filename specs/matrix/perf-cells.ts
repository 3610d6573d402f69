/**
 * The perf mode's cells (docs/performance.md): per OS pair, pod to pod on the same node and across
 * nodes, node to node over the host network, and pod to each OS's Service; one cell per path and
 * measure. Cells come out path by path, a path's measures one after another, and a node pair's pod
 * path next to its host path, so the two the tolerance compares are measured close in time.
 */
import {
  OSES,
  PERF_MEASURES,
  PERF_NETWORKS,
  type CellKey,
  type Os,
  type PerfMeasure,
  type PerfNetwork,
  type Placement,
} from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { hostNetworkSource, type SuiteNode, type Workloads } from '../model/lab-driver.ts';
import {
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
  backendPod,
  sourcePod,
} from '../model/workload-names.ts';
import {
  endpointsOf,
  hostEnd,
  hostNetexec,
  ids,
  nodesOf,
  pod,
  podEnd,
  service,
  serviceTarget,
} from './cell-parts.ts';
import { crossNodePairs, type Mesh } from './mesh.ts';
import { HOST_NETEXEC_PORTS } from '../../lab/cluster/runtime/workload-programs.ts';
import type { MatrixRow } from './rows.ts';

export type PerfRow = Extract<MatrixRow, { kind: 'perf' }>;

/** How long each measure runs, and the rate of the UDP stream. */
export interface PerfSettings {
  /** PERF_DURATION_MS (default 250). */
  durationMs: number;
  /**
   * PERF_UDP_MBPS (default 4): far below what a healthy path carries and above a throttled one,
   * and slow enough that a receiver held off the CPU for 200 ms on a busy machine loses nothing.
   */
  udpMbps: number;
}

export const DEFAULT_PERF: PerfSettings = { durationMs: 250, udpMbps: 4 };

/** Every perf row: each measure over each network, for every OS pair. */
export const PERF_MATRIX: readonly PerfRow[] = OSES.flatMap((from) =>
  OSES.flatMap((to) =>
    PERF_NETWORKS.flatMap((network) =>
      PERF_MEASURES.map((measure): PerfRow => ({ kind: 'perf', measure, network, from, to })),
    ),
  ),
);

/** The measure's request against netexec at `host` (HTTP `port`; its UDP port for udp-stream). */
function measureAt(
  measure: PerfMeasure,
  host: string,
  port: number,
  settings: PerfSettings,
  udpPort: number,
): ProbeSpec['request'] {
  return measure === 'udp-stream'
    ? {
        kind: 'perf',
        measure,
        base: `udp://${host}:${udpPort}`,
        durationMs: settings.durationMs,
        rateMbps: settings.udpMbps,
      }
    : { kind: 'perf', measure, base: `http://${host}:${port}`, durationMs: settings.durationMs };
}

/** One path: its ends, how it is placed, and where the measure starts and goes. */
interface PerfPath {
  network: PerfNetwork;
  from: Os;
  to: Os;
  src: SuiteNode;
  dst?: SuiteNode;
  placement?: Placement;
  source: Endpoint;
  target: Endpoint;
  at: (w: Workloads) => { from: string; host: string; port: number; udpPort: number };
}

function pathsOf(rows: readonly PerfRow[], nodes: readonly SuiteNode[], mesh: Mesh): PerfPath[] {
  const pairs = [...new Set(rows.map((r) => `${r.from}>${r.to}`))].map(
    (p) => p.split('>') as [Os, Os],
  );
  const wants = (network: PerfNetwork, from: Os, to: Os) =>
    rows.some((r) => r.network === network && r.from === from && r.to === to);
  return pairs.flatMap(([from, to]) => {
    const paths: PerfPath[] = [];
    if (from === to && wants('pod', from, to)) {
      for (const n of nodesOf(nodes, from)) {
        paths.push({
          network: 'pod',
          from,
          to,
          src: n,
          dst: n,
          placement: 'same-node',
          source: podEnd(from, n.name, sourcePod(n.name)),
          target: podEnd(to, n.name, backendPod(n.name)),
          at: (w) => ({
            from: sourcePod(n.name),
            host: pod(w, backendPod(n.name)).ip,
            port: NETEXEC_HTTP_PORT,
            udpPort: NETEXEC_UDP_PORT,
          }),
        });
      }
    }
    for (const [src, dst] of crossNodePairs({ from, to }, nodes, mesh)) {
      if (wants('pod', from, to))
        paths.push({
          network: 'pod',
          from,
          to,
          src,
          dst,
          placement: 'cross-node',
          source: podEnd(from, src.name, sourcePod(src.name)),
          target: podEnd(to, dst.name, sourcePod(dst.name)),
          at: (w) => ({
            from: sourcePod(src.name),
            host: pod(w, sourcePod(dst.name)).ip,
            port: NETEXEC_HTTP_PORT,
            udpPort: NETEXEC_UDP_PORT,
          }),
        });
      if (wants('host', from, to))
        paths.push({
          network: 'host',
          from,
          to,
          src,
          dst,
          placement: 'cross-node',
          source: hostEnd(from, src.name),
          target: hostEnd(to, dst.name),
          at: (w) => {
            const host = hostNetexec(w, dst.name);
            return {
              from: hostNetworkSource(src.name),
              host: host.address,
              port: host.port,
              udpPort: HOST_NETEXEC_PORTS.udp,
            };
          },
        });
    }
    if (wants('service', from, to) && nodesOf(nodes, to).length > 0) {
      const backends = nodesOf(nodes, to).map((n) => n.name);
      for (const src of nodesOf(nodes, from)) {
        paths.push({
          network: 'service',
          from,
          to,
          src,
          source: podEnd(from, src.name, sourcePod(src.name)),
          target: serviceTarget(to, backends, `web-${to}`, `${to} service`),
          at: (w) => {
            const svc = service(w, to);
            return {
              from: sourcePod(src.name),
              host: svc.clusterIP,
              port: svc.port,
              udpPort: svc.udpPort,
            };
          },
        });
      }
    }
    return paths;
  });
}

/** The perf cells of `rows` on this lab, path by path. */
export function perfCells(
  rows: readonly PerfRow[],
  nodes: readonly SuiteNode[],
  mesh: Mesh,
  settings: PerfSettings,
): CellPlan[] {
  return pathsOf(rows, nodes, mesh).flatMap((path) =>
    rows
      .filter((r) => r.network === path.network && r.from === path.from && r.to === path.to)
      .map((row): CellPlan => {
        const via = path.network === 'service' ? 'cluster-ip' : 'ip';
        const key: CellKey = {
          ...row,
          via,
          node: path.src.name,
          ...(path.placement === undefined ? {} : { placement: path.placement }),
          ...(path.dst === undefined || path.placement !== 'cross-node'
            ? {}
            : { peer: path.dst.name }),
        };
        const where =
          path.dst === undefined
            ? path.src.name
            : path.placement === 'same-node'
              ? path.src.name
              : `${path.src.name}-to-${path.dst.name}`;
        const placed = path.placement === undefined ? '' : ` ${path.placement}`;
        return {
          meta: {
            ...ids(key),
            title: `perf ${row.measure} ${row.network} ${row.from}-to-${row.to} ${where}${placed} via ${via}`,
            source: path.source,
            target: path.target,
            placement: path.placement ?? '',
          },
          probe: (w) => {
            const at = path.at(w);
            if (path.network === 'service' && endpointsOf(w, path.to).length === 0)
              throw new Error(`the ${path.to} Service has no endpoints`);
            return {
              from: at.from,
              request: measureAt(row.measure, at.host, at.port, settings, at.udpPort),
              check: { kind: 'measured' },
            };
          },
        };
      }),
  );
}
