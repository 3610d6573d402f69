/**
 * `results.json`, the machine-readable result of a suite run: written by specs/report, read by
 * the nightly history (lab/history) and CI tools. This schema is the one definition of it.
 */
import { z } from 'zod';
import { PERF_MEASURES } from './cells.ts';
import { UpstreamRunSchema } from './upstream-results.ts';
import { VERDICTS, isoDate, type Verdict } from './verdicts.ts';

/** Named results a probe can come to; each cell expects one of them. */
export const Outcome = {
  /** Connected, answered, and the evidence matched (source IP, DNS answer). */
  Ok: 'ok',
  /** No answer within the probe timeout. */
  Timeout: 'timeout',
  /** Actively refused (TCP RST / ICMP port unreachable). */
  Refused: 'refused',
  /** No route to the target. */
  Unreachable: 'unreachable',
  /** The name does not resolve. */
  NxDomain: 'nxdomain',
  /** Connected, but the far end saw another source address than expected (SNAT where there should be none, or none where there should be). */
  WrongSourceIp: 'wrong-source-ip',
  /** Resolved or answered, but with the wrong address or body. */
  WrongAnswer: 'wrong-answer',
  /** Every request to a Service answered, but some of its endpoints never did (stale or missing rules). */
  MissingEndpoint: 'missing-endpoint',
  /** Answered as it must, but slower than the same run's own baseline by more than the budget allows. */
  Slow: 'slow',
  /** Answered, but more than a small fraction of its attempts, requests or datagrams were lost on the way. */
  Flaky: 'flaky',
  /** The probe itself failed (exec error, bad output). */
  Error: 'error',
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];
const OUTCOMES = Object.values(Outcome) as [Outcome, ...Outcome[]];

export { VERDICTS, isRed, isoDate, type Verdict } from './verdicts.ts';

