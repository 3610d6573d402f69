/**
 * The cross-check: each upstream spec beside the matrix rows it covers, both verdicts side by
 * side. One side passing where the other fails is a disagreement: one of the two is wrong. Pure.
 */
import { isRed, type CellResult } from '../../lab/contracts/results-file.ts';
import type {
  Agreement,
  CrossCheckRow,
  SideVerdict,
  UpstreamTest,
} from '../../lab/contracts/upstream-results.ts';
import type { CrossCheckEntry } from './upstream-catalogue.ts';

/** Cells named in a disagreement, at most. */
export const CELLS_NAMED = 6;

/** pass; fail for anything red; none where it did not run, was skipped, or is a known limit. */
export function upstreamSide(test: UpstreamTest | undefined): SideVerdict {
  if (test === undefined) return 'none';
  if (test.verdict === 'pass') return 'pass';
  return isRed(test.verdict) ? 'fail' : 'none';
}

/** fail when any covered cell is red; pass when none is and one passed; else none. */
export function matrixSide(cells: readonly CellResult[]): SideVerdict {
  if (cells.some((c) => isRed(c.verdict))) return 'fail';
  return cells.some((c) => c.verdict === 'pass') ? 'pass' : 'none';
}

function agreementOf(upstream: SideVerdict, matrix: SideVerdict): Agreement {
  if (upstream === 'none' || matrix === 'none') return 'not-comparable';
  return upstream === matrix ? 'agree' : 'disagree';
}

/** One row per catalogue entry whose spec or rows this run has something to say about. */
export function crossCheck(
  entries: readonly CrossCheckEntry[],
  tests: readonly UpstreamTest[],
  cells: readonly CellResult[],
): CrossCheckRow[] {
  const byName = new Map(tests.map((t) => [t.name, t]));
  const rows: CrossCheckRow[] = [];
  for (const entry of entries) {
    const covered = cells.filter(
      (c) => entry.rows.includes(c.row) && (entry.via === undefined || c.via === entry.via),
    );
    const test = byName.get(entry.test);
    const upstream = upstreamSide(test);
    const matrix = matrixSide(covered);
    if (test === undefined && matrix === 'none') continue;
    const agreement = agreementOf(upstream, matrix);
    // A disagreement names the matrix cells that make its side: the red ones, or those that passed.
    const named =
      agreement !== 'disagree'
        ? []
        : covered.filter((c) => (matrix === 'fail' ? isRed(c.verdict) : c.verdict === 'pass'));
    rows.push({
      test: entry.test,
      upstream,
      rows: entry.rows,
      matrix,
      cells: named.slice(0, CELLS_NAMED).map((c) => c.cell),
      agreement,
      ...(entry.note === undefined ? {} : { note: entry.note }),
    });
  }
  return rows;
}
