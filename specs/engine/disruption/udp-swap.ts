/**
 * Stateful UDP (upstream's test/e2e/network/conntrack.go, per OS pair): sockets of one source
 * port each send to the UDP Service of an OS, by ClusterIP or a NodePort, every second; its one
 * backend is swapped (a second one up, then the first deleted); the same sockets' datagrams must
 * reach the new backend within the bound: kube-proxy deletes the stale conntrack entry that still
 * points at the deleted one.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Os } from '../../../lab/contracts/cells.ts';
import { Outcome } from '../../../lab/contracts/results-file.ts';
import type { OverTimeWorkloads } from '../../model/over-time-driver.ts';
import { judgeReply } from '../judge.ts';
import { errorResult, judgedResult, messageOf, skippedResult } from './cell-results.ts';
import type { OverTimeContext } from './over-time-context.ts';
import type { UdpStateCell } from './over-time-cells.ts';
import type { Judged } from './until-green.ts';

/** How often each socket sends: often enough that its conntrack entry never idles out (30 s). */
const SEND_EVERY_MS = 1000;
/** How long the first backend has to answer before the swap (its pod just got Ready). */
const FIRST_ANSWER_MS = 20_000;

/** Where a settle bound comes from, for the results. */
export function settleSource(settleMs: number): string {
  return settleMs === 0
    ? 'emulated: every node is programmed when the change returns (probed as any cell: with its retries)'
    : `CHURN_SETTLE_MS (${settleMs / 1000} s): kube-proxy's full resync period`;
}

interface Socket {
  cell: UdpStateCell;
  id: string;
}

/** Runs the swap on `os`'s UDP Service with the sockets of `cells`; every cell's result is done(). */
export async function runUdpSwap(
  ctx: OverTimeContext,
  os: Os,
  cells: readonly UdpStateCell[],
  deployed: OverTimeWorkloads,
): Promise<void> {
  const overTime = ctx.overTime!;
  const { held } = overTime;
  const { timeoutMs, retries } = ctx.settings;
  const expectation = (c: UdpStateCell) => ctx.expectation(c.meta.cell);
  const backends = deployed.udpState.find((u) => u.os === os);
  if (backends === undefined) {
    for (const c of cells)
      ctx.done(errorResult(c.meta, expectation(c), `no UDP Service of ${os} was deployed`));
    return;
  }
  const answer = async (id: string): Promise<{ judged: Judged; by?: string }> => {
    const reply = await held.ask(id, 'hostname', timeoutMs);
    if (reply.result !== 'ok') return { judged: judgeReply(reply, { kind: 'responds' }) };
    const by = (reply.body ?? '').trim();
    return by === backends.second.name
      ? { judged: { outcome: Outcome.Ok, detail: `${backends.second.name} answered` }, by }
      : {
          judged: {
            outcome: Outcome.WrongAnswer,
            detail: `${by || '(nothing)'} answered, not ${backends.second.name}`,
          },
          by,
        };
  };
  // Open every socket and see the first backend answer on it.
  const sockets: Socket[] = [];
  await Promise.all(
    cells.map(async (cell) => {
      const pod = ctx.workloads().pods.find((p) => p.name === cell.from);
      const why = pod === undefined ? `pod ${cell.from} is not deployed` : held.unsupported(pod);
      if (why !== undefined || pod === undefined) {
        ctx.done(skippedResult(cell.meta, why ?? ''));
        return;
      }
      const opened = await held.open(pod, cell.target!(ctx.workloads(), deployed), timeoutMs);
      if ('failed' in opened) {
        const judged = judgeReply(opened.failed, { kind: 'responds' });
        ctx.done(
          judgedResult(
            cell.meta,
            expectation(cell),
            { ...judged, detail: `opening the socket: ${judged.detail}` },
            { durationMs: 0, attempts: 1 },
          ),
        );
        return;
      }
      const until = performance.now() + FIRST_ANSWER_MS;
      for (;;) {
        const { by, judged } = await answer(opened.id);
        if (by === backends.first.name) return sockets.push({ cell, id: opened.id });
        if (performance.now() > until) {
          await held.close(opened.id);
          ctx.done(
            judgedResult(
              cell.meta,
              expectation(cell),
              {
                outcome: judged.outcome,
                detail: `before the swap, ${backends.first.name} never answered: ${judged.detail}`,
              },
              { durationMs: timeoutMs, attempts: 1 },
            ),
          );
          return;
        }
        await delay(SEND_EVERY_MS);
      }
    }),
  );
  if (sockets.length === 0) return;
  const since = performance.now();
  let swappedAt: number | undefined;
  let swapError: string | undefined;
  const swap = overTime.step(os, 'udp-backend-switched').then(
    () => {
      swappedAt = performance.now();
    },
    (error: unknown) => {
      swapError = messageOf(error);
    },
  );
  const boundMs = overTime.settleMs;
  await Promise.all(
    sockets.map(async ({ cell, id }) => {
      let attempts = 0;
      let after = 0;
      let askedMs = 0;
      const finish = (outcome: Outcome, detail: string, timeToGreenMs?: number): void => {
        const recovery = {
          after: 'udp-backend-switched',
          subject: os,
          ...(timeToGreenMs === undefined ? {} : { timeToGreenMs }),
          boundMs,
          boundFrom: settleSource(boundMs),
        };
        ctx.done(
          judgedResult(
            cell.meta,
            expectation(cell),
            { outcome, detail },
            { durationMs: askedMs, attempts, recovery },
          ),
        );
      };
      for (;;) {
        const began = performance.now();
        if (swappedAt !== undefined && began >= swappedAt) after++;
        attempts++;
        const { judged } = await answer(id);
        askedMs += performance.now() - began;
        if (judged.outcome === Outcome.Ok) {
          const timeToGreenMs = Math.round(performance.now() - since);
          finish(
            judged.outcome,
            `the same socket reached ${backends.second.name} ${timeToGreenMs} ms after the swap began (${backends.first.name} deleted)`,
            timeToGreenMs,
          );
          return;
        }
        const bounded =
          swappedAt !== undefined && began >= swappedAt + boundMs && after >= 1 + retries;
        if (swapError !== undefined || bounded) {
          const detail =
            swapError !== undefined
              ? `the swap failed: ${swapError}`
              : `${judged.detail}; the socket's datagrams never reached the new backend within ${boundMs} ms of the swap (a stale conntrack entry?)`;
          finish(swapError === undefined ? judged.outcome : Outcome.Error, detail);
          return;
        }
        await delay(SEND_EVERY_MS);
      }
    }),
  );
  await swap;
  await Promise.all(sockets.map((s) => held.close(s.id)));
}
