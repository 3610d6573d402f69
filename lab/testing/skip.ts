/**
 * The one way a test skips. It says why, at once and in $HL_SKIP_LOG (which .ci/run prints at
 * the end), and under CI=true it refuses any skip this machine could avoid: the test fails
 * instead. Only what this class of machine cannot have may skip in CI, and opt-in tests that
 * CI runs as a step of their own or the nightly runs (docs/ci.md).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Context } from 'mocha';

const CI_SCRIPT = fileURLToPath(new URL('../../.ci/run', import.meta.url));
/** The nightly's GitHub definition: a step it runs is not skipped silently either. */
const NIGHTLY = fileURLToPath(new URL('../../ci/github/nightly.yml', import.meta.url));

/** What this class of machine cannot have (nested virtualization off, no Windows licences). */
export const UNAVAILABLE_HERE = ['working KVM', 'Windows images'] as const;

/** Why a test does not run here. */
export type Skip = { reason: string } & (
  | /** A tool, root, a kernel feature, a cache: all installable, so CI fails without it. */
    { kind: 'missing' }
    /** An opt-in test run as its own step: `step` must appear in .ci/run or the nightly. */
  | { kind: 'own-step'; step: string }
  /** This machine cannot have it: CI may skip. */
  | { kind: 'unavailable'; what: (typeof UNAVAILABLE_HERE)[number] }
);

/** Something installable is missing. */
export function missing(reason: string): Skip {
  return { kind: 'missing', reason };
}

/** Runs only when `variable`=1, which `step` of .ci/run sets; undefined when it is set. */
export function optIn(variable: string, step: string, why: string): Skip | undefined {
  return process.env[variable] === '1'
    ? undefined
    : {
        kind: 'own-step',
        step,
        reason: `set ${variable}=1 (${why}; CI or the nightly runs it as \`${step}\`)`,
      };
}

/** Whether `skip` may happen under CI=true; else why not. */
export function ciMaySkip(skip: Skip, ciScript = CI_SCRIPT, nightly = NIGHTLY): string | undefined {
  switch (skip.kind) {
    case 'unavailable':
      return undefined;
    case 'own-step':
      return [ciScript, nightly].some((file) => readFileSync(file, 'utf8').includes(skip.step))
        ? undefined
        : `its own step \`${skip.step}\` is neither in .ci/run nor in the nightly`;
    case 'missing':
      return `CI=true allows skips only for ${UNAVAILABLE_HERE.join(' and ')} and opt-in steps .ci/run runs`;
  }
}

/** Skips the current test (or, from a before hook, its suite) saying why; in CI, fails unless allowed. */
export function skipTest(ctx: Context, skip: Skip): never {
  if (process.env.CI === 'true') {
    const refused = ciMaySkip(skip);
    if (refused !== undefined) throw new Error(`cannot run: ${skip.reason} (${refused})`);
  }
  process.stdout.write(`      skipped: ${skip.reason}\n`);
  const log = process.env.HL_SKIP_LOG;
  if (log !== undefined && log !== '') {
    const title = ctx.currentTest?.fullTitle() ?? ctx.test?.parent?.fullTitle() ?? '';
    appendFileSync(log, `${title}\t${skip.reason}\n`);
  }
  ctx.skip();
}

/** Skips unless `skip` is undefined: the usual `before(function () { skipIf(this, reason()) })`. */
export function skipIf(ctx: Context, skip: Skip | undefined): void {
  if (skip !== undefined) skipTest(ctx, skip);
}
