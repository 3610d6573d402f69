/** Small wait strategies (`forSsh`, `forCondition`); a timeout names what was awaited and the last error. */
import type { NodeShell } from '../remote/node-shell.ts';
import { pollUntil } from './poll.ts';

export interface Wait {
  /** What is awaited, for the timeout message. */
  readonly what: string;
  wait(): Promise<void>;
}

/** Waits until `check` resolves (a rejection means "not yet"), or fails after `timeoutMs`. */
export function forCondition(
  what: string,
  check: () => Promise<void>,
  timeoutMs: number,
  intervalMs = 2000,
): Wait {
  return {
    what,
    async wait() {
      await pollUntil(
        what,
        async () => {
          await check();
          return true;
        },
        { timeoutMs, intervalMs, retryOnError: true },
      );
    },
  };
}

/** The node answers a trivial command (after boot or reboot). */
export function forSsh(shell: NodeShell, timeoutMs: number, intervalMs = 3000): Wait {
  return forCondition(
    `SSH on ${shell.node}`,
    async () => {
      await shell.exec(['hostname'], { timeoutMs: 15_000 });
    },
    timeoutMs,
    intervalMs,
  );
}
