/**
 * How well the perf mode's paths do (docs/performance.md), judged within one run: a path is slow
 * when its measure is several times below what the better paths of its kind reach in the same run
 * (the upper quartile of its peers), or, on the pod network, below a set fraction of the host
 * network on the same node pair (the tolerance, as k8s-netperf checks it); it is flaky when more
 * than a small fraction of its requests, datagrams or TCP segments were lost.
 */
import type {
  CellResult,
  FlakyFlag,
  PerfFigures,
  SlowFlag,
} from '../../lab/contracts/results-file.ts';
import { parseCellId } from '../../lab/contracts/cells.ts';
import { quantile } from './latency-budget.ts';

export interface PerfBudget {
  /** Slow below the baseline divided by this (PERF_RATIO, default 10). */
  ratio: number;
  /** Pod-network throughput must reach this fraction of the host network's (PERF_TOLERANCE, default 0.1). */
  tolerance: number;
  /** Flaky above this fraction lost (PERF_LOSS, default 0.05). */
  loss: number;
  /** Fewest peers a baseline is taken from. */
  minPeers: number;
}

export const DEFAULT_PERF_BUDGET: PerfBudget = {
  ratio: 10,
  tolerance: 0.1,
  loss: 0.05,
  minPeers: 2,
};

/**
 * The measures judged slow against their peers: the streams. Request rates are reported with
 * their latency percentiles, but on one machine they are bound by its CPU more than by the path,
 * so only their losses (failed requests, retransmissions) flag them.
 */
const RATE_JUDGED: readonly string[] = ['tcp-stream', 'tcp-stream-reverse'];

/** The figure a measure is judged by: how much it carried per second. */
export function rateOf(figures: PerfFigures): { value: number; unit: string } {
  return figures.mbps !== undefined
    ? { value: figures.mbps, unit: 'Mbit/s' }
    : { value: figures.ratePerS ?? 0, unit: 'requests/s' };
}

interface Judged {
  cell: CellResult;
  perf: PerfFigures;
  network: string;
  from: string;
  to: string;
}

function judgedOf(cells: readonly CellResult[]): Judged[] {
  return cells.flatMap((cell) => {
    const key = parseCellId(cell.cell);
    if (key?.kind !== 'perf' || cell.perf === undefined || cell.verdict !== 'pass') return [];
    return [{ cell, perf: cell.perf, network: key.network, from: key.from, to: key.to }];
  });
}

const GROUPINGS: { key: (j: Judged) => string; says: (j: Judged) => string }[] = [
  {
    key: (j) => `${j.perf.measure}|${j.network}|${j.cell.placement}|${j.from}|${j.to}`,
    says: (j) =>
      `${j.perf.measure} ${j.network} ${j.from}-to-${j.to} ${j.cell.placement || 'service'} paths`,
  },
  {
    key: (j) => `${j.perf.measure}|${j.network}|${j.cell.placement}`,
    says: (j) => `${j.perf.measure} ${j.network} ${j.cell.placement || 'service'} paths (any OS)`,
  },
];

const round = (n: number) => Math.round(n * 10) / 10;

function slowAgainstPeers(
  j: Judged,
  all: readonly Judged[],
  budget: PerfBudget,
): SlowFlag | undefined {
  if (!RATE_JUDGED.includes(j.perf.measure)) return undefined;
  for (const grouping of GROUPINGS) {
    const peers = all.filter((o) => o !== j && grouping.key(o) === grouping.key(j));
    if (peers.length < budget.minPeers) continue;
    const baseline = quantile(
      peers.map((p) => rateOf(p.perf).value),
      0.75,
    )!;
    const { value, unit } = rateOf(j.perf);
    if (value >= baseline / budget.ratio) return undefined;
    return {
      measure: j.perf.measure,
      unit,
      value,
      baseline,
      ratio: round(baseline / Math.max(value, 0.1)),
      basis: `upper quartile of ${peers.length} ${grouping.says(j)}`,
    };
  }
  return undefined;
}

/** Pod-network streams against the host network between the same two nodes. */
function belowTolerance(
  j: Judged,
  all: readonly Judged[],
  budget: PerfBudget,
): SlowFlag | undefined {
  if (j.network !== 'pod' || j.perf.mbps === undefined || j.cell.placement !== 'cross-node')
    return undefined;
  const host = all.find(
    (o) =>
      o.network === 'host' &&
      o.perf.measure === j.perf.measure &&
      o.cell.source.node === j.cell.source.node &&
      o.cell.target.node === j.cell.target.node,
  );
  const hostMbps = host?.perf.mbps;
  if (hostMbps === undefined || j.perf.mbps >= budget.tolerance * hostMbps) return undefined;
  return {
    measure: j.perf.measure,
    unit: 'Mbit/s',
    value: j.perf.mbps,
    baseline: hostMbps,
    ratio: round(hostMbps / Math.max(j.perf.mbps, 0.1)),
    basis: `host network on the same node pair; the pod network must reach ${budget.tolerance} of it`,
  };
}

