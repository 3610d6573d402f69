/** Everything a suite run reads from its environment and flags, checked before anything runs. */
import { randomBytes } from 'node:crypto';
import {
  kubernetesSettings,
  type KubernetesSettings,
} from '../drivers/kubernetes/kubernetes-settings.ts';
import { positiveIntSetting, SettingError } from '../model/settings.ts';
import { loadProfile, type Profile } from './profile.ts';
import { DEFAULT_LATENCY_BUDGET, type LatencyBudget } from './latency-budget.ts';
import { DEFAULT_PERF_BUDGET, type PerfBudget } from './perf-budget.ts';
import { meshSettings, type Mesh } from '../matrix/mesh.ts';
import { DEFAULT_PERF, type PerfSettings } from '../matrix/perf-cells.ts';
import { selectionFromArgv, type Selection } from './selection.ts';
import { overTimeSettings, type OverTimeSettings } from './disruption/over-time-settings.ts';

/** Connect / probe timeout when PROBE_TIMEOUT_MS is not set. */
export const DEFAULT_PROBE_TIMEOUT_MS = 3000;

export interface SuiteSettings {
  profile: Profile;
  /** Probes in flight at once (CONCURRENCY, default 8; 1 with --serial). */
  concurrency: number;
  /** Connect / whole-probe timeout per attempt (PROBE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Extra attempts for cells expected to pass; expected failures never retry. */
  retries: number;
  /** How long deploying the workloads may take (DEPLOY_TIMEOUT_MS). */
  deployTimeoutMs: number;
  /** Which cells mocha will run (its --grep/--fgrep/--invert). */
  selection: Selection;
  /** Names the run's namespace and its results: `<yyyymmdd>-<6 hex>`. */
  runId: string;
  /** What the Kubernetes driver reads (image, echo, waits), checked here like the rest. */
  kubernetes: KubernetesSettings;
  /**
   * Which cells get path evidence (EVIDENCE: failed, all or off), and at most how many
   * (EVIDENCE_MAX_CELLS). `asked`: EVIDENCE was set; where the lab makes evidence opt-in (a
   * cluster the harness did not make: LabDriver.evidenceOptIn) it is collected only then.
   */
  evidence: { cells: EvidenceCells; maxCells: number; asked: boolean };
  /** Long-lived, stateful and disruption cells (specs/engine/disruption): off unless asked for. */
  overTime: OverTimeSettings;
  /** How well, not only whether: the latency budget and what slow and flaky cells do to the run. */
  budget: Budget;
  /** SUITE: the conformance matrix (default), or the perf mode's measures (`npm run perf`). */
  suite: SuiteKind;
  /** Which cross-node pairs the cells cover (MESH: full on the matrix, ring in perf mode). */
  mesh: Mesh;
  /** MESH was set: no default of the cluster's size changes it (meshForCluster). */
  meshAsked?: boolean;
  /** Perf mode: each measure's duration and the UDP stream's rate. */
  perf: PerfSettings;
}

export const SUITE_KINDS = ['matrix', 'perf'] as const;
export type SuiteKind = (typeof SUITE_KINDS)[number];

function suiteKind(env: NodeJS.ProcessEnv): SuiteKind {
  const value = env.SUITE === undefined || env.SUITE === '' ? 'matrix' : env.SUITE;
  if (!(SUITE_KINDS as readonly string[]).includes(value))
    throw new SettingError(`SUITE must be one of ${SUITE_KINDS.join(', ')}, got '${value}'`);
  return value as SuiteKind;
}

/** What a flag does to its cell: fails it, or leaves it passing with the flag shown. */
export const FLAG_POLICIES = ['fail', 'warn'] as const;
export type FlagPolicy = (typeof FLAG_POLICIES)[number];

export interface Budget extends LatencyBudget {
  /** SLOW: a slow cell fails (the strict profile's default) or warns. */
  slow: FlagPolicy;
  /** FLAKY: a cell that passed only on a retry fails, or warns (default). */
  flaky: FlagPolicy;
  /** More probes of a cell that looked slow before it counts (SLOW_CONFIRMATIONS, default 3). */
  confirmations: number;
  /** A passing cell is flaky when more than this fraction of its attempts failed. */
  flakyFraction: number;
  /** The perf mode's figures against each other and the host network. */
  perf: PerfBudget;
}

function policy(env: NodeJS.ProcessEnv, name: string, fallback: FlagPolicy): FlagPolicy {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!(FLAG_POLICIES as readonly string[]).includes(value))
    throw new SettingError(`${name} must be one of ${FLAG_POLICIES.join(', ')}, got '${value}'`);
  return value as FlagPolicy;
}

