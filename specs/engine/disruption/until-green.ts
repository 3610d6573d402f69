/**
 * Probing a cell again and again after a change, until it passes or its bound passed: the loop
 * behind every time-to-green figure (disruptions, the UDP backend swap, a Service made again).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Outcome } from '../../../lab/contracts/results-file.ts';

/** One attempt's judged outcome. */
export interface Judged {
  outcome: Outcome;
  detail: string;
}

export interface UntilGreenOptions {
  /** When the change began (performance.now()): time-to-green counts from here. */
  since: number;
  /** A cell fails only on an attempt that began this long after `since`, or later. */
  boundMs: number;
  /** Attempts made at least, also when the bound passed at once (a bound of 0: retries). */
  minAttempts: number;
  /** The pause between attempts that failed. */
  pollMs: number;
}

export interface UntilGreenResult {
  last: Judged;
  attempts: number;
  /** The time spent in attempts (not waiting between them). */
  probeMs: number;
  /** From `since` to the end of the first passing attempt; undefined when none passed. */
  timeToGreenMs?: number;
}

/**
 * Attempts until one is Ok, or until an attempt that began after the bound (and at least
 * `minAttempts` of them) failed too: an attempt that started while the data plane was still
 * changing proves nothing. An attempt reports its own time (without waiting for a slot).
 */
export async function untilGreen(
  attempt: () => Promise<{ judged: Judged; ms: number }>,
  options: UntilGreenOptions,
): Promise<UntilGreenResult> {
  const deadline = options.since + options.boundMs;
  let attempts = 0;
  let probeMs = 0;
  for (;;) {
    const began = performance.now();
    attempts++;
    const { judged: last, ms } = await attempt();
    probeMs += ms;
    if (last.outcome === Outcome.Ok) {
      const timeToGreenMs = Math.round(performance.now() - options.since);
      return { last, attempts, probeMs: Math.round(probeMs), timeToGreenMs };
    }
    if (began >= deadline && attempts >= options.minAttempts)
      return { last, attempts, probeMs: Math.round(probeMs) };
    await delay(options.pollMs);
  }
}
