/** Everything a suite run reads from its environment and flags, checked before anything runs. */
import { randomBytes } from 'node:crypto';
import {
  kubernetesSettings,
  type KubernetesSettings,
} from '../drivers/kubernetes/kubernetes-settings.ts';
import { positiveIntSetting, SettingError } from '../model/settings.ts';
import { loadProfile, type Profile } from './profile.ts';
import { selectionFromArgv, type Selection } from './selection.ts';
import { overTimeSettings, type OverTimeSettings } from '../disruption/over-time-settings.ts';

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
  /** Which cells get path evidence (EVIDENCE: failed, all or off), and at most how many (EVIDENCE_MAX_CELLS). */
  evidence: { cells: EvidenceCells; maxCells: number };
  /** Long-lived, stateful and disruption cells (specs/disruption): off unless asked for. */
  overTime: OverTimeSettings;
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
  return {
    profile,
    concurrency: serial ? 1 : positiveIntSetting(env, 'CONCURRENCY', 8),
    timeoutMs: positiveIntSetting(env, 'PROBE_TIMEOUT_MS', DEFAULT_PROBE_TIMEOUT_MS),
    retries: 2,
    deployTimeoutMs: positiveIntSetting(env, 'DEPLOY_TIMEOUT_MS', 300_000),
    selection,
    runId: `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`,
    kubernetes: kubernetesSettings(env),
    evidence: {
      cells: evidenceCells(env),
      maxCells: positiveIntSetting(env, 'EVIDENCE_MAX_CELLS', 10),
    },
    overTime: overTimeSettings(env, selection),
  };
}
