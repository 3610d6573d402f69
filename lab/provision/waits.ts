/** Small wait strategies of provisioning; a timeout names what was awaited and the last error. */
import { setTimeout as sleep } from 'node:timers/promises';
import { WaitTimeoutError } from '../errors.ts';
import type { NodeShell } from '../remote/node-shell.ts';

export interface Wait {
  /** What is awaited, for the timeout message. */
  readonly what: string;
  wait(): Promise<void>;
}

/** Polls `check` every `intervalMs` until it resolves, or fails after `timeoutMs`. */
export function poll(
  what: string,
  check: () => Promise<void>,
  timeoutMs: number,
  intervalMs = 2000,
): Wait {
  return {
    what,
    async wait() {
      const deadline = performance.now() + timeoutMs;
      let last: unknown;
      for (;;) {
        try {
          await check();
          return;
        } catch (error) {
          last = error;
        }
        if (performance.now() + intervalMs > deadline)
          throw new WaitTimeoutError(what, timeoutMs, last);
        await sleep(intervalMs);
      }
    },
  };
}

/** The node answers a trivial command over SSH (after boot or reboot). */
export function forSsh(shell: NodeShell, timeoutMs: number, intervalMs = 3000): Wait {
  return poll(
    `SSH on ${shell.node}`,
    async () => {
      await shell.exec(['hostname'], { timeoutMs: 15_000 });
    },
    timeoutMs,
    intervalMs,
  );
}
