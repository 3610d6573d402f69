/** Writes the run as Jenkins-style JUnit XML: one testsuite, one testcase per cell. */
import { runFacts } from './run-facts.ts';
import { resolve } from 'node:path';
import type { TestCase, TestSuite } from 'junit-report-builder';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { slowText, unexpectedPassMessage } from './cell-text.ts';
import { xmlSafe } from '../../lab/text/escape.ts';
import {
  newJunitBuilder,
  skipWithReason,
  withReruns,
  withoutSuitesSkipped,
  type Rerun,
} from './junit-builder.ts';
import type { Report } from '../model/report.ts';
import { recoveryLine } from './recovery-table.ts';
import type { OtherResult } from '../../lab/contracts/results-file.ts';

/** Suite name; the emulated marker keeps emulated results from passing as real ones in CI views. */
export function junitSuiteName(report: Report): string {
  return report.run.emulated ? 'hybrid-lab conformance (EMULATED)' : 'hybrid-lab conformance';
}

/**
 * How a cell's retries are written: Surefire's `<flakyFailure>`/`<rerunFailure>` (Jenkins'
 * xunit plugin reads them; its junit-10.xsd takes them), or as system-out text only, for
 * consumers held to the older junit-4.xsd, whose testcase has no such elements (JUNIT_RERUNS=text).
 */
export type RerunStyle = 'surefire' | 'text';

/**
 * The JUnit XML of a run. Evidence files are listed in each testcase's system-out as
 * `[[ATTACHMENT|path]]` lines (Jenkins' junit-attachments convention), resolved against
 * `resultsDir` when given. Valid against specs/report/junit.xsd, xunit-plugin's junit-10.xsd and
 * (with no reruns, or `text` ones) Jenkins' junit-4.xsd.
 */
export function renderJunit(
  report: Report,
  resultsDir?: string,
  reruns: RerunStyle = 'surefire',
): string {
  const builder = newJunitBuilder();
  const suite = builder.testSuite().name(junitSuiteName(report));
  suite.timestamp(report.run.startedAt);
  suite.time(suiteSeconds(report));
  addProperties(suite, report);
  for (const cell of report.cells) addCell(suite.testCase(), cell, report.run, resultsDir, reruns);
  for (const other of report.other) addOther(suite.testCase(), other);
  return withoutSuitesSkipped(builder.build());
}

function addProperties(suite: TestSuite, report: Report): void {
  const { run } = report;
  const props: [string, string][] = [
    ['lab', run.lab],
    ['provider', run.provider],
    ['emulated', run.emulated ? 'yes' : 'no'],
    ['kubernetes-version', run.kubernetesVersion],
    ['cni', run.cni],
    ...runFacts(run).map((f) => [f.key, f.value] as [string, string]),
    ...Object.entries(run.facts ?? {}).map(([k, v]) => [`fact.${k}`, v] as [string, string]),
    ['profile', run.profile],
    ['run-id', run.runId],
    ['started-at', run.startedAt],
  ];
  if (run.finishedAt) props.push(['finished-at', run.finishedAt]);
  if (report.interrupted) props.push(['interrupted', report.interrupted]);
  props.push(['slow-cells', String(report.totals.slow ?? 0)]);
  props.push(['flaky-cells', String(report.totals.flaky ?? 0)]);
  for (const [node, build] of Object.entries(run.osBuilds)) props.push([`os-build.${node}`, build]);
  for (const [name, value] of props) suite.property(xmlSafe(name), xmlSafe(value));
}

function addCell(
  tc: TestCase,
  cell: CellResult,
  run: Report['run'],
  resultsDir: string | undefined,
  reruns: RerunStyle,
): void {
  const { emulated } = run;
  const infra = cell.verdict === 'infra-error';
  tc.className(xmlSafe(infra ? 'infrastructure' : cell.row));
  tc.name(xmlSafe(emulated ? `${cell.title} [emulated]` : cell.title));
  tc.time(seconds(cell.durationMs));
  const detail = xmlSafe(cell.detail);
  switch (cell.verdict) {
    case 'pass':
      break;
    case 'fail': {
      const actual = cell.actual ?? 'error';
      tc.failure(xmlSafe(`expected ${cell.expected}, got ${actual}`), xmlSafe(actual));
      if (detail) tc.stacktrace(detail);
      break;
    }
    case 'unexpected-pass':
      // Under a `warn` profile mocha passes it too; JUnit must not disagree with the exit code.
      if (run.unexpectedPass === 'warn') break;
      tc.failure(xmlSafe(unexpectedPassMessage(cell)), 'unexpected-pass');
      if (detail) tc.stacktrace(detail);
      break;
    case 'expected-failure':
      skipWithReason(tc, xmlSafe(`expected failure: ${cell.reason ?? cell.expected}`));
      break;
    case 'skipped':
      skipWithReason(tc, xmlSafe(cell.reason ?? (cell.detail || 'skipped')));
      break;
    case 'infra-error':
      tc.error(xmlSafe(firstLine(cell.detail) || 'lab not ready'), 'infra-error', detail);
      break;
  }
  if (reruns === 'surefire') withReruns(tc, rerunsOf(cell));
  tc.standardOutput(xmlSafe(cellContext(cell, resultsDir)));
}

