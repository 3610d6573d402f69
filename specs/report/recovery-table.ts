/**
 * Time to green, per change and what it acted on (a disruption on a node, the UDP backend swap,
 * a Service made again): how many of its cells came back, how fast, against which bound. The
 * summary and matrix.html show it; results.json has each cell's figure.
 */
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { escapeHtml as h, escapeMarkdown as md } from '../../lab/text/escape.ts';

export interface RecoveryRow {
  after: string;
  subject: string;
  cells: number;
  /** Cells that were green within the bound. */
  green: number;
  /** Median and slowest time to green of the green cells; undefined when none was. */
  p50Ms?: number;
  maxMs?: number;
  boundMs: number;
  boundFrom: string;
}

/** One line for a cell's recovery, e.g. `green 1200 ms after node-reboot on lin1 (bound 60000 ms: …)`. */
export function recoveryLine(cell: CellResult): string | undefined {
  const r = cell.recovery;
  if (r === undefined) return undefined;
  const green = r.timeToGreenMs === undefined ? 'never green' : `green ${r.timeToGreenMs} ms`;
  return `${green} after ${r.after} on ${r.subject} (bound ${r.boundMs} ms: ${r.boundFrom})`;
}

/** The rows, in the order their changes were made. */
export function recoveryRows(cells: readonly CellResult[]): RecoveryRow[] {
  const rows = new Map<string, { row: RecoveryRow; times: number[] }>();
  for (const cell of cells) {
    const r = cell.recovery;
    if (r === undefined || cell.verdict === 'skipped') continue;
    const key = `${r.after}\n${r.subject}`;
    let entry = rows.get(key);
    if (entry === undefined) {
      const row = {
        after: r.after,
        subject: r.subject,
        cells: 0,
        green: 0,
        boundMs: r.boundMs,
        boundFrom: r.boundFrom,
      };
      entry = { row, times: [] };
      rows.set(key, entry);
    }
    entry.row.cells++;
    entry.row.boundMs = Math.max(entry.row.boundMs, r.boundMs);
    if (r.timeToGreenMs !== undefined && cell.verdict === 'pass') {
      entry.row.green++;
      entry.times.push(r.timeToGreenMs);
    }
  }
  return [...rows.values()].map(({ row, times }) => {
    const sorted = [...times].sort((a, b) => a - b);
    return sorted.length === 0
      ? row
      : { ...row, p50Ms: sorted[Math.floor((sorted.length - 1) / 2)]!, maxMs: sorted.at(-1)! };
  });
}

const ms = (value: number | undefined): string => (value === undefined ? '–' : `${value} ms`);

/** The table as Markdown (nothing when the run had no such cells). */
export function recoveryMarkdown(cells: readonly CellResult[], emulated: boolean): string[] {
  const rows = recoveryRows(cells);
  if (rows.length === 0) return [];
  return [
    `## Time to green${emulated ? ' (EMULATED)' : ''}`,
    '',
    'From the start of each change to the end of the first passing probe of each cell.',
    '',
    '| after | on | green / cells | p50 | slowest | bound | bound from |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${md(r.after)} | ${md(r.subject)} | ${r.green}/${r.cells} | ${ms(r.p50Ms)} | ${ms(r.maxMs)} | ${r.boundMs} ms | ${md(r.boundFrom)} |`,
    ),
    '',
  ];
}

/** The table as an HTML card (nothing when the run had no such cells). */
export function recoveryHtml(cells: readonly CellResult[], emulated: boolean): string {
  const rows = recoveryRows(cells);
  if (rows.length === 0) return '';
  const body = rows
    .map(
      (r) =>
        `<tr class="${r.green === r.cells ? 'st-pass' : 'st-fail'}"><td>${h(r.after)}</td><td>${h(r.subject)}</td><td>${r.green}/${r.cells}</td><td>${ms(r.p50Ms)}</td><td>${ms(r.maxMs)}</td><td>${r.boundMs} ms</td><td>${h(r.boundFrom)}</td></tr>`,
    )
    .join('\n');
  return `<section class="card"><h2>Time to green${emulated ? ' <span class="tag st-skipped">EMULATED</span>' : ''}</h2>
<p>From the start of each change to the end of the first passing probe of each cell.</p>
<table class="recovery"><thead><tr><th>after</th><th>on</th><th>green / cells</th><th>p50</th><th>slowest</th><th>bound</th><th>bound from</th></tr></thead>
<tbody>${body}</tbody></table></section>`;
}
