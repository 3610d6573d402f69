/**
 * Judges an e2e.test run: every spec of the catalogue's universe (and any other that ran) gets a
 * verdict and, where it did not simply pass or fail, the reason. Pure.
 */
import type { UpstreamTest } from '../../lab/contracts/upstream-results.ts';
import { SUITE_HOOKS, type GinkgoCase } from './ginkgo-junit.ts';
import {
  knownLimitReason,
  leftOutReason,
  type LabTraits,
  type Selection,
  type UpstreamCatalogue,
} from './upstream-catalogue.ts';

/** Failure messages kept per spec: enough to recognise the symptom. */
export const MESSAGE_MAX = 2000;

/** Reason of a chosen spec e2e.test skipped without saying why on its console. */
export const SKIPPED_AT_RUN_TIME = 'skipped by e2e.test at run time (its reason is in e2e.log)';

export interface JudgeInput {
  cases: readonly GinkgoCase[];
  /** Reasons e2e.test printed for the specs it skipped (ginkgoSkipReasons). */
  skipReasons: ReadonlyMap<string, string>;
  catalogue: UpstreamCatalogue;
  selection: Selection;
  lab: LabTraits;
  /** Chosen specs a stopped run never finished, and why it stopped. */
  unfinished?: { names: ReadonlySet<string>; why: string };
}

/** One verdict per spec, in name order; suite hook failures become infra errors. */
export function judgeUpstream(input: JudgeInput): UpstreamTest[] {
  const { catalogue, selection, lab } = input;
  const universe = new RegExp(catalogue.universe);
  const focus = new RegExp(selection.focus);
  const skip = selection.skip === '' ? undefined : new RegExp(selection.skip);
  const chosen = (name: string) => focus.test(name) && !(skip?.test(name) ?? false);
  const tests: UpstreamTest[] = [];
  for (const c of input.cases) {
    if ((SUITE_HOOKS as readonly string[]).includes(c.name)) {
      tests.push({
        name: `[e2e.test] ${c.name}`,
        selected: true,
        verdict: c.state === 'failed' ? 'infra-error' : 'pass',
        ...(c.message === undefined ? {} : { message: shorten(c.message) }),
        durationMs: c.durationMs,
      });
      continue;
    }
    if (c.state === 'skipped' && !universe.test(c.name)) continue;
    const limit = knownLimitReason(catalogue, c.name, lab);
    const base = { name: c.name, selected: true, durationMs: c.durationMs };
    if (c.state === 'passed') {
      tests.push(
        limit === undefined
          ? { ...base, verdict: 'pass' }
          : { ...base, verdict: 'unexpected-pass', reason: limit },
      );
    } else if (c.state === 'failed') {
      const message = shorten(c.message ?? '');
      tests.push(
        limit === undefined
          ? { ...base, verdict: 'fail', message }
          : { ...base, verdict: 'expected-failure', reason: limit, message },
      );
    } else {
      const selected =
        chosen(c.name) ||
        input.skipReasons.has(c.name) ||
        input.unfinished?.names.has(c.name) === true;
      tests.push({
        ...base,
        selected,
        verdict: 'skipped',
        reason: skipReason(input, c.name, chosen),
      });
    }
  }
  return tests.sort((a, b) => a.name.localeCompare(b.name));
}

function skipReason(input: JudgeInput, name: string, chosen: (n: string) => boolean): string {
  if (input.unfinished?.names.has(name) === true) {
    return `not run: e2e.test stopped before it finished (${input.unfinished.why})`;
  }
  const printed = input.skipReasons.get(name);
  if (printed !== undefined) return `skipped by e2e.test: ${printed}`;
  if (chosen(name)) return SKIPPED_AT_RUN_TIME;
  const { selection } = input;
  if (selection.skip !== '' && new RegExp(selection.skip).test(name)) {
    const why = leftOutReason(input.catalogue, name, input.lab);
    return why === undefined ? `left out by --skip ${selection.skip}` : `left out: ${why}`;
  }
  switch (selection.focusKind) {
    case 'default':
      return 'not in the default focus (not a data-plane spec); run it with --focus';
    case 'cross-checked':
      return 'not in the cross-checked run (--cross-checked: only the specs paired with matrix rows)';
    case 'given':
      return `not in --focus ${selection.focus}`;
  }
}

function shorten(text: string): string {
  return text.length <= MESSAGE_MAX ? text : `${text.slice(0, MESSAGE_MAX - 1)}…`;
}
