/**
 * matrix.html's latency heat maps: the node-by-node grids again, each position coloured by how
 * long its cells' requests took (the largest p50 there) against the grid's own median, so a slow
 * node is a hot row or column as a broken one is a red one.
 */
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { escapeHtml as h } from '../../lab/text/escape.ts';
import { slowText } from './cell-text.ts';
import { gridKey, type Grid } from './matrix-grid.ts';

/** The largest p50 of the timed cells at a position; undefined when none was timed. */
function positionMs(cells: readonly CellResult[]): number | undefined {
  const timed = cells.flatMap((c) => (c.timing === undefined ? [] : [c.timing.totalP50Ms]));
  return timed.length === 0 ? undefined : Math.max(...timed);
}

/** Green at the grid's median or below, through yellow, to red at 10× it and beyond. */
export function heatColour(ms: number, medianMs: number): string {
  const times = ms / Math.max(medianMs, 0.1);
  const t = Math.min(1, Math.max(0, Math.log10(Math.max(times, 1))));
  const hue = Math.round(120 * (1 - t));
  return `hsl(${hue}, 70%, ${t > 0.6 ? 45 : 55}%)`;
}

/** One heat map card per node grid that has timed cells. */
export function latencyCards(grids: readonly Grid[]): string {
  const cards = grids.flatMap((grid) => {
    const values = [...grid.positions.values()].flatMap((p) => {
      const ms = positionMs(p.cells);
      return ms === undefined ? [] : [ms];
    });
    if (values.length === 0) return [];
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const head = grid.targets.map((t) => `<th scope="col">${h(t)}</th>`).join('');
    const rows = grid.sources.map((source) => {
      const tds = grid.targets.map((target) => {
        const position = grid.positions.get(gridKey(source, target));
        const ms = position === undefined ? undefined : positionMs(position.cells);
        if (position === undefined || ms === undefined) return '<td class="pos empty">·</td>';
        const flags = position.cells.flatMap((c) =>
          c.flags?.slow ? [slowText(c.flags.slow)] : [],
        );
        const title = [
          ...position.cells.map(
            (c) =>
              `${c.title}: p50 ${c.timing?.totalP50Ms ?? '–'} ms, max ${c.timing?.totalMaxMs ?? '–'} ms`,
          ),
          ...flags,
        ].join('\n');
        return `<td class="pos heat" style="background:${heatColour(ms, median)}" title="${h(title)}"><div class="big">${ms}</div><div class="mix">ms p50${flags.length > 0 ? ' · slow' : ''}</div></td>`;
      });
      return `<tr><th scope="row">${h(source)}</th>${tds.join('')}</tr>`;
    });
    return [
      `<section class="card"><h2>${h(grid.title.replace(/ by node$/, ''))} latency</h2><small>median ${median} ms; red: 10× it or more</small>
<table class="grid"><thead><tr><th class="corner"><div class="to">target →</div><div class="from">source ↓</div></th>${head}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`,
    ];
  });
  if (cards.length === 0) return '';
  return `<h2 class="view">Latency by node <small>each position: the largest p50 of its cells' requests; colour against the grid's median</small></h2>
${cards.join('\n')}`;
}
