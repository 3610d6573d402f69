/**
 * Why e2e.test skipped a spec it had chosen: ginkgo v1's JUnit carries no skip message, its
 * console output does, in one block per spec:
 *
 *   S [SKIPPING] in Spec Setup (BeforeEach) [0.2 seconds]
 *   [sig-windows] Services
 *   /…/test/e2e/windows/framework.go:27
 *     should be able to create a functioning NodePort service for Windows [BeforeEach]
 *     /…/test/e2e/windows/service.go:42
 *
 *     Only supported for node OS distro [windows] (not debian)
 *
 *     /…/test/e2e/framework/skipper/skipper.go:286
 *   ------------------------------
 */

const BLOCK = /S \[SKIPPING\][^\n]*\n([\s\S]*?)\n-{20,}/g;
const LOCATION = /^\s*\S*\/\S+\.go:\d+\s*$/;
const WHERE = / \[(BeforeEach|JustBeforeEach|It|AfterEach|JustAfterEach|Measure)\]$/;

/** Spec name → the reason e2e.test printed for skipping it. */
export function ginkgoSkipReasons(output: string): Map<string, string> {
  const reasons = new Map<string, string>();
  // eslint-disable-next-line no-control-regex -- ginkgo colours its output unless told not to
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  for (const match of plain.matchAll(BLOCK)) {
    const lines = match[1]!.split('\n');
    const blank = lines.findIndex((l) => l.trim() === '');
    if (blank < 0) continue;
    const name = lines
      .slice(0, blank)
      .filter((l) => !LOCATION.test(l))
      .map((l) => l.trim().replace(WHERE, ''))
      .join(' ');
    const rest = lines.slice(blank + 1);
    while (rest.length > 0 && (rest.at(-1)!.trim() === '' || LOCATION.test(rest.at(-1)!))) {
      rest.pop();
    }
    const reason = rest
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join(' ');
    if (name !== '' && reason !== '') reasons.set(name, reason);
  }
  return reasons;
}
