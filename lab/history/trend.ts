/**
 * The trend over the history: per preset the last N runs, and per cell its outcomes in them,
 * its pass rate, whether it is flaky, and since when it has been failing.
 */
import {
  counted,
  outcomeOf,
  type CellOutcome,
  type RecordedCell,
  type RunRecord,
  type RunStatus,
} from './run-record.ts';

export const DEFAULT_WINDOW = 14;

export interface RunSummary {
  runId: string;
  startedAt: string;
  status: RunStatus;
  emulated: boolean;
  provider: string;
  profile: string;
  link?: string;
  /** Counted cells that passed and failed. */
  passed: number;
  failed: number;
}

/** Where a cell's current failing streak began. */
export interface FailingSince {
  runId: string;
  startedAt: string;
  /** Counted failures in the streak (over the whole history, not only the window). */
  runs: number;
  /** True when the streak goes back to the oldest run in the store: it may be older still. */
  sinceFirstRecorded: boolean;
}

export interface CellTrend {
  cell: string;
  row: string;
  title: string;
  /** One per run of the window, oldest first; undefined where the run did not have the cell. */
  outcomes: (CellOutcome | undefined)[];
  passes: number;
  fails: number;
  /** passes / (passes + fails) in the window; undefined when the cell never counted. */
  passRate: number | undefined;
  /** A failure in the window that a later pass contradicts: both outcomes, not one clean regression. */
  flaky: boolean;
  /** Set when the latest counted outcome in the window is a failure. */
  failingSince: FailingSince | undefined;
  /** Detail of the cell's latest failure in the window. */
  lastDetail: string | undefined;
  /** Its requests' p50 per run of the window (ms), oldest first; undefined where not timed. */
  p50Ms: (number | undefined)[];
  /** Runs of the window in which it was flagged slow or flaky (green or not). */
  flaggedRuns: number;
}

/** How much of the cross-node mesh the window's runs covered: ordered node pairs seen of all. */
export interface MeshCoverage {
  covered: number;
  total: number;
  /** Runs of the window on a ring (MESH=ring). */
  ringRuns: number;
}

export interface SeriesTrend {
  preset: string;
  providers: string[];
  /** True when any run in the window was emulated. */
  emulated: boolean;
  totalRuns: number;
  /** The window's runs, oldest first. */
  runs: RunSummary[];
  cells: CellTrend[];
  failing: CellTrend[];
  flaky: CellTrend[];
  /** Cells flagged slow or flaky in any run of the window. */
  flagged: CellTrend[];
  /** Set when a run of the window took a ring (MESH=ring): the pairs the nights covered. */
  mesh?: MeshCoverage;
}

export interface TrendReport {
  generatedAt: string;
  window: number;
  series: SeriesTrend[];
}

/** Builds the trend of every preset in `records` over the last `window` runs of each. */
export function computeTrend(
  records: readonly RunRecord[],
  window: number = DEFAULT_WINDOW,
  now: Date = new Date(),
): TrendReport {
  const byPreset = new Map<string, RunRecord[]>();
  for (const record of records) {
    byPreset.set(record.preset, [...(byPreset.get(record.preset) ?? []), record]);
  }
  const series = [...byPreset.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([preset, runs]) => seriesTrend(preset, chronological(runs), window));
  return { generatedAt: now.toISOString(), window, series };
}

