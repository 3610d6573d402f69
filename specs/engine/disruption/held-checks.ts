/**
 * A long-lived connection's two moments: opened (who answered, which address and port it saw)
 * and, after the idle time or a disruption, asked again on the same connection, which must
 * answer from the same server and be seen from the same address and port.
 */
import { Outcome } from '../../../lab/contracts/results-file.ts';
import type { Workloads } from '../../model/lab-driver.ts';
import type { HeldConnections } from '../../model/over-time-driver.ts';
import { judgeReply } from '../judge.ts';
import type { HeldCell } from './over-time-cells.ts';
import type { Judged } from './until-green.ts';

/** An open connection and what its first answers were. */
export interface Opened {
  id: string;
  /** The server that answered (its /hostname). */
  server: string;
  /** What it saw of the client: `ip:port` (its /clientip). */
  seen: string;
  openedAt: number;
}

/** Either the connection is open, or why the cell cannot go on (skipped, or failed at once). */
export type OpenOutcome = Opened | { skip: string } | { failed: Judged };

const failure = (reply: Parameters<typeof judgeReply>[0], what: string): Judged => {
  const judged = judgeReply(reply, { kind: 'responds' });
  return { outcome: judged.outcome, detail: `${what}: ${judged.detail}` };
};

/** The address part of `ip:port` (IPv6 in brackets). */
export function addressOf(seen: string): string {
  return seen.trim().replace(/^\[?([^\]]*?)\]?:\d+$/, '$1');
}

/** Opens `cell`'s connection from its pod and asks who answers and what it sees of the client. */
export async function openHeld(
  held: HeldConnections,
  workloads: Workloads,
  cell: HeldCell,
  timeoutMs: number,
): Promise<OpenOutcome> {
  if (cell.from === undefined || cell.target === undefined)
    return { skip: cell.skip ?? 'not applicable' };
  const pod = workloads.pods.find((p) => p.name === cell.from);
  if (pod === undefined)
    return { failed: { outcome: Outcome.Error, detail: `pod ${cell.from} is not deployed` } };
  const why = held.unsupported(pod);
  if (why !== undefined) return { skip: why };
  const { held: target, client } = cell.target(workloads);
  const opened = await held.open(pod, target, timeoutMs);
  if ('failed' in opened)
    return { failed: failure(opened.failed, `connecting to ${target.host}:${target.port}`) };
  const server = await held.ask(opened.id, '/hostname', timeoutMs);
  const seen = server.result === 'ok' ? await held.ask(opened.id, '/clientip', timeoutMs) : server;
  if (server.result !== 'ok' || seen.result !== 'ok') {
    await held.close(opened.id);
    return {
      failed: failure(
        seen,
        `the first requests on the new connection to ${target.host}:${target.port}`,
      ),
    };
  }
  const address = addressOf(seen.body ?? '');
  if (address !== client) {
    await held.close(opened.id);
    return {
      failed: {
        outcome: Outcome.WrongSourceIp,
        detail: `${server.body ?? '?'} saw ${seen.body ?? '(nothing)'}, expected ${client}`,
      },
    };
  }
  return {
    id: opened.id,
    server: (server.body ?? '').trim(),
    seen: (seen.body ?? '').trim(),
    openedAt: performance.now(),
  };
}

/** Asks again on the open connection; the same server must answer and see the same `ip:port`. */
export async function checkHeld(
  held: HeldConnections,
  opened: Opened,
  timeoutMs: number,
): Promise<Judged> {
  const idle = `after ${Math.round((performance.now() - opened.openedAt) / 1000)} s`;
  const server = await held.ask(opened.id, '/hostname', timeoutMs);
  const seen = server.result === 'ok' ? await held.ask(opened.id, '/clientip', timeoutMs) : server;
  if (server.result !== 'ok' || seen.result !== 'ok')
    return failure(seen, `the same connection ${idle}`);
  const now = { server: (server.body ?? '').trim(), seen: (seen.body ?? '').trim() };
  if (now.server !== opened.server || now.seen !== opened.seen) {
    return {
      outcome: Outcome.WrongAnswer,
      detail: `${idle} ${now.server} answered and saw ${now.seen}; at the start ${opened.server} saw ${opened.seen}: not the same connection`,
    };
  }
  return {
    outcome: Outcome.Ok,
    detail: `the same connection answered ${idle}: ${now.server} saw ${now.seen} again`,
  };
}