/** A number above `min` from the environment, else `fallback`. */
function numberSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || !(value > min))
    throw new SettingError(`${name} must be a number above ${min}, got "${text}"`, {
      hint: `unset ${name} for the default (${fallback})`,
    });
  return value;
}

/** The budget the run's profile and SLOW, SLOW_RATIO, SLOW_FLOOR_MS, SLOW_CONFIRMATIONS, FLAKY say. */
export function budgetSettings(
  env: NodeJS.ProcessEnv,
  profile: Pick<Profile, 'slow'>,
  suite: SuiteKind = 'matrix',
): Budget {
  return {
    ...DEFAULT_LATENCY_BUDGET,
    ratio: numberSetting(env, 'SLOW_RATIO', DEFAULT_LATENCY_BUDGET.ratio, 1),
    floorMs: numberSetting(env, 'SLOW_FLOOR_MS', DEFAULT_LATENCY_BUDGET.floorMs),
    slow: policy(env, 'SLOW', profile.slow ?? 'fail'),
    // In perf mode a lossy path is a finding, not a retry's noise.
    flaky: policy(env, 'FLAKY', suite === 'perf' ? 'fail' : 'warn'),
    confirmations:
      env.SLOW_CONFIRMATIONS === '0' ? 0 : positiveIntSetting(env, 'SLOW_CONFIRMATIONS', 3),
    flakyFraction: 0.05,
    perf: {
      ...DEFAULT_PERF_BUDGET,
      ratio: numberSetting(env, 'PERF_RATIO', DEFAULT_PERF_BUDGET.ratio, 1),
      tolerance: numberSetting(env, 'PERF_TOLERANCE', DEFAULT_PERF_BUDGET.tolerance),
      loss: numberSetting(env, 'PERF_LOSS', DEFAULT_PERF_BUDGET.loss),
    },
  };
}

export const EVIDENCE_CELLS = ['failed', 'all', 'off'] as const;
export type EvidenceCells = (typeof EVIDENCE_CELLS)[number];

function evidenceCells(env: NodeJS.ProcessEnv): EvidenceCells {
  const value = env.EVIDENCE === undefined || env.EVIDENCE === '' ? 'failed' : env.EVIDENCE;
  if (!(EVIDENCE_CELLS as readonly string[]).includes(value))
    throw new SettingError(`EVIDENCE must be one of ${EVIDENCE_CELLS.join(', ')}, got '${value}'`);
  return value as EvidenceCells;
}

/** The run's settings; throws SettingError naming the setting and what it allows. */
export function suiteSettings(env: NodeJS.ProcessEnv, argv: readonly string[]): SuiteSettings {
  let profile: Profile;
  try {
    profile = loadProfile(env.PROFILE === undefined || env.PROFILE === '' ? 'strict' : env.PROFILE);
  } catch (error) {
    throw new SettingError(`PROFILE: ${(error as Error).message}`, { cause: error });
  }
  let selection: Selection;
  try {
    selection = selectionFromArgv(argv);
  } catch (error) {
    throw new SettingError(`--grep: ${(error as Error).message}`, { cause: error });
  }
  const serial = argv.includes('--serial');
  const suite = suiteKind(env);
  return {
    profile,
    // Perf measures run one at a time: two at once would share the machine and the links.
    concurrency: serial || suite === 'perf' ? 1 : positiveIntSetting(env, 'CONCURRENCY', 8),
    timeoutMs: positiveIntSetting(env, 'PROBE_TIMEOUT_MS', DEFAULT_PROBE_TIMEOUT_MS),
    retries: 2,
    deployTimeoutMs: positiveIntSetting(env, 'DEPLOY_TIMEOUT_MS', 300_000),
    selection,
    runId: `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`,
    kubernetes: kubernetesSettings(env),
    evidence: {
      cells: evidenceCells(env),
      maxCells: positiveIntSetting(env, 'EVIDENCE_MAX_CELLS', 10),
      asked: env.EVIDENCE !== undefined && env.EVIDENCE !== '',
    },
    overTime: overTimeSettings(env, selection),
    budget: budgetSettings(env, profile, suite),
    suite,
    mesh: meshSettings(env, suite === 'perf' ? 'ring' : 'full', new Date()),
    meshAsked: env.MESH !== undefined && env.MESH !== '',
    perf: {
      durationMs: positiveIntSetting(env, 'PERF_DURATION_MS', DEFAULT_PERF.durationMs),
      udpMbps: positiveIntSetting(env, 'PERF_UDP_MBPS', DEFAULT_PERF.udpMbps),
    },
  };
}
