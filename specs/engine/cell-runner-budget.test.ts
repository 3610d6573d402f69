import { expect } from 'chai';
import type { LabDriver, ProbeReply, ProbeRequest, Workloads } from '../model/lab-driver.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { CellRunner } from './cell-runner.ts';
import { budgetSettings } from './suite-settings.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';

/** A driver whose replies come from a script per URL, in order; the last one repeats. */
function scriptedDriver(script: Record<string, ProbeReply[]>): LabDriver & { asked: string[] } {
  const asked: string[] = [];
  const next = (request: ProbeRequest): Promise<ProbeReply> => {
    const url = request.kind === 'http' ? request.url : '';
    asked.push(url);
    const replies = script[url] ?? [{ result: 'ok', body: '10.0.0.1:1', ms: 2 }];
    return Promise.resolve(replies.length > 1 ? replies.shift()! : replies[0]!);
  };
  return {
    asked,
    info: {} as LabDriver['info'],
    nodes: [],
    checkReady: () => Promise.resolve(),
    deploy: () => Promise.resolve({} as Workloads),
    probeFromPod: (_pod, request) => next(request),
    probeFromOutside: (request) => next(request),
    probeFromNode: (_node, request) => next(request),
    cleanup: () => Promise.resolve(),
    pending: () => [],
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

const W = fakeWorkloads([{ name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' }]);
const from = W.pods[0]!;

function cell(id: string, check?: ProbeSpec['check']): CellPlan {
  const end = { os: 'linux' as const, node: id, label: 'linux pod' };
  return {
    meta: {
      row: 'pod-to-pod/linux-to-linux',
      cell: `pod-to-pod/linux-to-linux/cross-node/${id}/x/ip`,
      title: id,
      source: end,
      target: end,
      via: 'ip',
      placement: 'cross-node',
    },
    probe: () => ({
      from: from.name,
      request: { kind: 'http', url: `http://${id}/clientip` },
      check: check ?? { kind: 'source-ip', expect: '10.0.0.1' },
    }),
  };
}

const ok = (ms: number): ProbeReply => ({ result: 'ok', body: '10.0.0.1:1', ms });

async function run(
  script: Record<string, ProbeReply[]>,
  env: NodeJS.ProcessEnv = {},
  checks: Record<string, ProbeSpec['check']> = {},
) {
  const driver = scriptedDriver(script);
  const budget = budgetSettings(env, { slow: 'fail' });
  const runner = new CellRunner(driver, W, { concurrency: 2, timeoutMs: 100, retries: 2, budget });
  const cells = ['a', 'b', 'c', 'd', 'e'].map((id) => ({
    plan: cell(id, checks[id]),
    expectation: { expected: Outcome.Ok },
  }));
  runner.prefetch(cells);
  const results = await Promise.all(cells.map((c) => runner.result(c.plan, c.expectation)));
  return { results: new Map(results.map((r) => [r.title, r])), asked: driver.asked };
}

describe('CellRunner: how well, not only whether', () => {
  it('records each cell’s timing from its probes', async () => {
    const { results } = await run({ 'http://a/clientip': [{ ...ok(3), connectMs: 1 }] });
    expect(results.get('a')!.timing).to.deep.equal({
      samples: 1,
      totalP50Ms: 3,
      totalMaxMs: 3,
      connectP50Ms: 1,
      connectMaxMs: 1,
    });
  });

  it('keeps a cell that passed only on a retry green but flaky, with the attempt that failed', async () => {
    const { results } = await run({
      'http://b/clientip': [{ result: 'timeout', error: 'no answer within 100 ms' }, ok(2)],
    });
    const b = results.get('b')!;
    expect(b).to.include({ verdict: 'pass', attempts: 2 });
    expect(b.flags?.flaky).to.deep.equal({
      failed: 1,
      attempts: 2,
      fraction: 0.5,
      what: 'attempts',
    });
    expect(b.failedAttempts?.map((a) => a.outcome)).to.deep.equal(['timeout']);
    expect(results.get('a')!.flags).to.equal(undefined);
  });

  it('fails a flaky cell under FLAKY=fail, with the failed attempt’s outcome', async () => {
    const { results } = await run(
      { 'http://b/clientip': [{ result: 'refused', error: 'ECONNREFUSED' }, ok(2)] },
      { FLAKY: 'fail' },
    );
    expect(results.get('b')).to.include({ verdict: 'fail', actual: 'refused' });
    expect(results.get('b')!.detail).to.match(/^flaky: 1 of 2 attempts failed/);
  });

  it('measures a cell that looked slow again, and one late sample flags nothing', async () => {
    const { results, asked } = await run({ 'http://e/clientip': [ok(900), ok(2)] });
    expect(asked.filter((u) => u === 'http://e/clientip')).to.have.length(4);
    const e = results.get('e')!;
    expect(e).to.include({ verdict: 'pass', attempts: 4 });
    expect(e.timing).to.include({ samples: 4, totalP50Ms: 2, totalMaxMs: 900 });
    expect(e.flags).to.equal(undefined);
  });

  it('fails a cell that stays slow (strict), naming measure and baseline', async () => {
    const { results } = await run({ 'http://e/clientip': [ok(900)] });
    const e = results.get('e')!;
    expect(e).to.include({ verdict: 'fail', actual: Outcome.Slow });
    expect(e.flags?.slow).to.include({ measure: 'total-p50', value: 900, baseline: 2 });
    expect(e.detail).to.match(/^slow: total-p50 900 ms is 450× the baseline 2 ms \(median of 4 /);
    expect([...results.values()].filter((r) => r.verdict !== 'pass')).to.have.length(1);
  });

  it('times no cell that passes on nothing answering: its wait is no request, so it is never slow', async () => {
    const unanswered: ProbeReply = { result: 'timeout', error: 'timed out', ms: 1000 };
    const { results, asked } = await run(
      { 'http://e/clientip': [unanswered] },
      {},
      {
        e: { kind: 'not-forwarded' },
      },
    );
    const e = results.get('e')!;
    expect(e).to.include({ verdict: 'pass', actual: 'ok', attempts: 1 });
    expect(e.timing).to.equal(undefined);
    expect(e.flags).to.equal(undefined);
    expect(asked.filter((u) => u === 'http://e/clientip')).to.have.length(1);
  });

  it('warns instead under SLOW=warn: the cell passes with its flag', async () => {
    const { results } = await run({ 'http://e/clientip': [ok(900)] }, { SLOW: 'warn' });
    expect(results.get('e')).to.include({ verdict: 'pass', actual: 'ok' });
    expect(results.get('e')!.flags?.slow?.value).to.equal(900);
  });
});

describe('CellRunner: confirming a slow cell', () => {
  it('a confirmation that fails is kept, and counts against the cell as flaky', async () => {
    const { results } = await run({
      'http://e/clientip': [ok(900), { result: 'timeout', error: 'no answer' }, ok(900)],
    });
    const e = results.get('e')!;
    expect(e).to.include({ attempts: 4, actual: Outcome.Slow });
    expect(e.failedAttempts).to.deep.equal([
      {
        outcome: Outcome.Timeout,
        detail: 'timeout: no answer',
        durationMs: e.failedAttempts![0]!.durationMs,
      },
    ]);
    expect(e.flags?.flaky).to.deep.equal({
      failed: 1,
      attempts: 4,
      fraction: 0.25,
      what: 'attempts',
    });
  });

  it('one failed attempt in twenty is within the flaky fraction (0.05), one in nineteen is not', async () => {
    const script = () => ({
      'http://e/clientip': [ok(900), { result: 'timeout' as const, error: 'no answer' }, ok(900)],
    });
    const twenty = (await run(script(), { SLOW_CONFIRMATIONS: '19' })).results.get('e')!;
    expect(twenty).to.include({ attempts: 20 });
    expect(twenty.failedAttempts).to.have.length(1);
    expect(twenty.flags?.flaky).to.equal(undefined);
    const nineteen = (await run(script(), { SLOW_CONFIRMATIONS: '18' })).results.get('e')!;
    expect(nineteen.flags?.flaky).to.include({ failed: 1, attempts: 19 });
  });

  it('keeps the failed attempt a retry hid before the cell was measured again, with a confirmation that failed', async () => {
    const { results } = await run({
      'http://e/clientip': [
        { result: 'timeout', error: 'first' },
        ok(900),
        { result: 'timeout', error: 'confirming' },
        ok(900),
      ],
    });
    const e = results.get('e')!;
    expect(e).to.include({ attempts: 5 });
    expect(e.failedAttempts?.map((a) => a.detail)).to.deep.equal([
      'timeout: first',
      'timeout: confirming',
    ]);
    expect(e.flags?.flaky).to.include({ failed: 2, attempts: 5 });
  });

  it('a cell confirmed without a failure has no failed attempts', async () => {
    const { results } = await run({ 'http://e/clientip': [ok(900)] });
    expect(results.get('e')).to.not.have.property('failedAttempts');
  });

  it('flags only cells measured again: one a re-measure made look slow stays as it was', async () => {
    // e looks slow and is measured again, fast; that lowers d's baseline below a fifth of d.
    const { results } = await run({
      'http://a/clientip': [ok(2)],
      'http://b/clientip': [ok(100)],
      'http://c/clientip': [ok(100)],
      'http://d/clientip': [ok(300)],
      'http://e/clientip': [ok(900), ok(2)],
    });
    expect([...results.values()].map((r) => [r.title, r.verdict, r.flags])).to.deep.equal([
      ['a', 'pass', undefined],
      ['b', 'pass', undefined],
      ['c', 'pass', undefined],
      ['d', 'pass', undefined],
      ['e', 'pass', undefined],
    ]);
  });
});

/** A perf cell measuring tcp-stream from `id` (GET http://<id>/, judged on what it measured). */
function perfCell(id: string): CellPlan {
  const end = { os: 'linux' as const, node: id, label: 'linux pod' };
  const row = 'perf/tcp-stream/pod/linux-to-linux';
  return {
    meta: {
      row,
      cell: `${row}/cross-node/${id}/x/ip`,
      title: id,
      source: end,
      target: end,
      via: 'ip',
      placement: 'cross-node',
    },
    probe: () => ({
      from: from.name,
      request: { kind: 'http', url: `http://${id}/` },
      check: { kind: 'measured' },
    }),
  };
}

const stream = (mbps: number, failed = 0, attempts = 1): ProbeReply => ({
  result: 'ok',
  perf: { measure: 'tcp-stream', durationMs: 250, mbps, failed, attempts },
});

/** Perf cells a, b, c and one plain cell, their replies scripted; `budget: false` runs without one. */
async function perfRun(script: Record<string, ProbeReply[]>, env: NodeJS.ProcessEnv | false = {}) {
  const driver = scriptedDriver({
    'http://a/': [stream(2000)],
    'http://b/': [stream(2000)],
    ...script,
  });
  const budget = env === false ? undefined : budgetSettings(env, { slow: 'fail' });
  const runner = new CellRunner(driver, W, {
    concurrency: 2,
    timeoutMs: 100,
    retries: 0,
    ...(budget === undefined ? {} : { budget }),
  });
  const cells = [perfCell('a'), perfCell('b'), perfCell('c'), cell('plain')].map((plan) => ({
    plan,
    expectation: { expected: Outcome.Ok },
  }));
  runner.prefetch(cells);
  const results = await Promise.all(cells.map((c) => runner.result(c.plan, c.expectation)));
  return { results: new Map(results.map((r) => [r.title, r])), asked: driver.asked };
}

describe('CellRunner: perf cells against the run', () => {
  it('measures a slow stream once more; slow both times, it fails naming the baseline', async () => {
    const { results, asked } = await perfRun({ 'http://c/': [stream(1)] });
    const c = results.get('c')!;
    expect(asked.filter((u) => u === 'http://c/')).to.have.length(2);
    expect(c).to.deep.include({
      verdict: 'fail',
      actual: Outcome.Slow,
      attempts: 2,
      detail:
        'slow: tcp-stream 1 Mbit/s is 2000× the baseline 2000 Mbit/s (upper quartile of 2 tcp-stream pod linux-to-linux cross-node paths); netexec-lin1-a → http://c/: tcp-stream 1 Mbit/s',
    });
    expect(c.flags?.slow).to.include({ value: 1, baseline: 2000 });
    expect(results.get('a')).to.include({ verdict: 'pass', attempts: 1 });
    expect(results.get('a')!.flags).to.equal(undefined);
  });

  it('keeps the better of the two runs: fast the second time, it passes unflagged', async () => {
    const { results } = await perfRun({ 'http://c/': [stream(1), stream(1500)] });
    const c = results.get('c')!;
    expect(c).to.include({ verdict: 'pass', attempts: 2 });
    expect(c.perf?.mbps).to.equal(1500);
    expect(c.flags).to.equal(undefined);
  });

  it('SLOW=warn: a slow stream passes with its flag', async () => {
    const { results } = await perfRun({ 'http://c/': [stream(1)] }, { SLOW: 'warn' });
    expect(results.get('c')).to.include({ verdict: 'pass', actual: Outcome.Ok });
    expect(results.get('c')!.flags?.slow?.value).to.equal(1);
  });

  it('a lossy stream is flaky: it warns by default and fails under FLAKY=fail', async () => {
    const lossy = { 'http://c/': [stream(2000, 9, 10)] };
    const flaky = { failed: 9, attempts: 10, fraction: 0.9, what: 'requests' };
    const warned = (await perfRun(lossy)).results.get('c')!;
    expect(warned).to.include({ verdict: 'pass', actual: Outcome.Ok });
    expect(warned.flags).to.deep.equal({ flaky });
    const failed = (await perfRun(lossy, { FLAKY: 'fail' })).results.get('c')!;
    expect(failed).to.deep.include({
      verdict: 'fail',
      actual: Outcome.Flaky,
      flags: { flaky },
      detail:
        'flaky: 9 of 10 requests lost; netexec-lin1-a → http://c/: tcp-stream 2000 Mbit/s, 9 of 10 lost or failed',
    });
  });

  it('flags only a stream it measured again: one whose baseline rose when a suspect got faster stays green', async () => {
    // c looks slow (1 against 1000) and is fast when measured again (20000): a's and b's
    // baselines rise to 20000, which would flag them on their one run.
    const { results, asked } = await perfRun({
      'http://a/': [stream(150)],
      'http://b/': [stream(1000)],
      'http://c/': [stream(1), stream(20_000)],
    });
    expect(results.get('c')).to.include({ verdict: 'pass', attempts: 2 });
    for (const id of ['a', 'b']) {
      expect(
        asked.filter((u) => u === `http://${id}/`),
        id,
      ).to.have.length(1);
      expect(results.get(id), id).to.include({ verdict: 'pass', attempts: 1 });
      expect(results.get(id)!.flags, id).to.equal(undefined);
    }
  });

  it('without a budget nothing is measured again or flagged', async () => {
    const { results, asked } = await perfRun({ 'http://c/': [stream(1)] }, false);
    expect(asked.filter((u) => u === 'http://c/')).to.have.length(1);
    expect(results.get('c')).to.include({ verdict: 'pass', attempts: 1 });
    expect(results.get('c')!.flags).to.equal(undefined);
  });
});
