/** The conformance suite's mocha entry: one it() per matrix cell, probed in parallel up front. */
import { randomBytes } from 'node:crypto';
import type { LabDriver } from './drivers/lab-driver.ts';
import { openDriver } from './drivers/open-driver.ts';
import { CellRunner, DEFAULT_PROBE_TIMEOUT_MS } from './engine/cell-runner.ts';
import { expectationFor, loadProfile } from './engine/profile.ts';
import { CELL_META, CELL_RESULT, LAB_READY_CELL, type CellResult } from './engine/results.ts';
import { selectionFromArgv } from './engine/selection.ts';
import { podNames } from './matrix/cell-plan.ts';
import { expandCells } from './matrix/expand-cells.ts';
import { MATRIX } from './matrix/rows.ts';
import { setOpenFailure, setRunInfo } from './report/run-context.ts';

const profile = loadProfile(process.env.PROFILE ?? 'strict');
const serial = process.argv.includes('--serial');
const settings = {
  concurrency: serial ? 1 : positiveInt('CONCURRENCY', 8),
  timeoutMs: positiveInt('PROBE_TIMEOUT_MS', DEFAULT_PROBE_TIMEOUT_MS),
  retries: 2,
};
const runId = `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(3).toString('hex')}`;

/** A positive integer from the environment, else `fallback`; anything else stops the run with the variable's name. */
function positiveInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9][0-9]*$/.test(text))
    throw new Error(`${name} must be a positive integer, got "${text}"`);
  return Number(text);
}

let driver: LabDriver | undefined;
let openError: unknown;
try {
  driver = await openDriver();
} catch (error) {
  openError = error;
  const message = error instanceof Error ? error.message : String(error);
  setOpenFailure(message);
  process.stderr.write(`hybrid-lab: ${message}\n`);
}
const cells = (driver === undefined ? [] : expandCells(MATRIX, driver.nodes)).map((plan) => ({
  plan,
  expectation: expectationFor(profile, plan.meta.cell),
}));
const suiteTitle =
  driver === undefined
    ? 'hybrid matrix'
    : `hybrid matrix on ${driver.info.lab} (${driver.info.provider}${driver.info.emulated ? ', EMULATED' : ''})`;
let runner: CellRunner | undefined;

// Interrupted (Ctrl-C, a CI timeout's SIGTERM): the reporter writes the results, then the run's
// workloads are removed before the process dies of the signal. While this listener is
// registered the reporter leaves the re-raise to it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  const onSignal = (): void => {
    const die = (): void => {
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    const bounded = new Promise((resolve) => setTimeout(resolve, 60_000).unref());
    void Promise.race([driver?.cleanup(), bounded]).then(die, die);
  };
  process.on(signal, onSignal);
}

describe(suiteTitle, function () {
  before('infrastructure: lab ready and workloads deployed', async function () {
    this.timeout(Number(process.env.DEPLOY_TIMEOUT_MS ?? 300_000));
    if (driver === undefined) return;
    setRunInfo({
      ...driver.info,
      runId,
      profile: profile.name,
      unexpectedPass: profile.unexpectedPass,
      startedAt: new Date().toISOString(),
    });
    await driver.checkReady();
    const workloads = await driver.deploy(runId, podNames(driver.nodes));
    runner = new CellRunner(driver, workloads, settings);
    const selection = selectionFromArgv(process.argv);
    runner.prefetch(cells.filter((c) => selection.matches(`${suiteTitle} ${c.plan.meta.title}`)));
  });

  after('remove the run namespace', async function () {
    this.timeout(120_000);
    await driver?.cleanup();
  });

  if (driver === undefined) {
    const test = it(LAB_READY_CELL.title, function () {
      throw openError;
    });
    Object.assign(test, { [CELL_META]: LAB_READY_CELL });
  }

  for (const { plan, expectation } of cells) {
    const test = it(plan.meta.title, async function () {
      this.timeout(
        settings.timeoutMs * (settings.retries + 2) * Math.max(1, cells.length) + 10_000,
      );
      const result: CellResult = await runner!.result(plan, expectation);
      Object.assign(this.test!, { [CELL_RESULT]: result });
      switch (result.verdict) {
        case 'pass':
          return;
        case 'skipped':
        case 'expected-failure':
          this.skip();
          return;
        case 'unexpected-pass':
          if (profile.unexpectedPass === 'warn') {
            console.warn(
              `    UNEXPECTED PASS: ${plan.meta.title} — ${expectation.reason ?? ''}; update profile ${profile.name}`,
            );
            return;
          }
          throw new Error(
            `unexpected pass: ${plan.meta.title} works now but profile ${profile.name} expects ${result.expected}; update the profile`,
          );
        case 'fail':
        case 'infra-error':
          throw new Error(
            `expected ${result.expected}, got ${result.actual ?? 'nothing'}: ${result.detail}`,
          );
      }
    });
    Object.assign(test, {
      [CELL_META]: {
        ...plan.meta,
        expected: expectation.expected,
        ...(expectation.reason === undefined ? {} : { reason: expectation.reason }),
      },
    });
  }
});
