/** Renders trend.md: what broke, since when, what is flaky, per preset (GitHub step summary). */
import type { CellTrend, SeriesTrend, TrendReport } from './trend.ts';
import {
  EMULATED_NOTE,
  OUTCOME_SYMBOL,
  OUTCOME_WORD,
  STATUS_SYMBOL,
  STATUS_WORD,
  percent,
  runLabel,
  safeLink,
  seriesLabel,
  shortTime,
  sinceText,
} from './trend-text.ts';
import { escapeMarkdown as md } from '../text/escape.ts';

/** The trend as GitHub-flavoured Markdown: headline, runs per preset, failing, flaky, every cell. */
export function renderTrendMarkdown(report: TrendReport): string {
  const { series } = report;
  const failing = series.reduce((n, s) => n + s.failing.length, 0);
  const flaky = series.reduce((n, s) => n + s.flaky.length, 0);
  const runs = series.reduce((n, s) => n + s.runs.length, 0);
  const lines = ['# hybrid-lab nightly trend', ''];
  if (series.some((s) => s.emulated)) lines.push(`> ⚠️ **Includes ${EMULATED_NOTE}.**`, '');
  lines.push(
    `**${failing === 0 ? '✅ no cell failing now' : `❌ ${failing} cell${failing === 1 ? '' : 's'} failing now`}** · ` +
      `**🔀 ${flaky} flaky** · ${runs} run${runs === 1 ? '' : 's'} of ${series.length} preset${series.length === 1 ? '' : 's'} ` +
      `(window: last ${report.window} runs per preset; generated ${shortTime(report.generatedAt)} UTC)`,
    '',
  );
  if (series.length === 0) {
    lines.push('The history store holds no runs yet.', '');
    return `${lines.join('\n')}\n`;
  }
  lines.push(...presetTable(series), '');
  for (const s of series) lines.push(...seriesSection(s));
  lines.push(legend(), '');
  return lines.join('\n');
}

function presetTable(series: SeriesTrend[]): string[] {
  return [
    '## Runs per preset',
    '',
    '| preset | provider | runs in window / stored | last run | runs (oldest → newest) | failing now | flaky |',
    '|---|---|:---:|---|---|:---:|:---:|',
    ...series.map((s) => {
      const last = s.runs.at(-1);
      const lastText =
        last === undefined ? '–' : `${STATUS_SYMBOL[last.status]} ${md(runLabel(last))}`;
      const strip = s.runs.map((r) => STATUS_SYMBOL[r.status]).join('');
      return `| ${md(seriesLabel(s))} | ${md(s.providers.join(', '))} | ${s.runs.length} / ${s.totalRuns} | ${lastText} | ${strip} | ${s.failing.length} | ${s.flaky.length} |`;
    }),
  ];
}

function strip(cell: CellTrend): string {
  return cell.outcomes.map((o) => OUTCOME_SYMBOL[o ?? 'absent']).join('');
}

function seriesSection(s: SeriesTrend): string[] {
  const heading = `## ${md(s.preset)} — ${md(s.providers.join(', '))}${s.emulated ? ', EMULATED' : ''}`;
  const lines = [heading, ''];
  if (s.emulated) lines.push(`> Results of this preset are **EMULATED**.`, '');
  lines.push(`### ❌ Failing now (${s.failing.length})`, '');
  if (s.failing.length === 0) lines.push('No cell is failing in the latest runs.', '');
  else {
    lines.push(
      '| cell | failing since | pass rate | runs | last failure |',
      '|---|---|:---:|---|---|',
      ...s.failing.map(
        (c) =>
          `| ${md(c.title)}${c.flaky ? ' 🔀' : ''} | ${md(sinceText(c.failingSince!))} | ${percent(c.passRate)} | ${strip(c)} | ${md(c.lastDetail ?? '')} |`,
      ),
      '',
    );
  }
  lines.push(`### 🔀 Flaky (${s.flaky.length})`, '');
  if (s.flaky.length === 0) lines.push('No cell both failed and later passed in the window.', '');
  else {
    lines.push(
      '| cell | pass rate | runs | last failure |',
      '|---|:---:|---|---|',
      ...s.flaky.map(
        (c) =>
          `| ${md(c.title)} | ${percent(c.passRate)} | ${strip(c)} | ${md(c.lastDetail ?? '')} |`,
      ),
      '',
    );
  }
  lines.push(`### 🐢 Slow or flaky (${s.flagged.length})`, '');
  if (s.flagged.length === 0) lines.push('No cell was flagged slow or flaky in the window.', '');
  else {
    lines.push(
      '| cell | flagged in | p50 per run, ms (oldest → newest) |',
      '|---|:---:|---|',
      ...s.flagged.map(
        (c) =>
          `| ${md(c.title)} | ${c.flaggedRuns} of ${s.runs.length} | ${c.p50Ms.map((v) => (v === undefined ? '–' : String(v))).join(' · ')} |`,
      ),
      '',
    );
  }
  if (s.mesh !== undefined) {
    lines.push(
      `Mesh: ${s.mesh.ringRuns} run(s) of the window on a ring; together they covered ${s.mesh.covered} of ${s.mesh.total} ordered node pairs (pod-to-pod cross-node).`,
      '',
    );
  }
  lines.push(
    '### Every cell',
    '',
    '| cell | pass rate | runs |',
    '|---|:---:|---|',
    ...s.cells.map((c) => `| ${md(c.title)} | ${percent(c.passRate)} | ${strip(c)} |`),
    '',
    `Runs, oldest first: ${s.runs
      .map((r, i) => {
        const text = md(`${i + 1}. ${runLabel(r)}`);
        const link = safeLink(r.link);
        return link === undefined ? text : `[${text}](${link})`;
      })
      .join(' · ')}`,
    '',
  );
  return lines;
}

function legend(): string {
  const outcomes = (['pass', 'fail', 'infra', 'expected', 'skipped', 'absent'] as const)
    .map((o) => `${OUTCOME_SYMBOL[o]} ${OUTCOME_WORD[o]}`)
    .join(' · ');
  const statuses = (['passed', 'failed', 'infra', 'interrupted'] as const)
    .map((s) => `${STATUS_SYMBOL[s]} ${STATUS_WORD[s]}`)
    .join(' · ');
  return (
    `Legend — cells: ${outcomes}. Runs: ${statuses}. ` +
    'Pass rate counts passes and failures only (an unexpected pass counts as a failure). ' +
    'Flaky: a failure in the window that a later pass contradicts. ' +
    'Failing since: the first run of the current streak of failures.'
  );
}
