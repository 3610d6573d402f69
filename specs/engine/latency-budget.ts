/**
 * The latency budget (docs/performance.md): a cell is slow when its requests take several times
 * what the same kind of path takes between the run's other node pairs. The baseline comes from the
 * same run, so a machine that is loaded as a whole raises it with every cell; a lone slow sample is
 * measured again before it counts (see CellRunner).
 */
import type { CellResult, CellTiming, SlowFlag } from '../../lab/contracts/results-file.ts';

export interface LatencyBudget {
  /** A cell is slow from this many times its baseline on (SLOW_RATIO, default 5)... */
  ratio: number;
  /** ...and this many milliseconds above it (SLOW_FLOOR_MS, default 100): sub-millisecond paths vary by multiples. */
  floorMs: number;
  /** Fewest other cells a baseline is taken from; with fewer, a cell is not judged. */
  minPeers: number;
}

export const DEFAULT_LATENCY_BUDGET: LatencyBudget = { ratio: 5, floorMs: 100, minPeers: 3 };

/** One request's timing as a probe reports it. */
export interface RequestTiming {
  ms?: number;
  connectMs?: number;
}

/** The nearest-rank quantile `q` (0..1) of `values`; undefined for none. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
}

/** p50/max of the requests' totals and connects; undefined when none was timed. */
export function timingOf(requests: readonly RequestTiming[]): CellTiming | undefined {
  const totals = requests.flatMap((r) => (r.ms === undefined ? [] : [r.ms]));
  const connects = requests.flatMap((r) => (r.connectMs === undefined ? [] : [r.connectMs]));
  const p50 = quantile(totals, 0.5);
  if (p50 === undefined) return undefined;
  const connectP50 = quantile(connects, 0.5);
  return {
    samples: totals.length,
    totalP50Ms: p50,
    totalMaxMs: Math.max(...totals),
    ...(connectP50 === undefined
      ? {}
      : { connectP50Ms: connectP50, connectMaxMs: Math.max(...connects) }),
  };
}

const kindOf = (cell: CellResult): string => cell.row.split('/')[0] ?? cell.row;

/** Cells of one kind of path: the row (kind and OS pair), its placement and via; or the kind alone. */
const GROUPINGS: { key: (c: CellResult) => string; says: (c: CellResult) => string }[] = [
  {
    key: (c) => `${c.row}|${c.placement}|${c.via}`,
    says: (c) => `${c.row}${c.placement ? ` ${c.placement}` : ''} cells via ${c.via}`,
  },
  {
    key: (c) => `${kindOf(c)}|${c.placement}|${c.via}`,
    says: (c) => `${kindOf(c)}${c.placement ? ` ${c.placement}` : ''} cells via ${c.via} (any OS)`,
  },
];

/**
 * The slow flag each passing, timed cell earns against the median of its group's other passing
 * cells (the narrowest group with `minPeers` others). Churn cells are not judged: their requests
 * race the endpoint changes they check.
 */
export function slowFlags(
  cells: readonly CellResult[],
  budget: LatencyBudget,
): Map<string, SlowFlag> {
  const judged = cells.filter(
    (c) => c.verdict === 'pass' && c.timing !== undefined && kindOf(c) !== 'churn',
  );
  const groups = GROUPINGS.map(({ key }) => {
    const byKey = new Map<string, CellResult[]>();
    for (const c of judged) byKey.set(key(c), [...(byKey.get(key(c)) ?? []), c]);
    return byKey;
  });
  const flags = new Map<string, SlowFlag>();
  for (const cell of judged) {
    for (const [i, grouping] of GROUPINGS.entries()) {
      const peers = (groups[i]!.get(grouping.key(cell)) ?? []).filter((c) => c.cell !== cell.cell);
      if (peers.length < budget.minPeers) continue;
      const baseline = quantile(
        peers.map((p) => p.timing!.totalP50Ms),
        0.5,
      )!;
      const value = cell.timing!.totalP50Ms;
      if (value > budget.ratio * baseline && value - baseline > budget.floorMs) {
        flags.set(cell.cell, {
          measure: 'total-p50',
          unit: 'ms',
          value,
          baseline,
          ratio: Math.round((value / Math.max(baseline, 0.1)) * 10) / 10,
          basis: `median of ${peers.length} ${grouping.says(cell)}`,
        });
      }
      break;
    }
  }
  return flags;
}