export const EndpointSchema = z.object({
  os: z.enum(['linux', 'windows', 'external']),
  /** Node name, "outside" for the external host, "-" when there is none; a Service lists its backends' nodes comma-separated. */
  node: z.string(),
  /** Pod or service name when there is one. */
  name: z.string().optional(),
  /** Grid label: e.g. "linux pod", "windows service", "windows node". */
  label: z.string(),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export const CellMetaSchema = z.object({
  /** Row id, stable kebab-case: e.g. `pod-to-pod/windows-to-linux` (lab/contracts/cells.ts). Used as JUnit classname. */
  row: z.string().min(1),
  /** Cell id: row id plus placement, node(s) and via, e.g. `pod-to-pod/windows-to-linux/cross-node/win2/lin1/dns`. */
  cell: z.string().min(1),
  /** The mocha test title, e.g. `pod-to-pod windows-to-linux cross-node via dns`. */
  title: z.string(),
  source: EndpointSchema,
  target: EndpointSchema,
  /** ip | dns | cluster-ip | node-ip */
  via: z.string(),
  /** same-node | cross-node | "" when placement does not apply. */
  placement: z.string(),
  /** What the profile expects here. */
  expected: z.enum(OUTCOMES),
  /** Why the profile expects a failure, with an upstream link; or why the cell is skipped. */
  reason: z.string().optional(),
});
export type CellMeta = z.infer<typeof CellMetaSchema>;

/** How long a cell's answered requests took, as the probe measured them where it ran. */
export const CellTimingSchema = z.object({
  /** Requests timed: one per answered probe, one per answered request of a sweep. */
  samples: z.number().int().min(1),
  /** Whole request (lookup, connect, answer), milliseconds. */
  totalP50Ms: z.number().min(0),
  totalMaxMs: z.number().min(0),
  /** The TCP connect alone, from the SYN on; absent where the probe has none (UDP, ICMP, DNS). */
  connectP50Ms: z.number().min(0).optional(),
  connectMaxMs: z.number().min(0).optional(),
});
export type CellTiming = z.infer<typeof CellTimingSchema>;

/** A path slower than the run's own baseline (docs/performance.md: the latency budget). */
export const SlowFlagSchema = z.object({
  /** What was compared, e.g. `total-p50` (ms) or `tcp-stream` (Mbit/s). */
  measure: z.string(),
  unit: z.string(),
  value: z.number(),
  baseline: z.number(),
  /** value / baseline for times, baseline / value for rates: how many times worse. */
  ratio: z.number(),
  /** Where the baseline came from, e.g. `median of 11 pod-to-pod cross-node cells via ip`. */
  basis: z.string(),
});
export type SlowFlag = z.infer<typeof SlowFlagSchema>;

/** A path whose attempts (or a measure's transfers) failed more than a small fraction. */
export const FlakyFlagSchema = z.object({
  failed: z.number().int().min(0),
  attempts: z.number().int().min(1),
  /** failed / attempts, or a loss fraction the measure itself reports. */
  fraction: z.number().min(0).max(1),
  /** What failed: `attempts`, or a measure (`udp-stream loss`, `tcp retransmissions`). */
  what: z.string(),
});
export type FlakyFlag = z.infer<typeof FlakyFlagSchema>;

/** An attempt that failed before the cell's last one (a retry came after it). */
export const FailedAttemptSchema = z.object({
  outcome: z.enum(OUTCOMES),
  detail: z.string(),
  durationMs: z.number().min(0),
});
export type FailedAttempt = z.infer<typeof FailedAttemptSchema>;

/** What one perf measure found (lab/cluster/workload/perf-measures.mjs reports it so). */
export const PerfFiguresSchema = z.object({
  measure: z.enum(PERF_MEASURES),
  durationMs: z.number().min(0),
  /** rr, crr: requests answered, per second, and their latency percentiles (ms). */
  transactions: z.number().int().min(0).optional(),
  ratePerS: z.number().min(0).optional(),
  p50Ms: z.number().min(0).optional(),
  p90Ms: z.number().min(0).optional(),
  p99Ms: z.number().min(0).optional(),
  /** rr, crr: answered requests that took 200 ms or more (a retransmission's wait). */
  waited: z.number().int().min(0).optional(),
  /** Streams: megabits per second that arrived. */
  mbps: z.number().min(0).optional(),
  /** Requests that failed or datagrams lost, of those made or sent. */
  failed: z.number().int().min(0),
  attempts: z.number().int().min(0),
  /** TCP segments the client's network namespace retransmitted and sent meanwhile. */
  retransmitted: z.number().int().min(0).optional(),
  sent: z.number().int().min(0).optional(),
  /** The same at the server's end (where it says: netexec's /netstat). */
  serverRetransmitted: z.number().int().min(0).optional(),
  serverSent: z.number().int().min(0).optional(),
  /** Who answered: a Service's backend. */
  backend: z.string().optional(),
});
export type PerfFigures = z.infer<typeof PerfFiguresSchema>;

export const CellResultSchema = CellMetaSchema.extend({
  verdict: z.enum(VERDICTS),
  /** What the probe came to; absent when the cell was skipped or never ran. */
  actual: z.enum(OUTCOMES).optional(),
  /** The evidence: what the far end saw, what DNS answered, the probe's error. */
  detail: z.string(),
  durationMs: z.number().min(0),
  attempts: z.number().int().min(0),
  /**
   * Cells probed after a change until green (disruptions, a UDP backend switch, a Service made
   * again): how long after the change began the cell was green, against its bound.
   */
  recovery: z
    .object({
      /** The change: a disruption action (`node-reboot`) or a step (`udp-backend-switched`). */
      after: z.string().min(1),
      /** What it acted on: a node, `cluster`, or the OS of the Service it changed. */
      subject: z.string().min(1),
      /** From the start of the change to the end of the first passing probe; absent: never green. */
      timeToGreenMs: z.number().min(0).optional(),
      boundMs: z.number().int().min(0),
      /** Where the bound comes from: the profile's entry, or the default. */
      boundFrom: z.string(),
    })
    .optional(),
  /** The answered requests' timing (absent where the probe measured none). */
  timing: CellTimingSchema.optional(),
  /** Attempts that failed before the last one: a cell that passed on a retry is flaky, not green. */
  failedAttempts: z.array(FailedAttemptSchema).optional(),
  /** Perf cells: what the measure found (the best of its runs, when it was measured again). */
  perf: PerfFiguresSchema.optional(),
  /** How well the path works: slow against the run's baseline, flaky. A flag fails the cell only where the profile says (then `actual` says so too). */
  flags: z
    .object({ slow: SlowFlagSchema.optional(), flaky: FlakyFlagSchema.optional() })
    .optional(),
  /** Path evidence collected after the run's probes (failing cells, or all with EVIDENCE=all). */
  evidence: z
    .object({
      /** Where the packet died, or where it was last seen: path.txt's first line. */
      diedAt: z.string(),
      /** The evidence files, relative to the results folder; path.txt first. */
      files: z.array(z.string()),
    })
    .optional(),
});
export type CellResult = z.infer<typeof CellResultSchema>;

export const RunInfoSchema = z.object({
  runId: z.string().min(1),
  lab: z.string().min(1),
  provider: z.string(),
  /** True when the dataplane is emulated; every output must say so. */
  emulated: z.boolean(),
  kubernetesVersion: z.string(),
  cni: z.string(),
  /** The cluster DNS, e.g. `CoreDNS 1.7.0` or `hl-cluster-dns (a stand-in for CoreDNS)`. */
  clusterDns: z.string().optional(),
  /**
   * Whether Windows kube-proxy runs with direct server return (the spec's `windows.dsr`); absent
   * where the lab does not say (an existing cluster). Profiles may expect by it.
   */
  windowsDsr: z.boolean().optional(),
  /**
   * What pods' outbound traffic is expected to look like (OUTBOUND_NAT): NATed to the node
   * (`node`, absent: labs the harness made), keeping the pod address (`preserve`), or not
   * assumed, the source the far end saw recorded per cell (`report`).
   */
  outboundNat: z.enum(['node', 'preserve', 'report']).optional(),
  /** What else the lab says of itself, e.g. how Kubernetes was built, what the nodes are. */
  facts: z.record(z.string(), z.string()).optional(),
  /** OS image per node, e.g. { cp1: "Debian 12 (emulated)" }. */
  osBuilds: z.record(z.string(), z.string()),
  profile: z.string(),
  /** The profile's rule for unexpected passes; `warn` reports them without failing the run. */
  unexpectedPass: z.enum(['fail', 'warn']).optional(),
  startedAt: isoDate,
  finishedAt: isoDate.optional(),
  /** What ran: the conformance matrix, or the perf mode's measures. */
  suite: z.enum(['matrix', 'perf']).optional(),
  /**
   * Which cross-node pairs the cells covered: every one (`full`), or each node to the next
   * `peers` of each OS from `rotation` on (`ring`; the trend shows what the nights covered).
   */
  mesh: z
    .object({
      mode: z.enum(['full', 'ring']),
      peers: z.number().int().min(1),
      rotation: z.number().int().min(0),
    })
    .optional(),
});
export type RunInfo = z.infer<typeof RunInfoSchema>;

/** A mocha test or hook without cell metadata: still reported, outside the matrix. */
export const OtherResultSchema = z.object({
  /** JUnit classname: the parent suite's full title, or `infrastructure` for hooks. */
  classname: z.string(),
  title: z.string(),
  state: z.enum(['passed', 'failed', 'pending', 'hook-failed', 'not-run']),
  /** Error message, or the reason it did not run. */
  message: z.string().optional(),
  /** Error name (AssertionError, TypeError). */
  errorType: z.string().optional(),
  stack: z.string().optional(),
  durationMs: z.number().min(0),
});
export type OtherResult = z.infer<typeof OtherResultSchema>;

/** Cell counts by verdict; `notRun` is the part of `skipped` that an interruption or hook cut off. */
export const TotalsSchema = z.object({
  cells: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  expectedFailures: z.number().int().min(0),
  unexpectedPasses: z.number().int().min(0),
  skipped: z.number().int().min(0),
  infraErrors: z.number().int().min(0),
  notRun: z.number().int().min(0),
  /** Plain mocha tests and failed hooks outside the matrix. */
  otherTests: z.number().int().min(0),
  otherFailures: z.number().int().min(0),
  /** Cells flagged slow or flaky (whether or not the flag failed them). */
  slow: z.number().int().min(0).optional(),
  flaky: z.number().int().min(0).optional(),
});
export type Totals = z.infer<typeof TotalsSchema>;

/** Detail prefix of cells that never ran; totals count them as not run. */
export const NOT_RUN_PREFIX = 'not run: ';

/** Totals of these cells and other results, as results.json carries them. */
export function computeTotals(cells: readonly CellResult[], other: readonly OtherResult[]): Totals {
  const count = (v: Verdict): number => cells.filter((c) => c.verdict === v).length;
  return {
    cells: cells.length,
    passed: count('pass'),
    failed: count('fail'),
    expectedFailures: count('expected-failure'),
    unexpectedPasses: count('unexpected-pass'),
    skipped: count('skipped'),
    infraErrors: count('infra-error'),
    notRun: cells.filter((c) => c.verdict === 'skipped' && c.detail.startsWith(NOT_RUN_PREFIX))
      .length,
    otherTests: other.length,
    otherFailures: other.filter((o) => o.state === 'failed' || o.state === 'hook-failed').length,
    slow: cells.filter((c) => c.flags?.slow !== undefined).length,
    flaky: cells.filter((c) => c.flags?.flaky !== undefined).length,
  };
}

export const ResultsFileSchema = z.object({
  run: RunInfoSchema,
  cells: z.array(CellResultSchema),
  totals: TotalsSchema,
  other: z.array(OtherResultSchema),
  /** The signal that cut the run short, when one did. */
  interrupted: z.string().optional(),
  /** Upstream's e2e.test on the same lab, when `npm run e2e` ran after the matrix (docs/upstream-e2e.md). */
  upstream: UpstreamRunSchema.optional(),
});
export type ResultsFile = z.infer<typeof ResultsFileSchema>;
