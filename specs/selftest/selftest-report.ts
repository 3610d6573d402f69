/** selftest.md (human) and selftest.json (machine): the detection matrix fault × cell and the totals. */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeSelector } from '../../lab/faults/cell-selector.ts';
import type { CellStatus } from './detection.ts';
import { afterHeal, type FaultRun, type SelftestReport } from './selftest-model.ts';

/** One character per cell status in the matrix. */
export const STATUS_MARK: Record<CellStatus, string> = {
  detected: '●',
  'wrong-outcome': '≠',
  missed: '✗',
  'false-alarm': '!',
  'may-failed': '◐',
  'may-passed': '○',
  ok: '·',
  'not-hosted': '–',
};

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const cellCode = (text: string): string => `\`${text.replace(/`/g, "'")}\``;
const tableText = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function headline(report: SelftestReport): string {
  const t = report.totals;
  if (!report.baseline.green) {
    return `**FAIL**: the lab was not green before any fault (${report.baseline.broken ?? report.baseline.failing.join(', ')}); no fault was judged.`;
  }
  const judged = t.exact + t.problems;
  const verdict = report.ok ? '**PASS**' : '**FAIL**';
  const unseen = report.faults.filter((f) => f.status === 'not-exercised').map((f) => f.fault);
  const skipped = report.faults.filter((f) => f.status === 'not-applicable').map((f) => f.fault);
  return [
    `${verdict}: ${t.exact} of ${judged} faults detected in exactly their cells ` +
      `(${t.detectedCells} of ${t.mustFailCells} must-fail cells), ${t.missedCells} missed, ` +
      `${t.falseAlarms} false alarms, ${t.wrongOutcomes} wrong outcomes; ` +
      `the cells a fault turned red passed again after ${t.healedGreen} of ${t.judged} heals.`,
    ...(report.final === undefined ? [] : [finalLine(report.final)]),
    ...(t.errors + t.notRun > 0
      ? [`${t.errors} faults could not be judged, ${t.notRun} not run.`]
      : []),
    ...(unseen.length > 0 ? [`No cell of this suite can see: ${unseen.join(', ')}.`] : []),
    ...(skipped.length > 0 ? [`Not applicable to this lab: ${skipped.join(', ')}.`] : []),
    `Wall time ${seconds(report.durationMs)}.`,
  ].join(' ');
}

function finalLine(final: NonNullable<SelftestReport['final']>): string {
  return final.green
    ? `The whole suite after the last heal: green (${seconds(final.durationMs)}).`
    : `The whole suite after the last heal: **NOT GREEN** (${final.broken ?? final.failing.join(', ')}).`;
}

const AFTER_HEAL = { green: 'green', 'not-green': 'NOT GREEN', 'none-red': 'none red' } as const;

function faultRow(run: FaultRun, index: number): string {
  const c = run.detection?.counts;
  const state = afterHeal(run);
  const healed = state === undefined ? '–' : AFTER_HEAL[state];
  const cells =
    c === undefined
      ? ['–', '–', '–', '–', '–', '–']
      : [
          c.mustFail,
          c.detected,
          c.missed,
          c.falseAlarms,
          c.wrongOutcome,
          `${c.mayFailed}/${c.mayFail}`,
        ].map(String);
  return `| F${index + 1} | ${run.fault} | ${run.nodes.join(', ') || 'lab'} | ${run.status} | ${cells.join(' | ')} | ${healed} | ${seconds(run.durationMs)} |`;
}

function matrix(report: SelftestReport): string[] {
  const judged = report.faults
    .map((f, i) => ({ f, i }))
    .filter(({ f }) => f.detection !== undefined);
  if (judged.length === 0) return [];
  const cells = [...new Set(judged.flatMap(({ f }) => f.detection!.cells.map((c) => c.cell)))];
  const legend = (Object.entries(STATUS_MARK) as [CellStatus, string][])
    .map(([s, m]) => `${m} ${s}`)
    .join(' · ');
  return [
    '## Detection matrix (fault × cell)',
    '',
    `Legend: ${legend}`,
    '',
    `| cell | ${judged.map(({ i }) => `F${i + 1}`).join(' | ')} |`,
    `|---|${judged.map(() => ':-:').join('|')}|`,
    ...cells.map((cell) => {
      const marks = judged.map(({ f }) => {
        const found = f.detection!.cells.find((c) => c.cell === cell);
        return found === undefined ? ' ' : STATUS_MARK[found.status];
      });
      return `| ${cellCode(cell)} | ${marks.join(' | ')} |`;
    }),
    '',
  ];
}

