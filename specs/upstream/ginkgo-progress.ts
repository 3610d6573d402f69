/**
 * What finished, from e2e.test's progress lines (test/e2e/reporters/progress.go prints one JSON
 * line per finished spec: `{"msg":"PASSED <name>",…}` or `FAILED`). They are the only record of a
 * run ginkgo stopped before e2e.test wrote its JUnit (a timeout).
 */
import type { GinkgoState } from './ginkgo-junit.ts';

const LINE = /^(?:\[\d+\] )?(\{"msg":"(?:PASSED|FAILED) .*)$/gm;

/** Spec name → passed or failed, for every spec whose end e2e.test printed. */
export function ginkgoProgress(
  output: string,
): Map<string, Extract<GinkgoState, 'passed' | 'failed'>> {
  const done = new Map<string, Extract<GinkgoState, 'passed' | 'failed'>>();
  for (const match of output.matchAll(LINE)) {
    let msg: unknown;
    try {
      msg = (JSON.parse(match[1]!) as { msg?: unknown }).msg;
    } catch {
      continue;
    }
    if (typeof msg !== 'string') continue;
    const state = msg.startsWith('PASSED ') ? 'passed' : 'failed';
    done.set(msg.slice(7), state);
  }
  return done;
}
