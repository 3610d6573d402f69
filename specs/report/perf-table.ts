/**
 * The perf mode's cells as rows of figures, shared by perf.json, perf.html and summary.md: one
 * row per path (network, placement, nodes), one column per measure.
 */
import { PERF_MEASURES, parseCellId, type PerfMeasure } from '../../lab/contracts/cells.ts';
import type { CellResult, PerfFigures } from '../../lab/contracts/results-file.ts';

export interface PerfPathRow {
  /** e.g. `linux-to-windows`. */
  osPair: string;
  network: string;
  placement: string;
  /** e.g. `lin1-to-win1`, `lin1` (same node), `lin1 → linux service`. */
  where: string;
  cells: Partial<Record<PerfMeasure, CellResult>>;
}

/** A measure's headline figure, e.g. `412/s p99 9.1 ms` or `1834.2 Mbit/s`. */
export function figureText(perf: PerfFigures | undefined): string {
  if (perf === undefined) return '–';
  if (perf.mbps !== undefined) {
    const loss =
      perf.measure === 'udp-stream' && perf.failed > 0
        ? `, ${perf.failed}/${perf.attempts} lost`
        : '';
    return `${perf.mbps} Mbit/s${loss}`;
  }
  return `${perf.ratePerS ?? 0}/s p50 ${perf.p50Ms ?? '?'} p99 ${perf.p99Ms ?? '?'} ms`;
}

/** The perf cells grouped into path rows, in run order. */
export function perfRows(cells: readonly CellResult[]): PerfPathRow[] {
  const rows = new Map<string, PerfPathRow>();
  for (const cell of cells) {
    const key = parseCellId(cell.cell);
    if (key?.kind !== 'perf') continue;
    const osPair = `${key.from}-to-${key.to}`;
    const where =
      key.network === 'service'
        ? `${key.node ?? '-'} → ${key.to} service`
        : key.placement === 'same-node'
          ? (key.node ?? '-')
          : `${key.node ?? '-'}-to-${key.peer ?? '-'}`;
    const id = `${osPair}|${key.network}|${key.placement ?? ''}|${where}`;
    const row = rows.get(id) ?? {
      osPair,
      network: key.network,
      placement: key.placement ?? '',
      where,
      cells: {},
    };
    row.cells[key.measure] = cell;
    rows.set(id, row);
  }
  return [...rows.values()];
}

export const MEASURES: readonly PerfMeasure[] = PERF_MEASURES;

/** Whether a perf cell was flagged (slow or flaky), whatever the flag did to its verdict. */
export function flagged(cell: CellResult | undefined): boolean {
  return cell !== undefined && (cell.flags !== undefined || cell.verdict === 'fail');
}