function faultDetails(run: FaultRun, index: number): string[] {
  const lines = [
    `### F${index + 1} ${run.fault}${run.nodes.length > 0 ? ` (${run.nodes.join(', ')})` : ''}: ${run.status}`,
    '',
    run.summary,
    '',
  ];
  if (run.reason !== undefined)
    lines.push(
      `- ${run.status === 'not-applicable' ? 'does not apply' : 'note'}: ${tableText(run.reason)}`,
    );
  for (const s of run.impact?.mustFail ?? [])
    lines.push(`- must fail: ${cellCode(describeSelector(s))}`);
  for (const s of run.impact?.mayFail ?? [])
    lines.push(`- may fail: ${cellCode(describeSelector(s))}`);
  if (run.impact?.outcomes !== undefined) lines.push(`- as: ${run.impact.outcomes.join(' | ')}`);
  const bad =
    run.detection?.cells.filter((c) =>
      ['missed', 'false-alarm', 'wrong-outcome'].includes(c.status),
    ) ?? [];
  for (const c of bad)
    lines.push(
      `- **${c.status}** ${cellCode(c.cell)}: ${c.actual ?? c.verdict}; ${tableText(c.detail)}`,
    );
  if (run.broken?.slowestFailingAttemptMs !== undefined)
    lines.push(`- slowest failing probe attempt: ${seconds(run.broken.slowestFailingAttemptMs)}`);
  if (run.broken !== undefined)
    lines.push(
      `- suite with the fault: ${seconds(run.broken.durationMs)}, results in ${cellCode(run.broken.resultsDir)}`,
    );
  if (run.healed !== undefined) {
    const state =
      run.healed.broken ??
      (run.healed.failing.length === 0 ? 'green' : `failing: ${run.healed.failing.join(', ')}`);
    const what = run.detection === undefined ? 'the suite' : 'its red cells';
    lines.push(`- ${what} after heal: ${state} (${seconds(run.healed.durationMs)})`);
  }
  lines.push('');
  return lines;
}

/** What CI's share left out, and why those runs are not missing (selftest-slice.ts). */
function sliceLines(slice: SelftestReport['slice']): string[] {
  if (slice === undefined) return [];
  return [
    `CI's share: turn ${slice.turn} of ${slice.turns} of the rotation, plus every run of the faults ` +
      `this change touched (${slice.changed.join(', ') || 'none'}). Left to the other turns and the ` +
      `nightly (${slice.leftOut.length}): ${slice.leftOut.join(', ') || 'none'}.`,
    '',
  ];
}

export function renderSelftestMarkdown(report: SelftestReport): string {
  const emulated = report.emulated ? ', EMULATED dataplane' : '';
  return [
    `# hybrid-lab self-test: lab ${report.lab} (${report.provider}${emulated}, ${report.cni})`,
    '',
    headline(report),
    '',
    `Started ${report.startedAt}. Baseline suite: ${report.baseline.green ? 'green' : 'NOT GREEN'} (${seconds(report.baseline.durationMs)}).`,
    '',
    ...sliceLines(report.slice),
    '"after heal": the cells the fault turned red (the whole suite when its run could not be judged), run again once it was healed.',
    '',
    '| # | fault | acts on | status | must fail | detected | missed | false alarms | wrong outcome | may fail (failed/all) | after heal | time |',
    '|---|---|---|---|--:|--:|--:|--:|--:|--:|---|--:|',
    ...report.faults.map(faultRow),
    '',
    ...matrix(report),
    '## Faults',
    '',
    ...report.faults.flatMap(faultDetails),
  ].join('\n');
}

export function renderSelftestJson(report: SelftestReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Writes selftest.md and selftest.json into `dir` (write, then rename). */
export function writeSelftest(
  report: SelftestReport,
  dir: string,
): { markdown: string; json: string } {
  mkdirSync(dir, { recursive: true });
  const files = { markdown: join(dir, 'selftest.md'), json: join(dir, 'selftest.json') };
  for (const [file, text] of [
    [files.markdown, renderSelftestMarkdown(report)],
    [files.json, renderSelftestJson(report)],
  ] as const) {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  }
  return files;
}
