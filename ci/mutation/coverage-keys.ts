/**
 * Which test covered which mutant, for Stryker's perTest coverage analysis. Coverage is recorded
 * under a key: a test's full title while the test or its each-hooks run, a suite's key while its
 * all-hooks run (every test under that suite may need what they set up), nothing while files load
 * (static). Processes the tests start report theirs under the key they were started with.
 */
import type { CoverageData, MutantCoverage } from '@stryker-mutator/api/core';

/** The key of a suite's before/after-all hooks; never a test's full title (those have no NUL). */
export function suiteKey(suiteTitle: string): string {
  return `\0suite\0${suiteTitle}`;
}

/** Adds `from`'s hit counts into `into`. */
export function addHits(into: CoverageData, from: CoverageData): void {
  for (const [mutant, hits] of Object.entries(from)) into[mutant] = (into[mutant] ?? 0) + hits;
}

/** Adds hits recorded under `key` ('' for none: static) to `coverage`. */
export function addUnder(coverage: MutantCoverage, key: string, hits: CoverageData): void {
  if (key === '') addHits(coverage.static, hits);
  else addHits((coverage.perTest[key] ??= {}), hits);
}

/**
 * The coverage Stryker is given: each suite key's hits go to every test under that suite (a
 * suite that ran no test gives them to none); test keys stay as they are.
 */
export function attributeSuites(
  coverage: MutantCoverage,
  testsUnder: ReadonlyMap<string, readonly string[]>,
): MutantCoverage {
  const perTest: Record<string, CoverageData> = {};
  for (const [key, hits] of Object.entries(coverage.perTest)) {
    const tests = key.startsWith(suiteKey('')) ? (testsUnder.get(key) ?? []) : [key];
    for (const test of tests) addHits((perTest[test] ??= {}), hits);
  }
  return { static: { ...coverage.static }, perTest };
}
