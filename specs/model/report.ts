/** A run's report as every writer sees it: the results.json contract plus what the suite derives from it. */
import { LAB_READY_CELL_ID } from '../../lab/contracts/cells.ts';
import {
  computeTotals,
  type CellMeta,
  type CellResult,
  type OtherResult,
  type ResultsFile,
  type RunInfo,
  type Totals,
} from '../../lab/contracts/results-file.ts';

/** A finished (or interrupted) run: exactly what results.json holds. */
export type Report = ResultsFile;

/** The one testcase a run gets when the lab cannot be opened (never a wall of network failures). */
export const LAB_READY_CELL: CellMeta = {
  row: 'infrastructure',
  cell: LAB_READY_CELL_ID,
  title: 'infrastructure lab ready',
  source: { os: 'linux', node: '-', label: 'lab' },
  target: { os: 'linux', node: '-', label: 'lab' },
  via: '',
  placement: '',
  expected: 'ok',
};

/** Assemble a report, computing its totals. */
export function makeReport(
  run: RunInfo,
  cells: CellResult[],
  other: OtherResult[] = [],
  interrupted?: string,
): Report {
  const report: Report = { run, cells, other, totals: computeTotals(cells, other) };
  if (interrupted !== undefined) report.interrupted = interrupted;
  return report;
}

/** True when the run needs attention: a failure, unexpected pass, infra error, failed test or cells cut off. */
export function hasProblems(totals: Totals): boolean {
  const { failed, unexpectedPasses, infraErrors, otherFailures, notRun } = totals;
  return failed + unexpectedPasses + infraErrors + otherFailures + notRun > 0;
}

/** Headline state: problems to look at, nothing ran at all, or all cells as expected. */
export function runStatus(totals: Totals): 'problems' | 'empty' | 'ok' {
  if (hasProblems(totals)) return 'problems';
  return totals.cells === 0 ? 'empty' : 'ok';
}

/** RunInfo used when no engine published one, so every output still has a header. */
export function unknownRunInfo(startedAt: Date): RunInfo {
  return {
    runId: process.env.HYBRID_RUN_ID ?? `run-${startedAt.toISOString()}`,
    lab: 'unknown',
    provider: 'unknown',
    emulated: false,
    kubernetesVersion: 'unknown',
    cni: 'unknown',
    osBuilds: {},
    profile: 'unknown',
    startedAt: startedAt.toISOString(),
  };
}
