/** What every part of the over-time runner shares: the driver, the settings, the run's workloads. */
import type { CellResult } from '../../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../../model/cell-plan.ts';
import { sendProbeTwice, type LabDriver, type Workloads } from '../../model/lab-driver.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { OverTimeDriver } from '../../model/over-time-driver.ts';
import { judgeReply } from '../judge.ts';
import type { Expectation, Profile } from '../profile.ts';
import type { Slots } from '../slots.ts';
import type { OverTimeSettings } from './over-time-settings.ts';
import { Outcome } from '../../../lab/contracts/results-file.ts';
import type { Judged } from './until-green.ts';

export interface OverTimeRunSettings {
  profile: Profile;
  timeoutMs: number;
  retries: number;
  overTime: OverTimeSettings;
}

export interface OverTimeContext {
  readonly driver: LabDriver;
  /** Absent: the driver offers none of it, and the cells are skipped saying so. */
  readonly overTime: OverTimeDriver | undefined;
  readonly settings: OverTimeRunSettings;
  /** Probes in flight at once, shared with nothing else of the over-time runner. */
  readonly slots: Slots;
  /** The run's workloads as last read (refresh() reads them again after a disruption). */
  workloads(): Workloads;
  refresh(): Promise<Workloads>;
  /** The profile's expectation for a cell id. */
  expectation(cell: string): Expectation;
  /** A cell's result is known. */
  done(result: CellResult): void;
  /** A line of progress on the console. */
  say(line: string): void;
}

/** Why a cell is skipped on a driver without over-time support. */
export const NO_OVER_TIME =
  'this lab driver cannot hold connections, change Services step by step or disrupt nodes';

/** probeOnce in a slot: the judged outcome and the probe's own time (not the wait for the slot). */
export function timedProbe(
  ctx: OverTimeContext,
  spec: (w: Workloads) => ProbeSpec,
): Promise<{ judged: Judged; ms: number }> {
  return ctx.slots.run(async () => {
    const started = performance.now();
    const judged = await probeOnce(ctx, spec);
    return { judged, ms: performance.now() - started };
  });
}

/** One probe of `spec` with the current workloads, judged; a driver that throws is an Error outcome. */
export async function probeOnce(
  ctx: OverTimeContext,
  spec: (w: Workloads) => ProbeSpec,
): Promise<Judged> {
  try {
    const workloads = ctx.workloads();
    const built = spec(workloads);
    const timeoutMs = built.timeoutMs ?? ctx.settings.timeoutMs;
    // As the matrix probes it: twice with a pause where the cell says so (affinity's timeout).
    const reply = await sendProbeTwice(ctx.driver, workloads, built, timeoutMs, (ms) => delay(ms));
    const judged = judgeReply(reply, built.check);
    return { outcome: judged.outcome, detail: `${built.from}: ${judged.detail}` };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { outcome: Outcome.Error, detail: `the probe failed: ${e.stack ?? e.message}` };
  }
}
