/**
 * perf.json (records close to what Kubernetes' perfdash reads: `version`, `dataItems` of `data`,
 * `unit` and `labels`, one per path and measure) and perf.html (the figures per OS pair).
 */
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { parseCellId } from '../../lab/contracts/cells.ts';
import { escapeHtml as h } from '../../lab/text/escape.ts';
import { EMULATED_BANNER, slowText } from './cell-text.ts';
import { MEASURES, figureText, flagged, perfRows } from './perf-table.ts';
import type { Report } from '../model/report.ts';

/** True when the run measured anything in perf mode. */
export function hasPerf(report: Report): boolean {
  return report.cells.some((c) => c.perf !== undefined || c.cell.startsWith('perf/'));
}

function dataOf(cell: CellResult): { data: Record<string, number>; unit: string } {
  const p = cell.perf!;
  if (p.mbps !== undefined) {
    const loss = p.attempts > 0 ? p.failed / p.attempts : 0;
    return {
      data: {
        Throughput: p.mbps,
        ...(p.measure === 'udp-stream' ? { Loss: Math.round(loss * 1000) / 1000 } : {}),
        ...(p.sent ? { Retransmits: p.retransmitted ?? 0, Segments: p.sent } : {}),
      },
      unit: 'Mbit/s',
    };
  }
  return {
    data: {
      Perc50: p.p50Ms ?? 0,
      Perc90: p.p90Ms ?? 0,
      Perc99: p.p99Ms ?? 0,
      RatePerSecond: p.ratePerS ?? 0,
      Failed: p.failed,
      ...(p.sent ? { Retransmits: p.retransmitted ?? 0, Segments: p.sent } : {}),
    },
    unit: 'ms',
  };
}

/** perf.json: one data item per path and measure that measured something. */
export function renderPerfJson(report: Report): string {
  const { run } = report;
  const dataItems = report.cells.flatMap((cell) => {
    const key = parseCellId(cell.cell);
    if (key?.kind !== 'perf' || cell.perf === undefined) return [];
    return [
      {
        ...dataOf(cell),
        labels: {
          Metric: key.measure,
          Network: key.network,
          OsPair: `${key.from}-to-${key.to}`,
          Placement: cell.placement || 'service',
          Source: cell.source.node,
          Target: cell.target.node,
          Via: cell.via,
          ...(cell.perf.backend === undefined ? {} : { Backend: cell.perf.backend }),
          Verdict: cell.verdict,
          ...(cell.flags?.slow === undefined ? {} : { Slow: slowText(cell.flags.slow) }),
          ...(cell.flags?.flaky === undefined
            ? {}
            : {
                Flaky: `${cell.flags.flaky.failed} of ${cell.flags.flaky.attempts} ${cell.flags.flaky.what}`,
              }),
          Cell: cell.cell,
        },
      },
    ];
  });
  const doc = {
    version: 'v1',
    lab: run.lab,
    runId: run.runId,
    provider: run.provider,
    emulated: run.emulated,
    ...(run.emulated ? { note: EMULATED_BANNER } : {}),
    startedAt: run.startedAt,
    ...(run.mesh === undefined ? {} : { mesh: run.mesh }),
    dataItems,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const CSS = `body{font:14px/1.4 "DejaVu Sans",sans-serif;margin:0;background:#f6f8fa;color:#1f2328}
.banner{padding:12px 24px;background:#6f42c1;color:#fff;font-weight:700;text-align:center}
header,section{padding:8px 24px}
table{border-collapse:collapse;background:#fff;margin:6px 0 18px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;font-size:13px}
td.flag{background:#cf222e;color:#fff}td.warn{background:#e3a008}td.skip{color:#57606a}
small{color:#57606a}`;

/** perf.html: per OS pair, a table of paths by measures; flagged figures red, with why. */
export function renderPerfHtml(report: Report): string {
  const { run } = report;
  const rows = perfRows(report.cells);
  const pairs = [...new Set(rows.map((r) => r.osPair))];
  const td = (cell: CellResult | undefined): string => {
    if (cell === undefined) return '<td class="skip">·</td>';
    if (cell.verdict === 'skipped')
      return `<td class="skip" title="${h(cell.reason ?? '')}">skipped</td>`;
    const why = [cell.flags?.slow ? slowText(cell.flags.slow) : '', cell.detail]
      .filter(Boolean)
      .join('\n');
    const cls = flagged(cell) ? (cell.verdict === 'fail' ? 'flag' : 'warn') : '';
    return `<td class="${cls}" title="${h(why)}">${h(figureText(cell.perf))}${cell.perf?.backend ? `<br><small>${h(cell.perf.backend)}</small>` : ''}</td>`;
  };
  const tables = pairs.map((pair) => {
    const body = rows
      .filter((r) => r.osPair === pair)
      .map(
        (r) =>
          `<tr><th>${h(r.network)}</th><th>${h(r.placement || 'via Service')}</th><th>${h(r.where)}</th>${MEASURES.map((m) => td(r.cells[m])).join('')}</tr>`,
      )
      .join('\n');
    return `<section><h2>${h(pair)}</h2><table><thead><tr><th>network</th><th>placement</th><th>path</th>${MEASURES.map((m) => `<th>${h(m)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></section>`;
  });
  const flaggedCount = report.cells.filter((c) => c.cell.startsWith('perf/') && flagged(c)).length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${h(`hybrid-lab perf — ${run.lab} ${run.runId}${run.emulated ? ' (EMULATED)' : ''}`)}</title><style>${CSS}</style></head>
<body>
${run.emulated ? `<div class="banner">⚠ ${h(EMULATED_BANNER)}</div>` : ''}
<header><h1>hybrid-lab perf — ${h(run.lab)}</h1>
<p>run ${h(run.runId)} · provider ${h(run.provider)}${run.emulated ? ' (emulated)' : ''} · ${rows.length} paths · ${flaggedCount} flagged measures${run.mesh ? ` · mesh ${h(run.mesh.mode)}${run.mesh.mode === 'ring' ? ` (${run.mesh.peers} peer(s), rotation ${run.mesh.rotation})` : ''}` : ''}</p>
<p><small>Red: slow (below the upper quartile of its peers by the budget's ratio, or below the host network's tolerance) or flaky (losses above the budget) — docs/performance.md. Hover a figure for its detail.</small></p></header>
${tables.join('\n')}
</body></html>
`;
}
