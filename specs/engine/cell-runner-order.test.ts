/** CellRunner: the order cells start in, their slots and pauses, and what a result says. */
import { expect } from 'chai';
import { CellRunner } from './cell-runner.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';
import { OK, W1, expectOk, plainCell, urlDriver } from '../testing/cell-runner-fixtures.ts';

describe('CellRunner: order, slots and pauses', () => {
  it('starts the cells that pause first, then the rest in order; a probe that throws is not one', async () => {
    const driver = urlDriver(() => OK);
    const started: string[] = [];
    const observer = { started: (c: string) => started.push(c.split('/')[3]!), record: () => {} };
    const runner = new CellRunner(
      driver,
      W1,
      { concurrency: 1, timeoutMs: 100, retries: 0 },
      observer,
    );
    const cells = [
      plainCell('first'),
      plainCell('broken', {
        probe: () => {
          throw new Error('no such pod');
        },
      }),
      plainCell('pausing', {}, { again: { afterMs: 1 } }),
    ].map((plan) => ({ plan, expectation: expectOk }));
    runner.prefetch(cells);
    await Promise.allSettled(cells.map((c) => runner.result(c.plan, c.expectation)));
    expect(started).to.deep.equal(['pausing', 'first', 'broken']);
    expect(driver.log).to.deep.equal(['http://pausing/', 'http://first/', 'http://pausing/']);
  });

  it('a cell back from its pause waits for a slot, ahead of cells not yet started', async () => {
    const driver = urlDriver(
      () => OK,
      (url) => (url === 'http://pausing/' ? 0 : 30),
    );
    const runner = new CellRunner(driver, W1, { concurrency: 1, timeoutMs: 100, retries: 0 });
    const cells = [
      plainCell('pausing', {}, { again: { afterMs: 5 } }),
      plainCell('a'),
      plainCell('b'),
      plainCell('c'),
    ].map((plan) => ({ plan, expectation: expectOk }));
    runner.prefetch(cells);
    const results = await Promise.all(cells.map((c) => runner.result(c.plan, c.expectation)));
    expect(results.map((r) => r.verdict)).to.deep.equal(['pass', 'pass', 'pass', 'pass']);
    expect(driver.log).to.deep.equal([
      'http://pausing/',
      'http://a/',
      'http://pausing/',
      'http://b/',
      'http://c/',
    ]);
    // The slots all came back: two more cells still go one at a time.
    await Promise.all([
      runner.result(plainCell('d'), expectOk),
      runner.result(plainCell('e'), expectOk),
    ]);
    expect(driver.maxInFlight()).to.equal(1);
  });

  it('an error after the pause is named as such', async () => {
    let calls = 0;
    const driver = urlDriver(() =>
      ++calls === 1 ? OK : { result: 'timeout', error: 'no answer within 100 ms' },
    );
    const runner = new CellRunner(driver, W1, { concurrency: 1, timeoutMs: 100, retries: 0 });
    const result = await runner.result(plainCell('p', {}, { again: { afterMs: 1 } }), {
      expected: Outcome.Timeout,
    });
    expect(result.detail).to.equal(
      'netexec-lin1-a → http://p/: timeout: after the pause: no answer within 100 ms',
    ); // Without an error of its own the second reply adds none.
    let again = 0;
    const quiet = urlDriver(() => (++again === 1 ? OK : { result: 'timeout' }));
    const silent = await new CellRunner(quiet, W1, {
      concurrency: 1,
      timeoutMs: 100,
      retries: 0,
    }).result(plainCell('q', {}, { again: { afterMs: 1 } }), { expected: Outcome.Timeout });
    expect(silent.detail).to.equal('netexec-lin1-a → http://q/: timeout');
  });
});

