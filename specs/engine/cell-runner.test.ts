/** CellRunner with a lab that cannot carry a probe: an infrastructure error, never a verdict on the network. */
import { expect } from 'chai';
import type {
  LabDriver,
  ProbeReply,
  ProbeRequest,
  SuiteNode,
  Workloads,
} from '../model/lab-driver.ts';
import { NOT_FORWARDED_MS, type CellPlan, type ProbeSpec } from '../model/cell-plan.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { probeArgs } from '../drivers/probe-args.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { CellRunner } from './cell-runner.ts';
import { Outcome, type CellResult } from '../../lab/contracts/results-file.ts';
import type { ChurnStep } from '../../lab/contracts/cells.ts';

const NODES: SuiteNode[] = [
  { name: 'lin1', os: 'linux', role: 'control-plane', ip: '192.168.200.11' },
  { name: 'lin2', os: 'linux', role: 'worker', ip: '192.168.200.12' },
];

/**
 * A driver that hands every request to probe.mjs's argument builder (as the emulated driver and
 * probes from outside do) and answers every sweep as if it had run: what each request made of it.
 */
function argvDriver(seen: string[][]): LabDriver {
  const run = (request: ProbeRequest): Promise<ProbeReply> => {
    seen.push(probeArgs(request, 1000));
    return Promise.resolve({ result: 'ok', answers: [] });
  };
  return {
    info: {
      lab: 't',
      provider: 'netns',
      emulated: true,
      kubernetesVersion: '1.30.4',
      cni: 'flannel/vxlan',
      osBuilds: {},
    },
    nodes: NODES,
    checkReady: () => Promise.resolve(),
    deploy: () => Promise.reject(new Error('unused')),
    probeFromPod: (_pod, request) => run(request),
    probeFromOutside: (request) => run(request),
    probeFromNode: (_node, request) => run(request),
    cleanup: () => Promise.resolve(),
    pending: () => [],
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

describe('CellRunner: a Service without endpoints', () => {
  // The Linux Service's pods never came up: its endpoints, and so the sweep's expectation, are empty.
  const workloads = fakeWorkloads(NODES);
  workloads.pods = workloads.pods.filter((p) => !p.name.endsWith('-b'));
  const cells = expandCells(
    [{ kind: 'pod-to-service', from: 'linux', to: 'linux', vias: ['cluster-ip'] }],
    NODES,
  );
  const settings = { concurrency: 2, timeoutMs: 1000, retries: 2 };

  it('is an infrastructure error naming the Service, sent nowhere and never retried', async () => {
    const seen: string[][] = [];
    const runner = new CellRunner(argvDriver(seen), workloads, settings);
    expect(cells.length).to.be.above(0);
    for (const plan of cells) {
      const result = await runner.result(plan, { expected: Outcome.Ok });
      expect(result, plan.meta.cell).to.include({
        verdict: 'infra-error',
        actual: Outcome.Error,
        attempts: 1,
      });
      expect(result.detail).to.match(
        /^netexec-lin\d-a → http:\/\/10\.96\.0\.20:80: Service web-linux \(http:\/\/10\.96\.0\.20:80\) has no endpoint to expect: a sweep of none would pass without a request \(are its pods ready/,
      );
    }
    expect(seen).to.deep.equal([]);
  });

  it('once its endpoints are there, the same cells are swept and judged', async () => {
    const seen: string[][] = [];
    const runner = new CellRunner(argvDriver(seen), fakeWorkloads(NODES), settings);
    const result = await runner.result(cells[0]!, { expected: Outcome.Ok });
    expect(result.verdict).to.equal('fail');
    expect(result.actual).to.equal(Outcome.MissingEndpoint);
    expect(seen[0]).to.include.members(['--expect', 'netexec-lin1-b,netexec-lin2-b']);
  });

  it('any other error a driver throws is the probe failing, retried like one', async () => {
    const driver = argvDriver([]);
    let calls = 0;
    driver.probeFromPod = () => {
      calls++;
      return Promise.reject(calls === 1 ? new Error('exec API: 500') : new Error('again'));
    };
    const result = await new CellRunner(driver, fakeWorkloads(NODES), settings).result(cells[0]!, {
      expected: Outcome.Ok,
    });
    expect(result).to.include({ verdict: 'fail', actual: Outcome.Error, attempts: 3 });
    expect(result.detail).to.contain('the probe failed: Error: again');
  });

  it('an InfrastructureError without a hint reads as its message alone', async () => {
    const driver = argvDriver([]);
    driver.probeFromPod = () => Promise.reject(new InfrastructureError('node lin2 is gone'));
    const result = await new CellRunner(driver, fakeWorkloads(NODES), settings).result(cells[0]!, {
      expected: Outcome.Timeout,
    });
    expect(result).to.include({ verdict: 'infra-error', attempts: 1 });
    expect(result.detail).to.match(/: node lin2 is gone$/);
  });
});

describe('CellRunner: how long a probe may wait', () => {
  const cells = expandCells(
    [{ kind: 'pod-to-pod', from: 'linux', to: 'linux', vias: ['ip'], placements: ['cross-node'] }],
    NODES,
  );
  /** The timeout of each probe the driver was handed, for a cell expecting `expected`. */
  async function timeouts(expected: Outcome, timeoutMs: number, planned?: number) {
    const driver = argvDriver([]);
    const given: number[] = [];
    driver.probeFromPod = (_pod, _request, ms) => {
      given.push(ms);
      return Promise.resolve({ result: 'timeout', error: 'no answer' });
    };
    const plan = cells[0]!;
    const probe = plan.probe!;
    const withBound =
      planned === undefined
        ? plan
        : { ...plan, probe: (w: Workloads) => ({ ...probe(w), timeoutMs: planned }) };
    const runner = new CellRunner(driver, fakeWorkloads(NODES), {
      concurrency: 1,
      timeoutMs,
      retries: 0,
    });
    const result = await runner.result(withBound, { expected });
    return { given, verdict: result.verdict };
  }

  it('the run timeout for a cell expected to answer', async () => {
    expect(await timeouts(Outcome.Ok, 3000)).to.deep.equal({ given: [3000], verdict: 'fail' });
  });

  it('a cell expected to time out waits as long as one nothing may answer, never longer than the run timeout', async () => {
    expect(await timeouts(Outcome.Timeout, 3000)).to.deep.equal({
      given: [NOT_FORWARDED_MS],
      verdict: 'expected-failure',
    });
    expect((await timeouts(Outcome.Timeout, 400)).given).to.deep.equal([400]);
  });

  it("a cell's own bound is kept", async () => {
    expect((await timeouts(Outcome.Timeout, 3000, 2500)).given).to.deep.equal([2500]);
    expect((await timeouts(Outcome.Ok, 3000, 1200)).given).to.deep.equal([1200]);
  });
});

/** A driver answering each URL through `answer` (after `ms`), logging starts and the most in flight. */
function urlDriver(
  answer: (url: string) => ProbeReply,
  ms: (url: string) => number = () => 0,
): LabDriver & { log: string[]; maxInFlight: () => number } {
  const driver = argvDriver([]);
  const log: string[] = [];
  let inFlight = 0;
  let most = 0;
  const run = async (request: ProbeRequest): Promise<ProbeReply> => {
    const url = request.kind === 'http' ? request.url : request.kind;
    log.push(url);
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((r) => setTimeout(r, ms(url)));
    inFlight--;
    return answer(url);
  };
  return Object.assign(driver, {
    probeFromPod: (_pod: unknown, request: ProbeRequest) => run(request),
    log,
    maxInFlight: () => most,
  });
}

const W1 = fakeWorkloads(NODES);
const OK: ProbeReply = { result: 'ok', body: '10.244.1.5:40000' };

/** A Linux pod-to-pod cell `id` sending GET http://<id>/ (or `spec`'s request). */
function plainCell(
  id: string,
  patch: Partial<CellPlan> = {},
  spec: Partial<ProbeSpec> = {},
): CellPlan {
  const end = { os: 'linux' as const, node: 'lin1', label: 'linux pod' };
  return {
    meta: {
      row: 'pod-to-pod/linux-to-linux',
      cell: `pod-to-pod/linux-to-linux/cross-node/${id}/lin2/ip`,
      title: id,
      source: end,
      target: end,
      via: 'ip',
      placement: 'cross-node',
    },
    probe: () => ({
      from: W1.pods[0]!.name,
      request: { kind: 'http', url: `http://${id}/` },
      check: { kind: 'responds' },
      ...spec,
    }),
    ...patch,
  };
}

const expectOk = { expected: Outcome.Ok };

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