/** Lost requests or datagrams, or retransmitted segments, above the budget's fraction. */
export function lossOf(perf: PerfFigures, budget: PerfBudget): FlakyFlag | undefined {
  const candidates: FlakyFlag[] = [];
  if (perf.attempts > 0 && perf.failed > 0) {
    const what = perf.measure === 'udp-stream' ? 'udp datagrams' : 'requests';
    candidates.push({
      failed: perf.failed,
      attempts: perf.attempts,
      fraction: perf.failed / perf.attempts,
      what,
    });
  }
  // A request that took 200 ms or more lost a segment and waited for its retransmission.
  if (perf.waited !== undefined && perf.waited > 0 && perf.attempts > 0) {
    const lost = perf.failed + perf.waited;
    candidates.push({
      failed: lost,
      attempts: perf.attempts,
      fraction: lost / perf.attempts,
      what: 'requests failed or waited for a retransmission (200 ms or more)',
    });
  }
  // A handful of segments says nothing; a stream sends thousands.
  if (perf.sent !== undefined && perf.sent >= 50 && (perf.retransmitted ?? 0) > 0) {
    const failed = perf.retransmitted ?? 0;
    candidates.push({
      failed,
      attempts: perf.sent,
      fraction: failed / perf.sent,
      what: 'tcp segments retransmitted',
    });
  }
  if (
    perf.serverSent !== undefined &&
    perf.serverSent >= 50 &&
    (perf.serverRetransmitted ?? 0) > 0
  ) {
    const failed = perf.serverRetransmitted ?? 0;
    candidates.push({
      failed,
      attempts: perf.serverSent,
      fraction: failed / perf.serverSent,
      what: 'tcp segments the server retransmitted',
    });
  }
  const worst = candidates.sort((a, b) => b.fraction - a.fraction)[0];
  if (worst === undefined || worst.fraction <= budget.loss) return undefined;
  return { ...worst, fraction: Math.round(worst.fraction * 1000) / 1000 };
}

/** The flags each perf cell of the run earns. */
export function perfFlags(
  cells: readonly CellResult[],
  budget: PerfBudget,
): Map<string, { slow?: SlowFlag; flaky?: FlakyFlag }> {
  const all = judgedOf(cells);
  const flags = new Map<string, { slow?: SlowFlag; flaky?: FlakyFlag }>();
  for (const j of all) {
    const slow = slowAgainstPeers(j, all, budget) ?? belowTolerance(j, all, budget);
    const flaky = lossOf(j.perf, budget);
    if (slow !== undefined || flaky !== undefined)
      flags.set(j.cell.cell, { ...(slow ? { slow } : {}), ...(flaky ? { flaky } : {}) });
  }
  return flags;
}

/**
 * Of two runs of one measure, the better: the higher rate, and the lower loss. The loss figures
 * (failed, waited, attempts, segments) come from one run together: mixed, a run's waits over the
 * other's attempts could count more lost than were made.
 */
export function better(a: PerfFigures, b: PerfFigures): PerfFigures {
  const loss = (f: PerfFigures) =>
    (f.attempts > 0 ? (f.failed + (f.waited ?? 0)) / f.attempts : 0) +
    (f.sent ? (f.retransmitted ?? 0) / f.sent : 0) +
    (f.serverSent ? (f.serverRetransmitted ?? 0) / f.serverSent : 0);
  const faster = rateOf(b).value > rateOf(a).value ? b : a;
  const lossless = loss(b) < loss(a) ? b : a;
  if (faster === lossless) return faster;
  // The faster run's rate and latency, the other's loss figures (a key its run lacks, absent).
  const part = (f: PerfFigures, loss: boolean) =>
    Object.entries(f as Record<string, unknown>).filter(
      ([k, v]) => v !== undefined && LOSS_FIGURES.includes(k) === loss,
    );
  return Object.fromEntries([...part(faster, false), ...part(lossless, true)]) as PerfFigures;
}

/** The figures of PerfFigures that say what a run lost. */
const LOSS_FIGURES: readonly string[] = [
  'failed',
  'attempts',
  'waited',
  'sent',
  'retransmitted',
  'serverSent',
  'serverRetransmitted',
];
