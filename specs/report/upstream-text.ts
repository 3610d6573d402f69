/** Wording of upstream's e2e.test results shared by summary.md, matrix.html and junit_e2e.xml. */
import type {
  CrossCheckRow,
  SideVerdict,
  UpstreamRun,
  UpstreamTest,
} from '../../lab/contracts/upstream-results.ts';
import type { Verdict } from '../../lab/contracts/results-file.ts';

/** The headline counts of a run, e.g. `40 passed · 0 failed · 2 expected failures · 180 skipped`. */
export function upstreamCounts(run: UpstreamRun): string {
  const t = run.totals;
  const parts = [`${t.passed} passed`, `${t.failed} failed`];
  if (t.expectedFailures > 0) parts.push(`${t.expectedFailures} expected failures (lab limits)`);
  if (t.unexpectedPasses > 0) parts.push(`${t.unexpectedPasses} UNEXPECTED PASSES`);
  if (t.infraErrors > 0) parts.push(`${t.infraErrors} infra errors`);
  const selectedSkips = run.tests.filter((u) => u.verdict === 'skipped' && u.selected).length;
  parts.push(
    `${t.skipped} skipped (${t.skipped - selectedSkips} left out, ${selectedSkips} by e2e.test)`,
  );
  return `${parts.join(' · ')} — ${t.tests} specs`;
}

/** The disagreements of a cross-check: each one a finding. */
export function disagreements(run: UpstreamRun | undefined): CrossCheckRow[] {
  return (run?.crossCheck ?? []).filter((r) => r.agreement === 'disagree');
}

/** One line per disagreement: which side says what, and the matrix cells behind it. */
export function disagreementLine(row: CrossCheckRow): string {
  const cells = row.cells.length === 0 ? '' : ` (${row.cells.join(', ')})`;
  return `upstream ${sideWord(row.upstream)} "${row.test}" but the matrix ${sideWord(row.matrix)} ${row.rows.join(', ')}${cells}`;
}

export function sideWord(side: SideVerdict): string {
  return { pass: 'PASSED', fail: 'FAILED', partial: 'FAILED on some nodes', none: 'did not judge' }[
    side
  ];
}

/** Tests of one verdict, in name order. */
export function testsOf(run: UpstreamRun, verdict: Verdict): UpstreamTest[] {
  return run.tests.filter((t) => t.verdict === verdict);
}

/** Skipped specs grouped by reason, largest group first. */
export function skipGroups(run: UpstreamRun): { reason: string; tests: UpstreamTest[] }[] {
  const groups = new Map<string, UpstreamTest[]>();
  for (const t of testsOf(run, 'skipped')) {
    const reason = t.reason ?? 'skipped';
    groups.set(reason, [...(groups.get(reason) ?? []), t]);
  }
  return [...groups]
    .map(([reason, tests]) => ({ reason, tests }))
    .sort((a, b) => b.tests.length - a.tests.length || a.reason.localeCompare(b.reason));
}

/** The first line of a failure that says what went wrong (ginkgo's first line is a file path). */
export function failureHeadline(message: string | undefined): string {
  const lines = (message ?? '').split('\n').map((l) => l.trim());
  return lines.find((l) => l !== '' && !/^\S*\/\S+\.go:\d+$/.test(l)) ?? '';
}
