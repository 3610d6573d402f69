/**
 * What a finished (or stopped) e2e.test run left behind, judged: its JUnit files when it wrote
 * them; else the specs its dry run planned, with the verdicts of those its progress lines say
 * finished and the rest marked as never finished.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { UpstreamRun, UpstreamTest } from '../../lab/contracts/upstream-results.ts';
import { RAW_JUNIT_PREFIX } from './e2e-command.ts';
import { mergeGinkgoCases, parseGinkgoJunit, type GinkgoCase } from './ginkgo-junit.ts';
import { ginkgoProgress } from './ginkgo-progress.ts';
import { ginkgoSkipReasons } from './ginkgo-skips.ts';
import type { LabTraits, Selection, UpstreamCatalogue } from './upstream-catalogue.ts';
import { judgeUpstream } from './upstream-verdicts.ts';

/** The message of a failure known only from a progress line. */
export const FAILED_WITHOUT_JUNIT =
  'failed (e2e.test wrote no JUnit; the failure is in e2e/e2e.log)';

export interface OutcomeInput {
  /** Where e2e.test wrote its JUnit files. */
  rawDir: string;
  /** e2e.test's console (through ginkgo). */
  output: string;
  /** The dry run's cases: the chosen specs `passed`, the others `skipped`; undefined without one. */
  planned: readonly GinkgoCase[] | undefined;
  exitCode: number;
  /** Why the harness stopped the run, when it did. */
  stopped: string | undefined;
  catalogue: UpstreamCatalogue;
  selection: Selection;
  lab: LabTraits;
}

export type Outcome = Pick<UpstreamRun, 'status' | 'reason'> & { tests: UpstreamTest[] };

/** Why the run did not finish by itself, if it did not. */
export function brokenBecause(output: string, stopped: string | undefined): string | undefined {
  if (stopped !== undefined) return stopped;
  // ginkgo's -timeout: a serial run's test binary panics, a parallel run's ginkgo gives up.
  const panic = /^panic: (test timed out after \S+)/m.exec(output)?.[1];
  if (panic !== undefined) return panic;
  return /Ginkgo timed out waiting for all parallel nodes/.test(output)
    ? 'ginkgo timed out (its -timeout) waiting for its parallel nodes'
    : undefined;
}

export function judgeOutcome(input: OutcomeInput): Outcome {
  const { output, catalogue, selection, lab } = input;
  const broken = brokenBecause(output, input.stopped);
  const files = readdirSync(input.rawDir).filter((f) =>
    new RegExp(`^junit_${RAW_JUNIT_PREFIX}\\d+\\.xml$`).test(f),
  );
  const skipReasons = ginkgoSkipReasons(output);
  if (files.length > 0) {
    const cases = mergeGinkgoCases(
      files.map((f) => parseGinkgoJunit(readFileSync(join(input.rawDir, f), 'utf8'), f)),
    );
    const tests = judgeUpstream({ cases, skipReasons, catalogue, selection, lab });
    return broken === undefined
      ? { status: 'ran', tests }
      : { status: 'infra-error', reason: `e2e.test did not finish: ${broken}`, tests };
  }
  const why = `e2e.test wrote no JUnit (ginkgo exit ${input.exitCode}${broken === undefined ? '' : `, ${broken}`})`;
  if (input.planned === undefined) {
    const tail = output.trim().split('\n').slice(-8).join(' | ');
    return { status: 'infra-error', reason: `${why}: ${tail}`, tests: [] };
  }
  const done = ginkgoProgress(output);
  const unfinished = new Set<string>();
  const cases = input.planned.map((c): GinkgoCase => {
    if (c.state !== 'passed') return c;
    const state = done.get(c.name);
    if (state === undefined) {
      unfinished.add(c.name);
      return { name: c.name, state: 'skipped', durationMs: 0 };
    }
    return {
      name: c.name,
      state,
      durationMs: 0,
      ...(state === 'failed' ? { message: FAILED_WITHOUT_JUNIT } : {}),
    };
  });
  const tests = judgeUpstream({
    cases,
    skipReasons,
    catalogue,
    selection,
    lab,
    unfinished: { names: unfinished, why: broken ?? why },
  });
  return {
    status: 'infra-error',
    reason: `${why}: the verdicts of the ${done.size} specs that finished come from its progress lines; ${unfinished.size} never finished`,
    tests,
  };
}
