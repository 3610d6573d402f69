/**
 * Two Services on one backend: one deleted (the other's cells must keep every endpoint
 * answering), then made again with the same name (its cells must answer again within the bound).
 */
import { TWIN_STEPS, type Os } from '../../../lab/contracts/cells.ts';
import type { OverTimeWorkloads } from '../../model/over-time-driver.ts';
import { errorResult, judgedResult, messageOf } from './cell-results.ts';
import { timedProbe, type OverTimeContext } from './over-time-context.ts';
import type { TwinCell } from './over-time-cells.ts';
import { settleSource } from './udp-swap.ts';
import { untilGreen } from './until-green.ts';

const POLL_MS = 1000;

/** Makes `os`'s twin steps in order and probes each step's cells after it; every result is done(). */
export async function runTwinSteps(
  ctx: OverTimeContext,
  os: Os,
  cells: readonly TwinCell[],
): Promise<void> {
  const overTime = ctx.overTime!;
  const boundMs = overTime.settleMs;
  for (const step of TWIN_STEPS) {
    const of = cells.filter((c) => c.step === step);
    const since = performance.now();
    let deployed: OverTimeWorkloads;
    try {
      deployed = await overTime.step(os, step);
    } catch (error) {
      for (const c of cells.filter((c) => TWIN_STEPS.indexOf(c.step) >= TWIN_STEPS.indexOf(step)))
        ctx.done(
          errorResult(
            c.meta,
            ctx.expectation(c.meta.cell),
            `twin step ${step} on ${os} failed: ${messageOf(error)}`,
          ),
        );
      return;
    }
    await Promise.all(
      of.map(async (cell) => {
        const expectation = ctx.expectation(cell.meta.cell);
        const probe = cell.probe!;
        const result = await untilGreen(
          () => timedProbe(ctx, (w) => probe(w, deployed)),
          expectation.expected === 'ok'
            ? { since, boundMs, minAttempts: 1 + ctx.settings.retries, pollMs: POLL_MS }
            : { since, boundMs: 0, minAttempts: 1, pollMs: POLL_MS },
        );
        const recovery = {
          after: step,
          subject: os,
          ...(result.timeToGreenMs === undefined ? {} : { timeToGreenMs: result.timeToGreenMs }),
          boundMs,
          boundFrom: settleSource(boundMs),
        };
        ctx.done(
          judgedResult(cell.meta, expectation, result.last, {
            durationMs: result.probeMs,
            attempts: result.attempts,
            recovery,
          }),
        );
      }),
    );
  }
}
