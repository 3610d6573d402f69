/** What one mocha run of the mutation test runner tells Stryker: each test's result, and which test (or suite) was running when a mutant was reached. */
import Mocha from 'mocha';
import type { MutantCoverage } from '@stryker-mutator/api/core';
import { TestStatus, type TestResult } from '@stryker-mutator/api/test-runner';
import { suiteKey } from './coverage-keys.ts';

/** Stryker's instrumentation state in a process (INSTRUMENTER_CONSTANTS names its fields). */
export interface Instrumentation {
  activeMutant?: string;
  currentTestId?: string;
  mutantCoverage?: MutantCoverage;
  hitCount?: number;
  hitLimit?: number;
}

/** The coverage key a process started now reports under (child-coverage.mjs reads it). */
export const ENV_KEY = 'HL_MUTATION_COVERAGE_KEY';

/** Sets (or, with undefined, removes) a variable of this process's environment, which the processes tests start inherit. */
export function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) Reflect.deleteProperty(process.env, name);
  else process.env[name] = value;
}

function file(test: Mocha.Runnable): { fileName?: string } {
  return test.file === undefined ? {} : { fileName: test.file };
}

export class RunEvents {
  /** The results of the run under way. */
  tests: TestResult[] = [];
  /** Tests under each suite key seen while collecting, for the coverage of its all-hooks. */
  readonly testsUnder = new Map<string, string[]>();
  /** Whether coverage is being recorded per test (the dry run with perTest coverage). */
  collecting = false;

  constructor(private readonly ns: Instrumentation) {}

  /** Records each test's result and, in a dry run, under which key coverage is being recorded. */
  listen(events: Mocha.Runner): void {
    const { EVENT_TEST_BEGIN, EVENT_TEST_END, EVENT_HOOK_BEGIN, EVENT_HOOK_END } =
      Mocha.Runner.constants;
    let started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const recordUnder = (key: string | undefined) => {
      if (!this.collecting) return;
      this.ns.currentTestId = key;
      setEnv(ENV_KEY, key);
    };
    events.on(EVENT_TEST_BEGIN, (test) => {
      started = performance.now();
      recordUnder(test.fullTitle());
    });
    events.on(EVENT_TEST_END, () => {
      recordUnder(undefined);
    });
    events.on(EVENT_HOOK_BEGIN, (hook: Mocha.Hook) => {
      const test = hook.ctx?.currentTest;
      const each = /^"(before|after) each" hook/.test(hook.title);
      const suite = hook.parent;
      if (each || suite === undefined || suite.root) {
        recordUnder(each ? test?.fullTitle() : undefined);
        return;
      }
      const key = suiteKey(suite.fullTitle());
      if (this.collecting && !this.testsUnder.has(key)) {
        const tests: string[] = [];
        suite.eachTest((t) => tests.push(t.fullTitle()));
        this.testsUnder.set(key, tests);
      }
      recordUnder(key);
    });
    events.on(EVENT_HOOK_END, () => {
      recordUnder(undefined);
    });
    events.on('pass', (test) => {
      const id = test.fullTitle();
      this.tests.push({
        id,
        name: id,
        status: TestStatus.Success,
        timeSpentMs: ms(),
        ...file(test),
      });
    });
    events.on('pending', (test) => {
      const id = test.fullTitle();
      this.tests.push({ id, name: id, status: TestStatus.Skipped, timeSpentMs: 0, ...file(test) });
    });
    events.on('fail', (test, error: Error) => {
      // A failing hook stands for the test it ran for.
      const id = test.ctx?.currentTest?.fullTitle() ?? test.fullTitle();
      const failureMessage = error.stack ?? error.message;
      this.tests.push({
        id,
        name: id,
        status: TestStatus.Failed,
        timeSpentMs: ms(),
        failureMessage,
      });
    });
  }
}
