// @ts-check
/**
 * Preloaded (NODE_OPTIONS=--import) into every process a test starts during Stryker's dry run:
 * writes which mutants this process reached to $HL_MUTATION_COVERAGE_DIR, under the key the test
 * runner gave it ($HL_MUTATION_COVERAGE_KEY), so a mutant reached only in a spawned probe.mjs is
 * covered by the test that spawned it. Plain JavaScript: the probe programs run without tsx.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.HL_MUTATION_COVERAGE_DIR;
const key = process.env.HL_MUTATION_COVERAGE_KEY ?? '';

/** @typedef {{ static?: Record<string, number>, perTest?: Record<string, Record<string, number>> }} Coverage */

function write() {
  const g = /** @type {Record<string, { mutantCoverage?: Coverage } | undefined>} */ (
    /** @type {unknown} */ (globalThis)
  );
  const coverage = g.__stryker__?.mutantCoverage;
  if (dir === undefined || coverage === undefined) return;
  /** @type {Record<string, number>} */
  const hits = { ...coverage.static };
  for (const test of Object.values(coverage.perTest ?? {}))
    for (const [id, n] of Object.entries(test)) hits[id] = (hits[id] ?? 0) + n;
  writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ key, hits }));
}

if (dir !== undefined && dir !== '') {
  process.on('exit', write);
  // probe.mjs ends a timed-out probe with SIGKILL, which skips 'exit': write first.
  const kill = process.kill.bind(process);
  process.kill = (pid, signal) => {
    if (pid === process.pid) write();
    return kill(pid, signal);
  };
}
