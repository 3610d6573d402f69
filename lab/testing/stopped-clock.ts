/** A test's own clock: performance.now() stands still until the test moves it. */
import { performance } from 'node:perf_hooks';

/** Runs `body` with performance.now() standing still at `start` until `clock.advance()` moves it. */
export async function withStoppedClock<T>(
  start: number,
  body: (clock: { advance: (ms: number) => void }) => Promise<T>,
): Promise<T> {
  let now = start;
  Object.defineProperty(performance, 'now', { value: () => now, configurable: true });
  try {
    return await body({ advance: (ms) => (now += ms) });
  } finally {
    delete (performance as { now?: unknown }).now;
  }
}
