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

/** pass when every judged cell passed, fail when every one is red, partial when both; else none. */
export function matrixSide(cells: readonly CellResult[]): SideVerdict {
  const red = cells.some((c) => isRed(c.verdict));
  const green = cells.some((c) => c.verdict === 'pass');
  if (red) return green ? 'partial' : 'fail';
  return green ? 'pass' : 'none';
}

/**
 * An upstream spec probes from one client pod, the matrix from every node: a failure on some
 * nodes only agrees with an upstream failure, and says nothing against an upstream pass (its
 * client may have sat on a healthy node).
 */
function agreementOf(upstream: SideVerdict, matrix: SideVerdict): Agreement {
  if (upstream === 'none' || matrix === 'none') return 'not-comparable';
  if (matrix === 'partial') return upstream === 'fail' ? 'agree' : 'not-comparable';
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
        : covered.filter((c) => (matrix === 'pass' ? c.verdict === 'pass' : isRed(c.verdict)));
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
