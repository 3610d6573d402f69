/**
 * Upstream's e2e.test in the history, tracked like cells: each spec the run chose is a cell of
 * row `upstream-e2e/<sig>`, each cross-check a cell of row `cross-check` (a disagreement fails).
 */
import type { Verdict } from '../contracts/results-file.ts';
import { upstreamRowOf, type Agreement, type UpstreamRun } from '../contracts/upstream-results.ts';
import type { RecordedCell } from './run-record.ts';

const AGREEMENT_VERDICT: Record<Agreement, Verdict> = {
  agree: 'pass',
  disagree: 'fail',
  'not-comparable': 'skipped',
};

/** The cells of an upstream run; specs left out of its focus are not tracked. */
export function upstreamCells(
  run: UpstreamRun | undefined,
  shorten: (text: string) => string,
): RecordedCell[] {
  if (run === undefined || run.status === 'skipped') return [];
  const specs = run.tests
    .filter((t) => t.selected)
    .map((t): RecordedCell => {
      const detail = t.verdict === 'pass' ? '' : (t.message ?? t.reason ?? '');
      return {
        cell: `upstream-e2e/${t.name}`,
        row: upstreamRowOf(t.name),
        title: t.name,
        verdict: t.verdict,
        ...(detail === '' ? {} : { detail: shorten(detail) }),
      };
    });
  const checks = (run.crossCheck ?? []).map((r): RecordedCell => ({
    cell: `cross-check/${r.test}`,
    row: 'cross-check',
    title: `cross-check ${r.test} vs ${r.rows.join(', ')}`,
    verdict: AGREEMENT_VERDICT[r.agreement],
    ...(r.agreement === 'disagree'
      ? { detail: shorten(`upstream ${r.upstream}, matrix ${r.matrix}: ${r.cells.join(', ')}`) }
      : {}),
  }));
  return [...specs, ...checks];
}