/**
 * Surefire's form of the attempts before the last: a cell that passed in the end has each
 * failure a retry hid as `<flakyFailure>`; a failed one, its other failed attempts as `<rerunFailure>`.
 */
function rerunsOf(cell: CellResult): Rerun[] {
  const passed = cell.verdict === 'pass' || cell.verdict === 'unexpected-pass';
  if (!passed && cell.verdict !== 'fail') return [];
  return (cell.failedAttempts ?? []).map((attempt, i) => ({
    element: passed ? 'flakyFailure' : 'rerunFailure',
    message: xmlSafe(
      `attempt ${i + 1} of ${cell.attempts}: expected ${cell.expected}, got ${attempt.outcome}`,
    ),
    type: xmlSafe(attempt.outcome),
    stackTrace: xmlSafe(attempt.detail),
  }));
}

function addOther(tc: TestCase, other: OtherResult): void {
  tc.className(xmlSafe(other.classname)).name(xmlSafe(other.title));
  tc.time(seconds(other.durationMs));
  const message = xmlSafe(other.message ?? '');
  switch (other.state) {
    case 'passed':
      break;
    case 'failed':
      tc.failure(message, xmlSafe(other.errorType ?? 'Error'));
      if (other.stack) tc.stacktrace(xmlSafe(other.stack));
      break;
    case 'hook-failed':
      tc.error(message, xmlSafe(other.errorType ?? 'Error'), xmlSafe(other.stack ?? ''));
      break;
    case 'pending':
    case 'not-run':
      skipWithReason(tc, message || 'pending');
      break;
  }
}

function cellContext(cell: CellResult, resultsDir: string | undefined): string {
  const lines = [
    `cell: ${cell.cell}`,
    `source: ${cell.source.label} (${cell.source.node}${cell.source.name ? `/${cell.source.name}` : ''})`,
    `target: ${cell.target.label} (${cell.target.node}${cell.target.name ? `/${cell.target.name}` : ''})`,
    `via: ${cell.via}${cell.placement ? `, ${cell.placement}` : ''}`,
    `expected: ${cell.expected}, actual: ${cell.actual ?? '-'}, verdict: ${cell.verdict}, attempts: ${cell.attempts}`,
  ];
  if (cell.reason) lines.push(`reason: ${cell.reason}`);
  if (cell.detail) lines.push(`detail: ${cell.detail}`);
  const recovery = recoveryLine(cell);
  if (recovery !== undefined) lines.push(`recovery: ${recovery}`);
  if (cell.timing !== undefined) lines.push(`timing: ${timingText(cell.timing)}`);
  if (cell.flags?.slow !== undefined) lines.push(slowText(cell.flags.slow));
  if (cell.flags?.flaky !== undefined) {
    const { failed, attempts, what } = cell.flags.flaky;
    lines.push(`flaky: ${failed} of ${attempts} ${what} failed`);
  }
  for (const [i, attempt] of (cell.failedAttempts ?? []).entries())
    lines.push(`failed attempt ${i + 1}: ${attempt.outcome}: ${attempt.detail}`);
  if (cell.evidence !== undefined) {
    lines.push(`evidence: ${cell.evidence.diedAt}`);
    for (const file of cell.evidence.files)
      lines.push(`[[ATTACHMENT|${resultsDir === undefined ? file : resolve(resultsDir, file)}]]`);
  }
  return lines.join('\n');
}

/** A cell's timing in one line, e.g. `total p50 2.1 ms, max 3.4 ms; connect p50 0.3 ms, max 0.5 ms (4 requests)`. */
export function timingText(timing: NonNullable<CellResult['timing']>): string {
  const connect =
    timing.connectP50Ms === undefined
      ? ''
      : `; connect p50 ${timing.connectP50Ms} ms, max ${timing.connectMaxMs ?? '?'} ms`;
  const n = `${timing.samples} request${timing.samples === 1 ? '' : 's'}`;
  return `total p50 ${timing.totalP50Ms} ms, max ${timing.totalMaxMs} ms${connect} (${n})`;
}

function suiteSeconds(report: Report): number {
  const { startedAt, finishedAt } = report.run;
  const wall = finishedAt ? Date.parse(finishedAt) - Date.parse(startedAt) : NaN;
  if (Number.isFinite(wall) && wall >= 0) return seconds(wall);
  const all = [...report.cells, ...report.other];
  return seconds(all.reduce((sum, r) => sum + r.durationMs, 0));
}

function seconds(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) / 1000 : 0;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]?.trim() ?? '';
}
