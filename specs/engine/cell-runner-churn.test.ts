/** CellRunner: churn cells. */
import { expect } from 'chai';
import type { CellPlan } from '../model/cell-plan.ts';
import { CellRunner } from './cell-runner.ts';
import { Outcome, type CellResult } from '../../lab/contracts/results-file.ts';
import type { ChurnStep } from '../../lab/contracts/cells.ts';
import { OK, W1, expectOk, plainCell, urlDriver } from '../testing/cell-runner-fixtures.ts';

describe('CellRunner: churn cells', () => {
  /** A driver whose churn() logs each step; `fail` makes it throw on that step. */
  function churning(fail?: { step: string; with: unknown }) {
    const driver = urlDriver(
      () => OK,
      (url) => (url === 'http://plain/' ? 20 : 0),
    );
    Object.assign(driver, {
      churnSettleMs: 0,
      churn: (os: string, step: string) => {
        driver.log.push(`churn ${os} ${step}`);
        // A driver may reject with anything, not only an Error: the runner must still say what.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        return step === fail?.step ? Promise.reject(fail.with) : Promise.resolve();
      },
    });
    return driver;
  }
  const churnCell = (
    id: string,
    os: 'linux' | 'windows',
    step: ChurnStep,
    patch: Partial<CellPlan> = {},
  ) => plainCell(id, { churn: { os, step }, ...patch });

  it('makes each OS its own steps, up to its last selected one, after every plain cell ended', async () => {
    const driver = churning();
    const observer = {
      started: () => {},
      record: (r: CellResult) => driver.log.push(`recorded ${r.title}`),
    };
    const runner = new CellRunner(
      driver,
      W1,
      { concurrency: 2, timeoutMs: 100, retries: 0 },
      observer,
    );
    const cells = [
      churnCell('lin', 'linux', 'backend-deleted'),
      churnCell('win', 'windows', 'backend-recreated'),
      plainCell('plain'),
    ].map((plan) => ({ plan, expectation: expectOk }));
    runner.prefetch(cells);
    const results = await Promise.all(cells.map((c) => runner.result(c.plan, c.expectation)));
    expect(results.map((r) => r.verdict)).to.deep.equal(['pass', 'pass', 'pass']);
    expect(driver.log.slice(0, 2)).to.deep.equal(['http://plain/', 'recorded plain']);
    expect(
      driver.log
        .slice(2)
        .filter((l) => l.startsWith('churn'))
        .sort(),
    ).to.deep.equal([
      'churn linux backend-deleted',
      'churn windows backend-deleted',
      'churn windows backend-recreated',
    ]);
  });

  it('a churn cell the lab cannot host is skipped and recorded with the plain cells', async () => {
    const recorded: string[] = [];
    const observer = {
      started: () => {},
      record: (r: CellResult) => recorded.push(`${r.title} ${r.verdict}`),
    };
    const runner = new CellRunner(
      urlDriver(() => OK),
      W1,
      { concurrency: 1, timeoutMs: 100, retries: 0 },
      observer,
    );
    const skipped = churnCell('gone', 'linux', 'backend-deleted', {
      probe: undefined,
      skip: 'no churn Service',
    });
    const plain = plainCell('plain');
    runner.prefetch([skipped, plain].map((plan) => ({ plan, expectation: expectOk })));
    await runner.result(plain, expectOk);
    expect(recorded).to.deep.equal(['gone skipped', 'plain pass']);
    expect(await runner.result(skipped, expectOk)).to.include({
      verdict: 'skipped',
      reason: 'no churn Service',
    });
  });

  it('a step the driver could not make fails its cells with the reason, keeping the profile reason', async () => {
    for (const [thrown, why] of [
      [new Error('pods stuck Terminating'), 'pods stuck Terminating'],
      ['exit 1', 'exit 1'],
    ] as const) {
      const runner = new CellRunner(churning({ step: 'backend-deleted', with: thrown }), W1, {
        concurrency: 1,
        timeoutMs: 100,
        retries: 0,
      });
      const plan = churnCell('lin', 'linux', 'backend-deleted');
      const expectation =
        thrown === 'exit 1' ? { expected: Outcome.Ok } : { expected: Outcome.Ok, reason: 'known' };
      runner.prefetch([{ plan, expectation }]);
      const result = await runner.result(plan, expectation);
      expect(result.reason).to.equal(expectation.reason);
      expect(Object.keys(result).includes('reason')).to.equal(expectation.reason !== undefined);
      expect(result).to.deep.include({
        verdict: 'fail',
        actual: Outcome.Error,
        detail: `churn step backend-deleted on the linux Service failed: ${why}`,
      });
    }
  });

  it('with a bound of 0 a churn cell that passed on a retry is flaky like any other; one still settling is not', async () => {
    for (const [settleMs, flaky] of [
      [0, true],
      [50, false],
    ] as const) {
      let calls = 0;
      const driver = churning();
      Object.assign(driver, { churnSettleMs: settleMs });
      driver.probeFromPod = () =>
        Promise.resolve(++calls === 1 ? { result: 'timeout' as const, error: 'no answer' } : OK);
      const runner = new CellRunner(driver, W1, { concurrency: 1, timeoutMs: 100, retries: 1 });
      const plan = churnCell('lin', 'linux', 'backend-deleted');
      runner.prefetch([{ plan, expectation: expectOk }]);
      const result = await runner.result(plan, expectOk);
      expect(result.verdict, `settle ${settleMs}`).to.equal('pass');
      expect(result.flags?.flaky !== undefined, `settle ${settleMs}`).to.equal(flaky);
    }
  });
});
