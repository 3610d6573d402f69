/**
 * The disruption phase: each action in turn, then the node's cells probed again until green or
 * their bound, with time-to-green per cell; connections held through the action must answer on
 * the same connection afterwards. The next action waits until the disrupted part is back.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Os } from '../../../lab/contracts/cells.ts';
import type { Disruption } from '../../../lab/contracts/disruptions.ts';
import { Outcome } from '../../../lab/contracts/results-file.ts';
import type { SuiteNode } from '../../model/lab-driver.ts';
import { withDeadline } from '../deadline.ts';
import { errorResult, judgedResult, messageOf, skippedResult } from './cell-results.ts';
import type { DisruptionCell, HeldThroughCell, ReprobeCell } from './disruption-cells.ts';
import { checkHeld, openHeld, type Opened } from './held-checks.ts';
import { NO_OVER_TIME, timedProbe, type OverTimeContext } from './over-time-context.ts';
import { recoveryBound } from './recovery-bounds.ts';
import { untilGreen } from './until-green.ts';

const POLL_MS = 1000;
/** Where an emulated lab's bound comes from. */
export const BACK_ON_RETURN =
  'emulated: the data plane is back when the action returns; probed as any cell, with its retries';
/** How often the run's workloads are read again while cells are probed (pods a reboot brought back). */
const REFRESH_MS = 2000;

const same = (a: Disruption, b: Disruption) => a.action === b.action && a.subject === b.subject;

/** Runs `sequence` over `cells` (each with its disruption); every cell's result is done(). */
export async function runDisruptionPhase(
  ctx: OverTimeContext,
  sequence: readonly Disruption[],
  cells: readonly DisruptionCell[],
  nodes: readonly SuiteNode[],
): Promise<void> {
  const disruptor = ctx.overTime?.disruptor;
  const osOf = (node: string): Os | undefined => nodes.find((n) => n.name === node)?.os;
  for (const disruption of sequence) {
    const of = cells.filter((c) => same(c.disruption, disruption));
    if (of.length === 0) continue;
    const why =
      disruptor === undefined
        ? NO_OVER_TIME
        : disruptor.unsupported(disruption.action, disruption.subject, ctx.settings.overTime.named);
    if (why !== undefined) {
      for (const c of of) ctx.done(skippedResult(c.meta, why));
      continue;
    }
    await disruptOnce(ctx, disruption, of, osOf);
  }
  if (disruptor !== undefined) await disruptor.restore();
}

async function disruptOnce(
  ctx: OverTimeContext,
  disruption: Disruption,
  cells: readonly DisruptionCell[],
  osOf: (node: string) => Os | undefined,
): Promise<void> {
  const disruptor = ctx.overTime!.disruptor!;
  const { action, subject } = disruption;
  const reprobes = cells.filter((c): c is ReprobeCell => c.kind === 'reprobe');
  const held = await openThrough(
    ctx,
    cells.filter((c): c is HeldThroughCell => c.kind === 'held'),
  );
  ctx.say(
    `disruption: ${action} on ${subject} (${reprobes.length} cells, ${held.length} held connections)`,
  );
  const since = performance.now();
  let made;
  try {
    made = await disruptor.disrupt(action, subject);
  } catch (error) {
    const why = `${action} on ${subject} could not be made: ${messageOf(error)}`;
    for (const c of reprobes)
      ctx.done(errorResult(c.meta, ctx.expectation(c.original.meta.cell), why));
    for (const h of held)
      ctx.done(errorResult(h.cell.meta, ctx.expectation(h.cell.original.meta.cell), why));
    await Promise.all(held.map((h) => ctx.overTime!.held.close(h.opened.id)));
    return;
  }
  const probing = { on: true };
  const refresher = (async () => {
    while (probing.on) {
      await ctx.refresh().catch(() => undefined);
      await delay(REFRESH_MS);
    }
  })();
  const greens: number[] = [];
  await Promise.all(
    reprobes.map(async (cell) => {
      const expectation = ctx.expectation(cell.original.meta.cell);
      const os = osOf(subject) ?? (cell.meta.source.os === 'windows' ? 'windows' : 'linux');
      const bound = disruptor.backOnReturn
        ? { boundMs: 0, from: BACK_ON_RETURN }
        : recoveryBound(ctx.settings.profile, action, os);
      const expectsOk = expectation.expected === Outcome.Ok;
      const probe = cell.original.probe!;
      const result = await untilGreen(() => timedProbe(ctx, probe), {
        since,
        boundMs: expectsOk ? bound.boundMs : 0,
        minAttempts: expectsOk ? 1 + ctx.settings.retries : 1,
        pollMs: POLL_MS,
      });
      if (result.timeToGreenMs !== undefined) greens.push(result.timeToGreenMs);
      const recovery = {
        after: action,
        subject,
        ...(result.timeToGreenMs === undefined ? {} : { timeToGreenMs: result.timeToGreenMs }),
        boundMs: bound.boundMs,
        boundFrom: bound.from,
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
  probing.on = false;
  await refresher;
  for (const h of held) {
    const asked = performance.now();
    const judged = await checkHeld(ctx.overTime!.held, h.opened, ctx.settings.timeoutMs);
    ctx.done(
      judgedResult(h.cell.meta, ctx.expectation(h.cell.original.meta.cell), judged, {
        durationMs: performance.now() - asked,
        attempts: 1,
      }),
    );
    await ctx.overTime!.held.close(h.opened.id);
  }
  const slowest = greens.length === 0 ? '-' : `${Math.max(...greens)} ms`;
  ctx.say(
    `disruption: ${action} on ${subject}: ${greens.length}/${reprobes.length} cells green, slowest ${slowest}`,
  );
  const settleMs = recoveryBound(ctx.settings.profile, action, osOf(subject) ?? 'linux').boundMs;
  const settled = await withDeadline(
    made.settled.then(() => true),
    settleMs,
    () => false,
  ).catch(() => false);
  if (!settled)
    ctx.say(
      `disruption: ${action} on ${subject}: the disrupted part was not back within ${settleMs} ms`,
    );
}

/** Opens the held-through cells' connections; the ones that cannot be are done() at once. */
async function openThrough(
  ctx: OverTimeContext,
  cells: readonly HeldThroughCell[],
): Promise<{ cell: HeldThroughCell; opened: Opened }[]> {
  const opened = await Promise.all(
    cells.map(async (cell) => {
      if (cell.skip !== undefined) {
        ctx.done(skippedResult(cell.meta, cell.skip));
        return;
      }
      const expectation = ctx.expectation(cell.original.meta.cell);
      const got = await openHeld(
        ctx.overTime!.held,
        ctx.workloads(),
        cell.original,
        ctx.settings.timeoutMs,
      ).catch((error: unknown) => ({
        failed: { outcome: Outcome.Error, detail: messageOf(error) },
      }));
      if ('skip' in got) {
        ctx.done(skippedResult(cell.meta, got.skip));
        return;
      }
      if ('failed' in got) {
        ctx.done(
          judgedResult(
            cell.meta,
            expectation,
            { outcome: got.failed.outcome, detail: `before the disruption: ${got.failed.detail}` },
            { durationMs: 0, attempts: 1 },
          ),
        );
        return;
      }
      return { cell, opened: got };
    }),
  );
  return opened.filter((o): o is { cell: HeldThroughCell; opened: Opened } => o !== undefined);
}
