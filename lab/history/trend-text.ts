/** Words, symbols and escaping shared by trend.md and trend.html. */
import type { CellOutcome, RunStatus } from './run-record.ts';
import type { FailingSince, RunSummary, SeriesTrend } from './trend.ts';

export const EMULATED_NOTE =
  "EMULATED runs (cluster: emulated, on netns or libvirt labs): pods and Windows nodes are Linux network namespaces and the Kubernetes dataplane is the harness's emulation, not a real Windows/Kubernetes network";

export const OUTCOME_SYMBOL: Record<CellOutcome | 'absent', string> = {
  pass: '✅',
  fail: '❌',
  infra: '🚧',
  expected: '⚠️',
  skipped: '➖',
  absent: '·',
};

export const OUTCOME_WORD: Record<CellOutcome | 'absent', string> = {
  pass: 'pass',
  fail: 'fail',
  infra: 'lab not ready',
  expected: 'expected failure',
  skipped: 'skipped',
  absent: 'not in this run',
};

export const STATUS_SYMBOL: Record<RunStatus, string> = {
  passed: '✅',
  failed: '❌',
  infra: '🚧',
  interrupted: '⏹️',
};

export const STATUS_WORD: Record<RunStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  infra: 'infrastructure failure',
  interrupted: 'interrupted',
};

/** `2026-11-22 03:09` (UTC): short enough for a column header, sortable. */
export function shortTime(iso: string): string {
  return new Date(iso).toISOString().slice(0, 16).replace('T', ' ');
}

/** A pass rate as a whole percentage; "–" when the cell never counted. */
export function percent(rate: number | undefined): string {
  return rate === undefined ? '–' : `${Math.round(rate * 100)}%`;
}

/** Where a failing streak began, e.g. "2026-11-22 03:09 (run 20261122-abc), 3 failed runs". */
export function sinceText(since: FailingSince): string {
  const at = `${since.sinceFirstRecorded ? 'at least since ' : ''}${shortTime(since.startedAt)}`;
  return `${at} (run ${since.runId}), ${since.runs} failed run${since.runs === 1 ? '' : 's'}`;
}

/** The preset's name, marked EMULATED when any of its runs was. */
export function seriesLabel(series: SeriesTrend): string {
  return `${series.preset}${series.emulated ? ' (EMULATED)' : ''}`;
}

/** One line about a run: when, which, how it ended, emulated or not. */
export function runLabel(run: RunSummary): string {
  return `${shortTime(run.startedAt)} · ${run.runId} · ${STATUS_WORD[run.status]}${run.emulated ? ' · emulated' : ''}`;
}

/** Only http(s) links are ever rendered as links. */
export function safeLink(link: string | undefined): string | undefined {
  return link !== undefined && /^https?:\/\/\S+$/.test(link) ? link : undefined;
}
