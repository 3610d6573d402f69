/** Wait strategies (`forCondition`; `forSsh` in lab/remote): a timeout names what was awaited and the last error. */
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
