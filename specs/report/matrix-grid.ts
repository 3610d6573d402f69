/**
 * Aggregates cells into source × target grids, shared by the summary and the HTML: the overview
 * (one grid per `via`, OS × OS) and the node view (one grid per path, node × node), where one
 * broken node shows as a red row or column.
 */
import type { CellResult, Verdict } from '../../lab/contracts/results-file.ts';

/** Colour class of a grid position, worst verdict first. */
export type GridStatus = 'fail' | 'expected-failure' | 'pass' | 'skipped';

export interface GridCell {
  source: string;
  target: string;
  status: GridStatus;
  /** How many cells ended with each verdict here. */
  counts: Partial<Record<Verdict, number>>;
  cells: CellResult[];
}

export interface Grid {
  /** Heading, e.g. `via ip` or `pod-to-pod by node`. */
  title: string;
  sources: string[];
  targets: string[];
  /** Keyed by `gridKey(source, target)`; absent when no cell falls there. */
  positions: Map<string, GridCell>;
}

/** Verdicts in display order. */
export const VERDICT_ORDER: readonly Verdict[] = [
  'pass',
  'fail',
  'unexpected-pass',
  'expected-failure',
  'skipped',
  'infra-error',
];

/** Key of a grid position. */
export function gridKey(source: string, target: string): string {
  return JSON.stringify([source, target]);
}

/** True for cells that belong in a grid: infrastructure cells are reported apart. */
export function isMatrixCell(cell: CellResult): boolean {
  return cell.row !== 'infrastructure' && cell.verdict !== 'infra-error';
}

/** Colour of a position: red beats amber beats green beats grey. */
export function gridStatus(counts: Partial<Record<Verdict, number>>): GridStatus {
  if ((counts.fail ?? 0) + (counts['unexpected-pass'] ?? 0) > 0) return 'fail';
  if ((counts['expected-failure'] ?? 0) > 0) return 'expected-failure';
  if ((counts.pass ?? 0) > 0) return 'pass';
  return 'skipped';
}

/** Where a cell goes: which grid, which row, which column. */
export interface GridAxes {
  title(cell: CellResult): string;
  source(cell: CellResult): string;
  target(cell: CellResult): string;
  /** Orders rows and columns; absent: the engine's order. */
  order?: (labels: string[], cells: readonly CellResult[]) => string[];
}

/** The overview: one grid per via, rows and columns are the endpoints' OS labels. */
export const BY_OS: GridAxes = {
  title: (cell) => `via ${cell.via}`,
  source: (cell) => cell.source.label,
  target: (cell) => cell.target.label,
};

/**
 * The node view: one grid per path (row kind), rows are source nodes, columns target nodes; a
 * Service, the outside echo and the cluster DNS are columns of their own.
 */
export const BY_NODE: GridAxes = {
  // A disruption's cells get a grid of their own per action: `disruption/node-reboot by node`.
  title: (cell) =>
    `${cell.row
      .split('/')
      .slice(0, cell.row.startsWith('disruption/') ? 2 : 1)
      .join('/')} by node`,
  order: byOsThenName,
  source: (cell) => cell.source.node,
  target: (cell) =>
    cell.target.name !== undefined && cell.target.label.endsWith('service')
      ? cell.target.label
      : cell.target.node === '-' || cell.target.node === 'outside'
        ? cell.target.label
        : cell.target.node,
};

/**
 * Node labels grouped by OS (Windows first, as the matrix lists its rows), then by name in
 * natural order (win2 before win10); other labels (a Service, outside, cluster DNS) last.
 */
function byOsThenName(labels: string[], cells: readonly CellResult[]): string[] {
  const os = new Map<string, string>();
  for (const cell of cells) {
    os.set(cell.source.node, cell.source.os);
    if (!cell.target.node.includes(',')) os.set(cell.target.node, cell.target.os);
  }
  const rank = (label: string) => ['windows', 'linux'].indexOf(os.get(label) ?? '') + 1 || 3;
  return [...labels].sort(
    (a, b) => rank(a) - rank(b) || a.localeCompare(b, 'en', { numeric: true }),
  );
}

/** Grids in order of first appearance; labels keep the engine's order unless the axes order them. */
export function buildGrids(cells: readonly CellResult[], axes: GridAxes = BY_OS): Grid[] {
  const grids = new Map<string, Grid>();
  for (const cell of cells.filter(isMatrixCell)) {
    const title = axes.title(cell);
    let grid = grids.get(title);
    if (!grid) {
      grid = { title, sources: [], targets: [], positions: new Map() };
      grids.set(title, grid);
    }
    const source = axes.source(cell);
    const target = axes.target(cell);
    if (!grid.sources.includes(source)) grid.sources.push(source);
    if (!grid.targets.includes(target)) grid.targets.push(target);
    const key = gridKey(source, target);
    let position = grid.positions.get(key);
    if (!position) {
      position = { source, target, status: 'skipped', counts: {}, cells: [] };
      grid.positions.set(key, position);
    }
    position.cells.push(cell);
    position.counts[cell.verdict] = (position.counts[cell.verdict] ?? 0) + 1;
    position.status = gridStatus(position.counts);
  }
  const built = [...grids.values()];
  const order = axes.order;
  if (order === undefined) return built;
  return built.map((grid) => ({
    ...grid,
    sources: order(grid.sources, cells),
    targets: order(grid.targets, cells),
  }));
}

/** The verdicts present at a position with their counts, in display order. */
export function verdictCounts(position: GridCell): [Verdict, number][] {
  return VERDICT_ORDER.flatMap((v): [Verdict, number][] => {
    const n = position.counts[v] ?? 0;
    return n > 0 ? [[v, n]] : [];
  });
}