/** Oldest first by start time; runs that started together keep the order they were added in. */
function chronological(runs: readonly RunRecord[]): RunRecord[] {
  return runs
    .map((run, index) => ({ run, index, at: Date.parse(run.startedAt) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((e) => e.run);
}

function seriesTrend(preset: string, all: RunRecord[], window: number): SeriesTrend {
  const runs = all.slice(-window);
  const cells = cellOrder(runs).map((meta) => cellTrend(meta, runs, all));
  const mesh = meshCoverage(runs);
  return {
    preset,
    providers: [...new Set(runs.map((r) => r.provider))],
    emulated: runs.some((r) => r.emulated),
    totalRuns: all.length,
    runs: runs.map(summary),
    cells,
    failing: cells.filter((c) => c.failingSince !== undefined),
    flaky: cells.filter((c) => c.flaky),
    flagged: cells.filter((c) => c.flaggedRuns > 0),
    ...(mesh === undefined ? {} : { mesh }),
  };
}

/**
 * The ordered node pairs the window's pod-to-pod cross-node cells covered, of every pair of the
 * nodes they name; only for windows with a ring run (a full mesh covers all every night).
 */
function meshCoverage(runs: readonly RunRecord[]): MeshCoverage | undefined {
  const ringRuns = runs.filter((r) => r.mesh?.mode === 'ring').length;
  if (ringRuns === 0) return undefined;
  const nodes = new Set<string>();
  const pairs = new Set<string>();
  for (const run of runs) {
    for (const cell of run.cells) {
      const m = /^pod-to-pod\/[a-z]+-to-[a-z]+\/cross-node\/([^/]+)\/([^/]+)\/ip$/.exec(cell.cell);
      if (m === null) continue;
      nodes.add(m[1]!).add(m[2]!);
      pairs.add(`${m[1]}>${m[2]}`);
    }
  }
  return { covered: pairs.size, total: nodes.size * (nodes.size - 1), ringRuns };
}

/** Cells in the newest run's (matrix) order, then cells only older runs had. */
function cellOrder(runs: readonly RunRecord[]): RecordedCell[] {
  const seen = new Map<string, RecordedCell>();
  for (const run of [...runs].reverse()) {
    for (const cell of run.cells) if (!seen.has(cell.cell)) seen.set(cell.cell, cell);
  }
  return [...seen.values()];
}

function summary(run: RunRecord): RunSummary {
  const outcomes = run.cells.map((c) => outcomeOf(c.verdict));
  return {
    runId: run.runId,
    startedAt: run.startedAt,
    status: run.status,
    emulated: run.emulated,
    provider: run.provider,
    profile: run.profile,
    ...(run.link === undefined ? {} : { link: run.link }),
    passed: outcomes.filter((o) => o === 'pass').length,
    failed: outcomes.filter((o) => o === 'fail').length,
  };
}

function entryOf(run: RunRecord, cell: string): RecordedCell | undefined {
  return run.cells.find((c) => c.cell === cell);
}

/** A run the lab never came up for has no cells: each cell shows it as "lab not ready". */
function outcomeIn(run: RunRecord, cell: string): CellOutcome | undefined {
  const entry = entryOf(run, cell);
  if (entry !== undefined) return outcomeOf(entry.verdict);
  return run.cells.length === 0 && run.status === 'infra' ? 'infra' : undefined;
}

function cellTrend(meta: RecordedCell, runs: RunRecord[], all: RunRecord[]): CellTrend {
  const outcomes = runs.map((run) => outcomeIn(run, meta.cell));
  const passes = outcomes.filter((o) => o === 'pass').length;
  const fails = outcomes.filter((o) => o === 'fail').length;
  const firstFail = outcomes.indexOf('fail');
  const flaky = firstFail >= 0 && outcomes.slice(firstFail + 1).includes('pass');
  const lastCounted = outcomes.filter(counted).at(-1);
  const lastDetail = runs
    .map((run) => entryOf(run, meta.cell))
    .filter((e) => e !== undefined && outcomeOf(e.verdict) === 'fail' && e.detail !== undefined)
    .at(-1)?.detail;
  return {
    cell: meta.cell,
    row: meta.row,
    title: meta.title,
    outcomes,
    passes,
    fails,
    passRate: passes + fails === 0 ? undefined : passes / (passes + fails),
    flaky,
    failingSince: lastCounted === 'fail' ? failingSince(meta.cell, all) : undefined,
    lastDetail,
    p50Ms: runs.map((run) => entryOf(run, meta.cell)?.p50Ms),
    flaggedRuns: runs.filter((run) => (entryOf(run, meta.cell)?.flags?.length ?? 0) > 0).length,
  };
}

/** Walks back from the newest run until a pass: the oldest failure reached started the streak. */
function failingSince(cell: string, all: RunRecord[]): FailingSince | undefined {
  let start: RunRecord | undefined;
  let runs = 0;
  let brokeOnPass = false;
  for (const run of [...all].reverse()) {
    const outcome = outcomeIn(run, cell);
    if (outcome === 'pass') {
      brokeOnPass = true;
      break;
    }
    if (outcome === 'fail') {
      start = run;
      runs += 1;
    }
  }
  if (start === undefined) return undefined;
  // No pass anywhere before it: the store began with this cell failing.
  return { runId: start.runId, startedAt: start.startedAt, runs, sinceFirstRecorded: !brokeOnPass };
}
