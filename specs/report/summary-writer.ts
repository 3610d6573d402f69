/** Renders the run as GitHub step-summary Markdown: headline, banners, one grid per via, problems. */
import { runFacts } from './run-facts.ts';
import type { CellResult, Verdict } from '../../lab/contracts/results-file.ts';
import { escapeMarkdown as md, linkifyMarkdown, truncate } from '../../lab/text/escape.ts';
import { EMULATED_BANNER, outcomeLine, slowText, unexpectedPassMessage } from './cell-text.ts';
import { MEASURES, figureText, flagged, perfRows } from './perf-table.ts';
import {
  BY_NODE,
  buildGrids,
  gridKey,
  verdictCounts,
  type Grid,
  type GridCell,
} from './matrix-grid.ts';
import { runStatus, type Report } from '../model/report.ts';
import type { Totals } from '../../lab/contracts/results-file.ts';
import { recoveryMarkdown } from './recovery-table.ts';
import { upstreamHasProblems } from '../../lab/contracts/upstream-results.ts';
import { upstreamBanner, upstreamSection } from './upstream-summary.ts';

/** Grid symbol per verdict. */
export const VERDICT_SYMBOL: Record<Verdict, string> = {
  pass: '✅',
  fail: '❌',
  'unexpected-pass': '❗',
  'expected-failure': '⚠️',
  skipped: '➖',
  'infra-error': '🚧',
};

const DETAIL_MAX = 400;

/** Render the report as Markdown for `$GITHUB_STEP_SUMMARY`. */
export function renderSummary(report: Report): string {
  const { run, totals } = report;
  const out: string[] = [];
  const upstreamRed = report.upstream !== undefined && upstreamHasProblems(report.upstream);
  const icon = upstreamRed ? '❌' : { problems: '❌', empty: '⚠️', ok: '✅' }[runStatus(totals)];
  const emulated = run.emulated ? ' (EMULATED)' : '';
  out.push(`## ${icon} hybrid-lab conformance${emulated}: ${md(run.lab)}`, '');
  if (run.emulated) out.push(`> ⚠️ **${EMULATED_BANNER}.** Provider: ${md(run.provider)}.`, '');
  if (report.interrupted) {
    out.push(
      `> 🛑 **INTERRUPTED by ${md(report.interrupted)}** — ${totals.notRun} cells not run.`,
      '',
    );
  }
  if (totals.cells === 0)
    out.push('> ⚠️ **No matrix cell ran** — check the lab and the `--grep` filter.', '');
  out.push(countsLine(totals), '');
  out.push(...upstreamBanner(report));
  out.push(...runInfo(report), '');
  for (const grid of buildGrids(report.cells)) out.push(...gridTable(grid));
  const byNode = buildGrids(report.cells, BY_NODE);
  if (byNode.length > 0) {
    out.push(
      '## Node by node',
      '',
      'Rows: source node · columns: target node. A broken node is a red row or column.',
      '',
    );
    for (const grid of byNode) out.push(...gridTable(grid));
  }
  out.push(
    `Legend: ✅ pass · ❌ fail · ❗ unexpected pass (update the profile) · ⚠️ expected failure · ➖ skipped; counts when a position mixes results.`,
    '',
  );
  out.push(...recoveryMarkdown(report.cells, run.emulated));
  out.push(...perfSection(report), ...timingSection(report));
  out.push(...problems(report));
  out.push(...upstreamSection(report));
  return `${out.join('\n').trimEnd()}\n`;
}

/** Perf mode: per OS pair, paths by measures; a flagged figure is marked ❌ (fails) or ⚠️ (warns). */
function perfSection(report: Report): string[] {
  const rows = perfRows(report.cells);
  if (rows.length === 0) return [];
  const out = [
    '## Perf',
    '',
    'Figures per path and measure (docs/performance.md); ❌ flagged and failed, ⚠️ flagged.',
    '',
  ];
  for (const pair of [...new Set(rows.map((r) => r.osPair))]) {
    out.push(
      `### ${md(pair)}`,
      '',
      `| network | placement | path | ${MEASURES.join(' | ')} |`,
      `|---|---|---|${MEASURES.map(() => '---').join('|')}|`,
    );
    for (const r of rows.filter((x) => x.osPair === pair)) {
      const cells = MEASURES.map((m) => {
        const cell = r.cells[m];
        if (cell === undefined) return ' ';
        if (cell.verdict === 'skipped') return 'skipped';
        const mark = flagged(cell) ? (cell.verdict === 'fail' ? '❌ ' : '⚠️ ') : '';
        return `${mark}${md(figureText(cell.perf))}`;
      });
      out.push(
        `| ${md(r.network)} | ${md(r.placement || 'via Service')} | ${md(r.where)} | ${cells.join(' | ')} |`,
      );
    }
    out.push('');
  }
  return out;
}

