/**
 * How long a run will take, said before it starts: its cells times the wall time a cell took on
 * a real cluster the repository measured.
 */
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import { FULL_MESH, meshForCluster, type Mesh } from '../matrix/mesh.ts';
import type { SuiteNode } from '../model/lab-driver.ts';

/**
 * The measured run: the suite on the real v1.20.2 netns-kubeadm lab (a control plane and two
 * Linux workers, 168 cells probed, the Windows ones skipped) took 130 s with 8 probes in flight,
 * deploying its workloads included (docs/service-features.md, "Measured here", from `npm run
 * bench`). No Windows node has run here: a Windows exec is slower than a Linux one, so for
 * Windows cells the figure is a floor.
 */
export const MEASURED_RUN = { cells: 168, wallMs: 130_000, concurrency: 8 } as const;

/** What the estimate rests on, for the line a run prints. */
export const MEASURED_FROM =
  'the real netns-kubeadm lab: 168 cells in 130 s at 8 in flight, Linux pods only; Windows execs are slower';

/** The estimated wall time of `cells` probed with `concurrency` probes in flight. */
export function estimateMs(cells: number, concurrency: number): number {
  const perCellMs = (MEASURED_RUN.wallMs * MEASURED_RUN.concurrency) / MEASURED_RUN.cells;
  return Math.round((cells * perCellMs) / Math.max(1, concurrency));
}

/** `45 s`, `19 min`, `2 h 13 min`. */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 120 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** The line a run prints before it starts: cells, mesh, estimate and what it rests on. */
export function estimateLine(cells: number, mesh: Mesh, concurrency: number): string {
  return `${cells.toLocaleString('en-US')} cells (MESH=${mesh.mode}), about ${durationText(estimateMs(cells, concurrency))} with ${concurrency} probes in flight (per cell as measured on ${MEASURED_FROM})`;
}

/** A cluster of `linux` + `windows` nodes: one control plane, the rest workers. */
export function clusterOf(linux: number, windows: number): SuiteNode[] {
  const node = (name: string, os: 'linux' | 'windows', i: number): SuiteNode => ({
    name,
    os,
    role: i === 0 ? 'control-plane' : 'worker',
    ip: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`,
  });
  return [
    ...Array.from({ length: linux }, (_, i) => node(i === 0 ? 'cp1' : `lin${i}`, 'linux', i)),
    ...Array.from({ length: windows }, (_, i) => node(`win${i + 1}`, 'windows', linux + i)),
  ];
}

/** docs/existing.md's table: cells and estimate at 10 and 30 nodes, by default and with MESH=full. */
export function estimateTable(concurrency = 8): string[] {
  const rows = [
    [6, 4],
    [18, 12],
  ].map(([linux, windows]) => {
    const nodes = clusterOf(linux!, windows!);
    const count = (mesh: Mesh) => expandCells(MATRIX, nodes, mesh).length;
    const ring = meshForCluster(FULL_MESH, false, { provider: 'existing', nodes: nodes.length });
    const [byDefault, full] = [count(ring), count(FULL_MESH)];
    const cell = (n: number) =>
      `${n.toLocaleString('en-US')} cells, ~${durationText(estimateMs(n, concurrency))}`;
    return `| ${nodes.length} (${linux} Linux + ${windows} Windows) | ${cell(byDefault)} (${ring.mode}) | ${cell(full)} |`;
  });
  return [`| nodes | default mesh | \`MESH=full\` |`, '| --- | --- | --- |', ...rows];
}
