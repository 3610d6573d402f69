/** Writes the run as Jenkins-style JUnit XML: one testsuite, one testcase per cell. */
import { resolve } from 'node:path';
import type { TestCase, TestSuite } from 'junit-report-builder';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { unexpectedPassMessage } from './cell-text.ts';
import { xmlSafe } from '../../lab/text/escape.ts';
import { newJunitBuilder, skipWithMessage } from './junit-builder.ts';
import type { Report } from '../model/report.ts';
import { recoveryLine } from './recovery-table.ts';
import type { OtherResult } from '../../lab/contracts/results-file.ts';

/** Suite name; the emulated marker keeps emulated results from passing as real ones in CI views. */
export function junitSuiteName(report: Report): string {
  return report.run.emulated ? 'hybrid-lab conformance (EMULATED)' : 'hybrid-lab conformance';
}

/** Render the report as a JUnit XML document. */
/**
 * The JUnit XML of a run. Evidence files are listed in each testcase's system-out as
 * `[[ATTACHMENT|path]]` lines (Jenkins' junit-attachments convention), resolved against
 * `resultsDir` when given.
 */
export function renderJunit(report: Report, resultsDir?: string): string {
  const builder = newJunitBuilder();
  const suite = builder.testSuite().name(junitSuiteName(report));
  suite.timestamp(report.run.startedAt);
  suite.time(suiteSeconds(report));
  addProperties(suite, report);
  for (const cell of report.cells) addCell(suite.testCase(), cell, report.run, resultsDir);
  for (const other of report.other) addOther(suite.testCase(), other);
  return builder.build();
}

function addProperties(suite: TestSuite, report: Report): void {
  const { run } = report;
  const props: [string, string][] = [
    ['lab', run.lab],
    ['provider', run.provider],
    ['emulated', run.emulated ? 'yes' : 'no'],
    ['kubernetes-version', run.kubernetesVersion],
    ['cni', run.cni],
    ...(run.clusterDns === undefined ? [] : [['cluster-dns', run.clusterDns] as [string, string]]),
    ...(run.windowsDsr === undefined
      ? []
      : [['windows-dsr', run.windowsDsr ? 'on' : 'off'] as [string, string]]),
    ...Object.entries(run.facts ?? {}).map(([k, v]) => [`fact.${k}`, v] as [string, string]),
    ['profile', run.profile],
    ['run-id', run.runId],
    ['started-at', run.startedAt],
  ];
  if (run.finishedAt) props.push(['finished-at', run.finishedAt]);
  if (report.interrupted) props.push(['interrupted', report.interrupted]);
  for (const [node, build] of Object.entries(run.osBuilds)) props.push([`os-build.${node}`, build]);
  for (const [name, value] of props) suite.property(xmlSafe(name), xmlSafe(value));
}

function addCell(
  tc: TestCase,
  cell: CellResult,
  run: Report['run'],
  resultsDir: string | undefined,
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
      skipWithMessage(tc, xmlSafe(`expected failure: ${cell.reason ?? cell.expected}`));
      break;
    case 'skipped':
      skipWithMessage(tc, xmlSafe(cell.reason ?? (cell.detail || 'skipped')));
      break;
    case 'infra-error':
      tc.error(xmlSafe(firstLine(cell.detail) || 'lab not ready'), 'infra-error', detail);
      break;
  }
  tc.standardOutput(xmlSafe(cellContext(cell, resultsDir)));
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
      skipWithMessage(tc, message || 'pending');
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
  if (cell.evidence !== undefined) {
    lines.push(`evidence: ${cell.evidence.diedAt}`);
    for (const file of cell.evidence.files)
      lines.push(`[[ATTACHMENT|${resultsDir === undefined ? file : resolve(resultsDir, file)}]]`);
  }
  return lines.join('\n');
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