/** How long each kind of path took (p50 and max over its cells), and the cells flagged slow or flaky. */
function timingSection(report: Report): string[] {
  const timed = report.cells.filter((c) => c.timing !== undefined && !c.cell.startsWith('perf/'));
  if (timed.length === 0) return [];
  const byRow = new Map<string, CellResult[]>();
  for (const c of timed) byRow.set(c.row, [...(byRow.get(c.row) ?? []), c]);
  const out = [
    '## Timings',
    '',
    'Per row: the median and the largest of its cells’ request p50 and max (ms), as the probes measured them.',
    '',
    '| row | cells | p50 (median of cells) | max |',
    '|---|---:|---:|---:|',
  ];
  for (const [row, cells] of byRow) {
    const p50s = cells.map((c) => c.timing!.totalP50Ms).sort((a, b) => a - b);
    const max = Math.max(...cells.map((c) => c.timing!.totalMaxMs));
    out.push(
      `| ${md(row)} | ${cells.length} | ${p50s[Math.floor((p50s.length - 1) / 2)]} | ${max} |`,
    );
  }
  out.push('');
  const flaggedCells = report.cells.filter(
    (c) => c.flags !== undefined && !c.cell.startsWith('perf/'),
  );
  if (flaggedCells.length > 0) {
    out.push(`### Slow or flaky (${flaggedCells.length})`, '');
    for (const c of flaggedCells) {
      const why = [
        c.flags?.slow === undefined ? '' : slowText(c.flags.slow),
        c.flags?.flaky === undefined
          ? ''
          : `flaky: ${c.flags.flaky.failed} of ${c.flags.flaky.attempts} ${c.flags.flaky.what} failed`,
      ].filter(Boolean);
      out.push(`- **${md(c.title)}** (${c.verdict}): ${md(why.join('; '))}`);
    }
    out.push('');
  }
  return out;
}

/** The headline counts, e.g. `**40 passed** · **2 failed** · …`. */
export function countsLine(t: Totals): string {
  const parts = [
    `**${t.passed} passed**`,
    `**${t.failed} failed**`,
    plural(t.expectedFailures, 'expected failure'),
    plural(t.unexpectedPasses, 'unexpected pass', 'unexpected passes'),
    `${t.skipped} skipped`,
    plural(t.infraErrors, 'infra error'),
  ];
  const other =
    t.otherTests > 0
      ? ` — plus ${plural(t.otherTests, 'other test')}, ${t.otherFailures} failed`
      : '';
  return `${parts.join(' · ')} — ${plural(t.cells, 'cell')}${other}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function runInfo(report: Report): string[] {
  const { run } = report;
  const rows: [string, string][] = [
    ['run id', run.runId],
    ['lab', run.lab],
    ['provider', `${run.provider}${run.emulated ? ' (emulated)' : ''}`],
    ['kubernetes', run.kubernetesVersion],
    ['cni', run.cni],
    ...runFacts(run).map((f) => [f.label, f.value] as [string, string]),
    ...Object.entries(run.facts ?? {}),
    ['profile', run.profile],
    ['started', run.startedAt],
  ];
  if (run.finishedAt) rows.push(['finished', run.finishedAt]);
  for (const [node, build] of Object.entries(run.osBuilds)) rows.push([`os ${node}`, build]);
  return ['| run | |', '|---|---|', ...rows.map(([k, v]) => `| ${md(k)} | ${md(v)} |`)];
}

/** One grid as a Markdown table under its heading. */
function gridTable(grid: Grid): string[] {
  const out = [`### ${md(grid.title)}`, ''];
  out.push(`| source ↓ / target → | ${grid.targets.map(md).join(' | ')} |`);
  out.push(`|---|${grid.targets.map(() => ':---:').join('|')}|`);
  for (const source of grid.sources) {
    const row = grid.targets.map((target) =>
      gridSymbol(grid.positions.get(gridKey(source, target))),
    );
    out.push(`| **${md(source)}** | ${row.join(' | ')} |`);
  }
  out.push('');
  return out;
}

function gridSymbol(position: GridCell | undefined): string {
  if (!position) return ' ';
  const counts = verdictCounts(position);
  const only = counts.length === 1 ? counts[0] : undefined;
  if (only && only[1] === 1) return VERDICT_SYMBOL[only[0]];
  return counts.map(([v, n]) => `${VERDICT_SYMBOL[v]} ${n}`).join(' ');
}

function problems(report: Report): string[] {
  const out: string[] = [];
  const section = (title: string, cells: CellResult[], line: (c: CellResult) => string): void => {
    if (cells.length === 0) return;
    out.push(`### ${title} (${cells.length})`, '', ...cells.map((c) => `- ${line(c)}`), '');
  };
  const by = (v: Verdict): CellResult[] => report.cells.filter((c) => c.verdict === v);
  const detail = (c: CellResult): string =>
    c.detail ? ` — ${md(truncate(c.detail, DETAIL_MAX))}` : '';
  section('Infrastructure errors', by('infra-error'), (c) => `**${md(c.title)}**${detail(c)}`);
  const evidence = (c: CellResult): string =>
    c.evidence === undefined
      ? ''
      : `<br>evidence: ${md(c.evidence.diedAt)} ([path](${c.evidence.files[0] ?? ''}))`;
  section(
    'Failures',
    by('fail'),
    (c) => `**${md(c.title)}**: ${md(outcomeLine(c))}${detail(c)}${evidence(c)}`,
  );
  section(
    'Unexpected passes',
    by('unexpected-pass'),
    (c) => `**${md(c.title)}**: ${md(unexpectedPassMessage(c))}`,
  );
  const failedOther = report.other.filter((o) => o.state === 'failed' || o.state === 'hook-failed');
  if (failedOther.length > 0) {
    out.push(`### Other failed tests (${failedOther.length})`, '');
    for (const o of failedOther) {
      out.push(
        `- **${md(`${o.classname} ${o.title}`)}** — ${md(truncate(o.message ?? '', DETAIL_MAX))}`,
      );
    }
    out.push('');
  }
  section(
    'Expected failures',
    by('expected-failure'),
    (c) => `${md(c.title)}: ${linkifyMarkdown(c.reason ?? c.expected)}`,
  );
  section(
    'Skipped',
    by('skipped'),
    (c) => `${md(c.title)}: ${linkifyMarkdown(c.reason ?? c.detail)}`,
  );
  return out;
}
