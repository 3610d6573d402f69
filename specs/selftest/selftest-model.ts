/** What a self-test run found: per fault, its detection and whether the lab was green after heal. */
import type { FaultImpact } from '../../lab/faults/fault-definition.ts';
import type { CellDetection, DetectionCounts } from './detection.ts';

export type FaultStatus =
  /** Failed in exactly the catalogue's cells, with its outcomes, and the lab was green after heal. */
  | 'exact'
  /** Missed cells, false alarms, wrong outcomes, or not green after heal. */
  | 'problems'
  /** No cell of this suite can see the fault in this lab (nothing must fail). */
  | 'not-exercised'
  /** The catalogue entry does not apply to this lab (backend, OS, provider). */
  | 'not-applicable'
  /** Applying, running the suite or healing failed. */
  | 'error'
  /** Skipped because an earlier heal failed and the lab is in an unknown state. */
  | 'not-run';

/** One suite run as the self-test saw it. */
export interface SuiteSummary {
  resultsDir: string;
  durationMs: number;
  exitCode: number;
  /** Cells that did not pass. */
  failing: string[];
  /** The longest single probe attempt among them (a failure must come within the probe timeout). */
  slowestFailingAttemptMs?: number;
  /** Why the run could not be judged cell by cell. */
  broken?: string;
}

/** A run that went through with no red cell. */
export const isGreen = (run: SuiteSummary): boolean =>
  run.failing.length === 0 && run.broken === undefined;

/**
 * Whether the fault's red cells passed again after its heal: `none-red` when it turned none red,
 * undefined when it was not judged or its heal failed.
 */
export function afterHeal(run: FaultRun): 'green' | 'not-green' | 'none-red' | undefined {
  if (run.detection === undefined || run.status === 'error') return undefined;
  if (run.healed !== undefined) return isGreen(run.healed) ? 'green' : 'not-green';
  return run.broken?.failing.length === 0 ? 'none-red' : undefined;
}

export interface FaultRun {
  fault: string;
  summary: string;
  nodes: string[];
  status: FaultStatus;
  /** Why not applicable, the error, or why not run. */
  reason?: string;
  impact?: FaultImpact;
  detection?: { cells: CellDetection[]; counts: DetectionCounts };
  /** The suite with the fault applied. */
  broken?: SuiteSummary;
  /** After `heal`, the cells the fault turned red (all, when its run broke): must pass. None when none was red. */
  healed?: SuiteSummary;
  durationMs: number;
}

export interface SelftestTotals {
  /** Faults that were applied and judged. */
  judged: number;
  exact: number;
  problems: number;
  errors: number;
  notExercised: number;
  notApplicable: number;
  notRun: number;
  mustFailCells: number;
  detectedCells: number;
  missedCells: number;
  falseAlarms: number;
  wrongOutcomes: number;
  /** Judged faults whose red cells passed again after their heal (or that turned none red). */
  healedGreen: number;
}

export interface SelftestReport {
  lab: string;
  provider: string;
  emulated: boolean;
  cni: string;
  startedAt: string;
  durationMs: number;
  baseline: SuiteSummary & { green: boolean };
  faults: FaultRun[];
  /** The whole suite after the last heal (absent when no fault ran): must be green. */
  final?: SuiteSummary & { green: boolean };
  totals: SelftestTotals;
  /** CI's share (`--slice`): its turn of `turns`, the changed faults, the runs left to others. */
  slice?: { turn: number; turns: number; changed: string[]; leftOut: string[] };
  /** Baseline and final run green, every judged fault exact (or not exercised). */
  ok: boolean;
}

export function selftestTotals(faults: readonly FaultRun[]): SelftestTotals {
  const count = (status: FaultRun['status']): number =>
    faults.filter((f) => f.status === status).length;
  const sum = (pick: (f: FaultRun) => number): number =>
    faults.reduce((acc, f) => acc + pick(f), 0);
  return {
    judged: faults.filter((f) => f.detection !== undefined).length,
    exact: count('exact'),
    problems: count('problems'),
    errors: count('error'),
    notExercised: count('not-exercised'),
    notApplicable: count('not-applicable'),
    notRun: count('not-run'),
    mustFailCells: sum((f) => f.detection?.counts.mustFail ?? 0),
    detectedCells: sum((f) => f.detection?.counts.detected ?? 0),
    missedCells: sum((f) => f.detection?.counts.missed ?? 0),
    falseAlarms: sum((f) => f.detection?.counts.falseAlarms ?? 0),
    wrongOutcomes: sum((f) => f.detection?.counts.wrongOutcome ?? 0),
    healedGreen: faults.filter((f) => ['green', 'none-red'].includes(afterHeal(f) ?? '')).length,
  };
}
