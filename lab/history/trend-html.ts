/** Renders trend.html: one page that says what broke, since when, and what is merely flaky. */
import type { CellOutcome } from './run-record.ts';
import type { CellTrend, FailingSince, RunSummary, SeriesTrend, TrendReport } from './trend.ts';
import { trendCss } from './trend-css.ts';
import {
  EMULATED_NOTE,
  OUTCOME_WORD,
  STATUS_WORD,
  percent,
  runLabel,
  safeLink,
  shortTime,
} from './trend-text.ts';
import { escapeHtml as h } from '../text/escape.ts';

const MARK: Record<CellOutcome | 'absent', string> = {
  pass: '✔',
  fail: '✘',
  infra: '?',
  expected: '⚠',
  skipped: '–',
  absent: '',
};

/** The trend as a self-contained HTML page (inline CSS, no scripts). */
export function renderTrendHtml(report: TrendReport): string {
  const { series } = report;
  const emulated = series.some((s) => s.emulated);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>hybrid-lab nightly trend${emulated ? ' (includes EMULATED runs)' : ''}</title>
<style>${trendCss()}</style>
</head>
<body>
${emulated ? `<div class="banner banner-emulated">Includes EMULATED runs<small>${h(EMULATED_NOTE)}</small></div>` : ''}
${header(report)}
<main>
${series.length === 0 ? '<section class="card">The history store holds no runs yet.</section>' : presetCard(series)}
${series.map(seriesCard).join('\n')}
</main>
${footer()}
</body>
</html>
`;
}

function header(report: TrendReport): string {
  const failing = report.series.reduce((n, s) => n + s.failing.length, 0);
  const flaky = report.series.reduce((n, s) => n + s.flaky.length, 0);
  const runs = report.series.reduce((n, s) => n + s.runs.length, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `<header>
<h1>hybrid-lab nightly trend</h1>
<div class="headline">
<span class="chip ${failing === 0 ? 'ok' : 'fail'}">${failing === 0 ? '✔ no cell failing now' : `✘ ${plural(failing, 'cell')} failing now`}</span>
<span class="chip ${flaky === 0 ? 'calm' : 'flaky'}">${plural(flaky, 'flaky cell')}</span>
<span class="chip none">${plural(runs, 'run')} · ${plural(report.series.length, 'preset')} · window: last ${report.window} runs per preset</span>
</div>
<div class="meta">generated ${h(shortTime(report.generatedAt))} UTC</div>
</header>`;
}

function runDot(run: RunSummary): string {
  const dot = `<span class="dot s-${run.status}" title="${h(runLabel(run))}"></span>`;
  const link = safeLink(run.link);
  return link === undefined ? dot : `<a href="${h(link)}">${dot}</a>`;
}

function presetCard(series: SeriesTrend[]): string {
  const rows = series.map((s) => {
    const last = s.runs.at(-1);
    return `<tr>
<td><a href="#preset-${h(s.preset)}"><b>${h(s.preset)}</b></a>${s.emulated ? ' <span class="tag emulated">EMULATED</span>' : ''}</td>
<td>${h(s.providers.join(', '))}</td>
<td>${s.runs.length} / ${s.totalRuns}</td>
<td>${last === undefined ? '–' : `${h(STATUS_WORD[last.status])}<span class="cellid">${h(shortTime(last.startedAt))} · ${h(last.runId)}</span>`}</td>
<td class="strip">${s.runs.map(runDot).join('')}</td>
<td>${s.failing.length === 0 ? '0' : `<b style="color:#cf222e">${s.failing.length}</b>`}</td>
<td>${s.flaky.length === 0 ? '0' : `<b style="color:#bc4c00">${s.flaky.length}</b>`}</td>
</tr>`;
  });
  return `<section class="card">
<h2>Runs per preset</h2>
<table class="presets">
<thead><tr><th>preset</th><th>provider</th><th>runs in window / stored</th><th>last run</th><th>runs, oldest → newest</th><th>failing now</th><th>flaky</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

function square(outcome: CellOutcome | undefined, title: string): string {
  const o = outcome ?? 'absent';
  return `<span class="sq o-${o}" title="${h(`${title}: ${OUTCOME_WORD[o]}`)}">${MARK[o]}</span>`;
}

function strip(cell: CellTrend, runs: RunSummary[]): string {
  return `<span class="strip">${cell.outcomes.map((o, i) => square(o, runs[i] === undefined ? '' : runLabel(runs[i]))).join('')}</span>`;
}

function rate(cell: CellTrend): string {
  if (cell.passRate === undefined) return '<span class="muted">–</span>';
  const width = Math.round(cell.passRate * 100);
  const tone = cell.passRate === 1 ? 'good' : cell.passRate >= 0.8 ? 'fair' : 'bad';
  return `<span class="ratebox"><span class="rate"><span class="r-${tone}" style="width:${width}%"></span></span>${percent(cell.passRate)} <span class="muted">(${cell.passes}/${cell.passes + cell.fails})</span></span>`;
}

function cellName(cell: CellTrend): string {
  return `${h(cell.title)}<span class="cellid">${h(cell.cell)}</span>`;
}

function since(f: FailingSince): string {
  const runs = `${f.runs} failed run${f.runs === 1 ? '' : 's'}`;
  return `<b>${f.sinceFirstRecorded ? 'at least since ' : ''}${h(shortTime(f.startedAt))}</b><span class="cellid">run ${h(f.runId)} · ${runs}</span>`;
}

function failingTable(s: SeriesTrend): string {
  if (s.failing.length === 0)
    return '<p class="none-msg">No cell is failing in the latest runs.</p>';
  const rows = s.failing.map(
    (c) => `<tr><td>${cellName(c)}${c.flaky ? ' <span class="tag flaky">flaky</span>' : ''}</td>
<td>${since(c.failingSince!)}</td>
<td>${rate(c)}</td><td>${strip(c, s.runs)}</td><td class="detail">${h(c.lastDetail ?? '')}</td></tr>`,
  );
  return `<table class="list fail"><thead><tr><th>cell</th><th>failing since</th><th>pass rate</th><th>runs</th><th>last failure</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function flakyTable(s: SeriesTrend): string {
  if (s.flaky.length === 0)
    return '<p class="none-msg">No cell both failed and later passed in the window.</p>';
  const rows = s.flaky.map(
    (c) =>
      `<tr><td>${cellName(c)}</td><td>${rate(c)}</td><td>${strip(c, s.runs)}</td><td class="detail">${h(c.lastDetail ?? '')}</td></tr>`,
  );
  return `<table class="list flaky"><thead><tr><th>cell</th><th>pass rate</th><th>runs</th><th>last failure</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function runHeader(run: RunSummary, index: number): string {
  const [date, time] = shortTime(run.startedAt).slice(5).split(' ');
  const text = `#${index + 1}<br>${h(date ?? '')}<br>${h(time ?? '')}${run.emulated ? '<span class="emu">EMU</span>' : ''}`;
  const link = safeLink(run.link);
  return `<th class="run s-${run.status}" title="${h(runLabel(run))}">${link === undefined ? text : `<a href="${h(link)}">${text}</a>`}</th>`;
}

function grid(s: SeriesTrend): string {
  const body: string[] = [];
  let row = '';
  for (const c of s.cells) {
    if (c.row !== row) {
      row = c.row;
      body.push(`<tr class="rowhead"><th colspan="${s.runs.length + 2}">${h(row)}</th></tr>`);
    }
    const cls = c.failingSince !== undefined ? 'is-failing' : c.flaky ? 'is-flaky' : '';
    const squares = c.outcomes
      .map((o, i) => `<td>${square(o, s.runs[i] === undefined ? '' : runLabel(s.runs[i]))}</td>`)
      .join('');
    body.push(
      `<tr class="${cls}"><th title="${h(c.cell)}">${h(c.title)}</th><td class="rate-cell">${rate(c)}</td>${squares}</tr>`,
    );
  }
  return `<table class="grid"><thead><tr><th></th><th>pass rate</th>${s.runs.map(runHeader).join('')}</tr></thead>
<tbody>${body.join('\n')}</tbody></table>`;
}

function seriesCard(s: SeriesTrend): string {
  return `<section class="card" id="preset-${h(s.preset)}">
<h2>${h(s.preset)}${s.emulated ? ' <span class="tag emulated">EMULATED</span>' : ''} <span class="muted">${h(s.providers.join(', '))} · ${s.runs.length} of ${s.totalRuns} runs</span></h2>
<h3 class="fail">Failing now (${s.failing.length})</h3>
${failingTable(s)}
<h3 class="flaky">Flaky (${s.flaky.length})</h3>
${flakyTable(s)}
<h3>Every cell, oldest run → newest</h3>
${grid(s)}
</section>`;
}

function footer(): string {
  const items = (['pass', 'fail', 'infra', 'expected', 'skipped', 'absent'] as const)
    .map((o) => `<span><span class="sq o-${o}">${MARK[o]}</span> ${h(OUTCOME_WORD[o])}</span>`)
    .join('');
  return `<footer><div class="legend">${items}</div>
Pass rate counts passes and failures only (an unexpected pass counts as a failure). Flaky: a failure in the window that a later pass contradicts. Failing since: the first run of the current streak of failures.
</footer>`;
}