describe('CellRunner: what a result says', () => {
  const settings = { concurrency: 1, timeoutMs: 100, retries: 2 };

  it('a cell that failed every attempt: the last is its verdict, the ones before it are kept', async () => {
    const driver = urlDriver(() => ({ result: 'timeout', error: 'no answer', ms: 100 }));
    const before = performance.now();
    const result = await new CellRunner(driver, W1, settings).result(plainCell('t'), {
      expected: Outcome.Ok,
      reason: 'documented',
    });
    const took = Math.ceil(performance.now() - before);
    expect(result.durationMs).to.be.at.most(took);
    expect(result.failedAttempts!.every((a) => a.durationMs <= took)).to.equal(true);
    expect({
      ...result,
      durationMs: 0,
      failedAttempts: result.failedAttempts!.map((a) => ({ ...a, durationMs: 0 })),
    }).to.deep.equal({
      row: 'pod-to-pod/linux-to-linux',
      cell: 'pod-to-pod/linux-to-linux/cross-node/t/lin2/ip',
      title: 't',
      source: { os: 'linux', node: 'lin1', label: 'linux pod' },
      target: { os: 'linux', node: 'lin1', label: 'linux pod' },
      via: 'ip',
      placement: 'cross-node',
      expected: Outcome.Ok,
      reason: 'documented',
      verdict: 'fail',
      actual: Outcome.Timeout,
      detail: 'netexec-lin1-a → http://t/: timeout: no answer',
      durationMs: 0,
      attempts: 3,
      failedAttempts: [
        { outcome: Outcome.Timeout, detail: 'timeout: no answer', durationMs: 0 },
        { outcome: Outcome.Timeout, detail: 'timeout: no answer', durationMs: 0 },
      ],
    });
  });

  it('a passing cell has its timing, no failed attempts, and its perf figures when it measured', async () => {
    const perf = {
      measure: 'tcp-stream' as const,
      durationMs: 250,
      mbps: 9,
      failed: 0,
      attempts: 1,
    };
    const driver = urlDriver(() => ({ ...OK, ms: 4, perf }));
    const result = await new CellRunner(driver, W1, settings).result(plainCell('m'), expectOk);
    expect(result).to.deep.include({ verdict: 'pass', attempts: 1, perf });
    expect(result.timing).to.deep.equal({ samples: 1, totalP50Ms: 4, totalMaxMs: 4 });
    expect(result).to.not.have.property('failedAttempts');
    const untimed = await new CellRunner(
      urlDriver(() => OK),
      W1,
      settings,
    ).result(plainCell('u'), expectOk);
    for (const key of ['timing', 'failedAttempts', 'perf', 'reason'])
      expect(untimed).to.not.have.property(key);
  });

  it('a skipped cell without a reason of its own is "not applicable", with an empty detail', async () => {
    const runner = new CellRunner(
      urlDriver(() => OK),
      W1,
      settings,
    );
    const result = await runner.result(plainCell('s', { probe: undefined }), expectOk);
    expect(result).to.deep.include({
      verdict: 'skipped',
      reason: 'not applicable',
      detail: '',
      attempts: 0,
    });
  });

  it('names a tcp target as host:port', async () => {
    const driver = urlDriver(() => OK);
    const plan = plainCell('tcp', {}, { request: { kind: 'tcp', host: '10.0.0.9', port: 8080 } });
    const result = await new CellRunner(driver, W1, settings).result(plan, expectOk);
    expect(result.detail).to.match(/^netexec-lin1-a → 10\.0\.0\.9:8080: /);
  });

  it('lists the cells that ran a probe with it, and leaves out a skipped one', async () => {
    const runner = new CellRunner(
      urlDriver(() => OK),
      W1,
      settings,
    );
    await runner.result(plainCell('a'), expectOk);
    await runner.result(plainCell('s', { probe: undefined }), expectOk);
    const probed = await runner.probed();
    expect(probed.map((p) => [p.result.title, p.spec.request])).to.deep.equal([
      ['a', { kind: 'http', url: 'http://a/' }],
    ]);
  });
});
