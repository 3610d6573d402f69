/** The one polling loop: ask until there is an answer or the time is up, then say what was awaited. */
import { setTimeout as sleep } from 'node:timers/promises';
import { WaitTimeoutError } from '../errors.ts';

export interface PollOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between two checks; default 100 ms. */
  intervalMs?: number;
  /** Errors the check throws mean "not yet" (the last one is reported on timeout); default: they end the wait. */
  retryOnError?: boolean;
  /** What was last seen, for the timeout message when the check gave no error (e.g. a log tail). */
  lastSeen?: () => unknown;
}

/**
 * Calls `check` until it returns something other than undefined and returns that. Throws
 * WaitTimeoutError naming `what`, the time waited and the last error or `lastSeen()`.
 */
export async function pollUntil<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  options: PollOptions,
): Promise<T> {
  const interval = options.intervalMs ?? 100;
  const deadline = performance.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      if (options.retryOnError !== true) throw error;
      lastError = error;
    }
    const left = deadline - performance.now();
    if (left <= 0) {
      throw new WaitTimeoutError(what, options.timeoutMs, lastError ?? options.lastSeen?.());
    }
    await sleep(Math.min(interval, left));
  }
}

/** pollUntil for a condition: resolves once `check` is true. */
export async function pollFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: PollOptions,
): Promise<void> {
  await pollUntil(what, async () => ((await check()) ? true : undefined), options);
}

/** Like Promise.all, but rethrows the first failure only after every promise has settled. */
export async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
