/**
 * The matrix of a run that leaves nodes out: the cells of the nodes it uses, as they run, and
 * every cell that would need a left-out node, skipped naming that node and why.
 */
import type { CellPlan } from '../model/cell-plan.ts';
import type { LeftOut, SuiteNode } from '../model/lab-driver.ts';
import { expandCells, type LabFeatures } from './expand-cells.ts';
import { FULL_MESH, type Mesh } from './mesh.ts';
import { DEFAULT_PERF, type PerfSettings } from './perf-cells.ts';
import type { MatrixRow } from './rows.ts';

/** `lin2, which the run left out: it has taint …`: why these left-out nodes cannot take the cell. */
function because(nodes: readonly LeftOut[]): string {
  return nodes.map((l) => `${l.node.name}, which the run left out: it ${l.why}`).join('; ');
}

/** The left-out nodes a cell names as its ends, else those of its ends' OSes. */
function neededBy(plan: CellPlan, leftOut: readonly LeftOut[]): LeftOut[] {
  const { source, target } = plan.meta;
  const named = new Set([source.node, ...target.node.split(',')]);
  const byName = leftOut.filter((l) => named.has(l.node.name));
  if (byName.length > 0) return byName;
  const oses = new Set<string>([source.os, target.os]);
  const byOs = leftOut.filter((l) => oses.has(l.node.os));
  return byOs.length > 0 ? byOs : [...leftOut];
}

function skipped(plan: CellPlan, why: string): CellPlan {
  return { meta: plan.meta, ...(plan.churn === undefined ? {} : { churn: plan.churn }), skip: why };
}

/**
 * Every cell over `nodes`, and those only `nodes` with `leftOut` would have, skipped with the
 * left-out nodes they need. A cell the used nodes cannot host only for lack of a left-out node
 * (no Windows node left) says so too; a placeholder cell for a lacking OS gives way to that
 * OS's per-node cells.
 */
export function expandWithLeftOut(
  rows: readonly MatrixRow[],
  nodes: readonly SuiteNode[],
  leftOut: readonly LeftOut[],
  mesh: Mesh = FULL_MESH,
  perf: PerfSettings = DEFAULT_PERF,
  lab: LabFeatures = {},
): CellPlan[] {
  const used = expandCells(rows, nodes, mesh, perf, lab);
  if (leftOut.length === 0) return used;
  const all = [...nodes, ...leftOut.map((l) => l.node)].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  const whole = expandCells(rows, all, mesh, perf, lab);
  const usedById = new Map(used.map((p) => [p.meta.cell, p]));
  const wholeIds = new Set(whole.map((p) => p.meta.cell));
  const wholeRows = new Set(whole.map((p) => p.meta.row));
  const cells: CellPlan[] = [];
  for (const plan of whole) {
    const mine = usedById.get(plan.meta.cell);
    if (mine === undefined) {
      cells.push(skipped(plan, `needs ${because(neededBy(plan, leftOut))}`));
    } else if (mine.skip !== undefined && plan.skip === undefined) {
      cells.push(skipped(mine, `${mine.skip}: ${because(neededBy(mine, leftOut))}`));
    } else {
      cells.push(mine);
    }
  }
  // Cells only the used nodes have: pairs a sampled mesh draws from fewer nodes run; a skipped
  // placeholder of a row the whole cluster expands per node does not.
  for (const plan of used) {
    if (wholeIds.has(plan.meta.cell)) continue;
    if (plan.skip !== undefined && wholeRows.has(plan.meta.row)) continue;
    cells.push(plan);
  }
  return cells;
}
