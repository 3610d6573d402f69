/** The Service-feature rows' checks (judge.ts) and their probes made twice around a pause (cell-runner.ts). */
import { expect } from 'chai';
import type { CellPlan } from '../model/cell-plan.ts';
import type { LabDriver, ProbeReply, ProbeRequest } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { CellRunner } from './cell-runner.ts';
import { judgeReply } from './judge.ts';

const runOf = (...endpoints: string[]): ProbeReply => ({
  result: 'ok',
  answers: endpoints.map((endpoint) => ({ endpoint, client: '10.244.1.10' })),
});
const times = (n: number, endpoint: string) => Array.from({ length: n }, () => endpoint);

describe('judge: the Service-feature checks', () => {
  const sticky = { kind: 'same-endpoint' as const, expect: ['a', 'b'], runs: [3] };
  const twice = { kind: 'same-endpoint' as const, expect: ['a', 'b'], runs: [1, 3] };

  it('same-endpoint: every run of N answers from one endpoint; the runs may differ', () => {
    expect(judgeReply(runOf('a', 'a', 'a'), sticky)).to.deep.equal({
      outcome: 'ok',
      detail: '3 new connections all answered by a',
    });
    expect(judgeReply(runOf('a', 'b', 'b', 'b'), twice).detail).to.equal(
      '1 new connection answered by a; after the timeout 3 all by b (another)',
    );
    expect(judgeReply(runOf('b', 'b', 'b', 'b'), twice).detail).to.include(
      '(the same, as it may be)',
    );
  });

  it('same-endpoint: one other answer in a run, a stranger, or a short sweep fail it', () => {
    expect(judgeReply(runOf('a', 'b', 'a'), sticky)).to.deep.equal({
      outcome: 'wrong-answer',
      detail: 'not sticky: 3 new connections answered by a (2), b (1)',
    });
    expect(judgeReply(runOf('a', 'b', 'a', 'b'), twice).detail).to.equal(
      'not sticky after the timeout: 3 new connections answered by a (1), b (2)',
    );
    expect(judgeReply(runOf('c', 'c', 'c'), sticky).outcome).to.equal('wrong-answer');
    expect(judgeReply(runOf('a', 'a'), sticky).outcome).to.equal('error');
    expect(judgeReply({ result: 'timeout', answers: [] }, sticky).outcome).to.equal('timeout');
  });

  it('same-endpoint: every detail names what was seen; a run without connections is never green', () => {
    expect(judgeReply(runOf('c', 'c', 'c'), sticky).detail).to.equal(
      'answered by c, not an endpoint of the Service (a, b)',
    );
    expect(judgeReply(runOf('a', 'c', 'c', 'c'), twice).detail).to.equal(
      'answered by c after the timeout, not an endpoint of the Service (a, b)',
    );
    expect(judgeReply(runOf('a', 'a'), twice).detail).to.equal('2 answers, expected 1 + 3');
    const thrice = { ...sticky, runs: [1, 1, 2] };
    expect(judgeReply(runOf('a', 'b', 'a', 'a'), thrice).detail).to.equal(
      '1 new connection answered by a; after the timeout 1 all by b (another); after the timeout 2 all by a (the same, as it may be)',
    );
    expect(judgeReply(runOf(), { ...sticky, runs: [] })).to.deep.equal({
      outcome: 'error',
      detail: 'no connections in a run: []',
    });
    expect(judgeReply(runOf('a', 'a'), { ...sticky, runs: [2, 0] })).to.deep.equal({
      outcome: 'error',
      detail: 'no connections in a run: [2, 0]',
    });
    expect(judgeReply(runOf('a'), { ...sticky, runs: [0, 1] }).outcome).to.equal('error');
  });

  const health = {
    kind: 'health-check' as const,
    status: 200,
    service: 'ns/health-linux',
    localEndpoints: 1,
  };
  const said = (status: number, localEndpoints: number, name = 'health-linux'): ProbeReply => ({
    result: status === 200 ? 'ok' : 'http-error',
    status,
    body: JSON.stringify({ service: { namespace: 'ns', name }, localEndpoints }, null, '\t'),
  });

  it("health-check: the status, the Service and the count must all be kube-proxy's", () => {
    expect(judgeReply(said(200, 1), health)).to.deep.equal({
      outcome: 'ok',
      detail: 'HTTP 200, ns/health-linux, localEndpoints 1',
    });
    // A 503 is this check's answer, not a failed request.
    expect(
      judgeReply(said(503, 0), { ...health, status: 503, localEndpoints: 0 }).outcome,
    ).to.equal('ok');
    expect(judgeReply(said(200, 2), health).outcome).to.equal('wrong-answer');
    expect(judgeReply(said(503, 0), health).outcome).to.equal('wrong-answer');
    expect(judgeReply(said(200, 1, 'health-windows'), health).outcome).to.equal('wrong-answer');
    expect(judgeReply({ result: 'ok', status: 200, body: 'ok' }, health).outcome).to.equal(
      'wrong-answer',
    );
    expect(judgeReply({ result: 'refused' }, health).outcome).to.equal('refused');
  });

  it('health-check: a status other than the expected one fails, however right the body', () => {
    const none = { ...health, status: 503, localEndpoints: 0 };
    expect(judgeReply({ ...said(200, 0) }, none)).to.deep.equal({
      outcome: 'wrong-answer',
      detail:
        'HTTP 200, ns/health-linux, localEndpoints 0; expected HTTP 503, ns/health-linux, localEndpoints 0',
    });
    expect(judgeReply({ result: 'ok', body: said(200, 1).body }, health).detail).to.equal(
      'HTTP ?, ns/health-linux, localEndpoints 1; expected HTTP 200, ns/health-linux, localEndpoints 1',
    );
  });

  it('health-check: a body that is not JSON is shown trimmed and cut at 60 characters', () => {
    expect(judgeReply({ result: 'ok', status: 200, body: '  not json \n' }, health)).to.deep.equal({
      outcome: 'wrong-answer',
      detail: 'HTTP 200 without JSON: "not json"',
    });
    expect(judgeReply({ result: 'ok', body: `<${'x'.repeat(100)}` }, health).detail).to.equal(
      `HTTP ? without JSON: "<${'x'.repeat(59)}"`,
    );
    expect(judgeReply({ result: 'ok', status: 200 }, health).detail).to.equal(
      'HTTP 200 without JSON: ""',
    );
  });

  it('a status with a failed request is the failure; a failed request without one is not an answer', () => {
    const check = { kind: 'http-answer' as const };
    expect(judgeReply({ result: 'timeout', status: 200, error: 'body cut' }, check)).to.deep.equal({
      outcome: 'timeout',
      detail: 'timeout: body cut',
    });
    expect(judgeReply({ result: 'timeout', status: 200 }, health).outcome).to.equal('timeout');
    expect(judgeReply({ result: 'http-error' }, check).outcome).to.equal('error');
    expect(judgeReply({ result: 'http-error' }, health).outcome).to.equal('error');
    // Other checks keep a non-2xx status a failed request.
    const body = { kind: 'body' as const, expect: 'x' };
    expect(judgeReply({ result: 'http-error', status: 500 }, body)).to.deep.equal({
      outcome: 'error',
      detail: 'http-error: HTTP 500',
    });
  });

  it('http-answer: the body shown trimmed, its blanks run together, cut at 80 characters', () => {
    const check = { kind: 'http-answer' as const };
    const body = ` {"kind":\n\n  "Status"}  ${'y'.repeat(100)}`;
    expect(judgeReply({ result: 'ok', status: 401, body }, check).detail).to.equal(
      `HTTP 401 ${JSON.stringify(`{"kind": "Status"} ${'y'.repeat(61)}`)}`,
    );
    expect(judgeReply({ result: 'ok' }, check).detail).to.equal('HTTP ? ""');
    // Without a peer to expect, any peer will do.
    expect(judgeReply({ result: 'ok', status: 200, peer: '10.0.0.9' }, check).outcome).to.equal(
      'ok',
    );
    const peer = { ...check, peer: '10.96.0.1' };
    expect(judgeReply({ result: 'ok', status: 200 }, peer)).to.deep.equal({
      outcome: 'wrong-answer',
      detail: 'connected to (the probe did not say), expected 10.96.0.1',
    });
    expect(judgeReply({ result: 'ok', status: 200, peer: '10.0.0.9' }, peer).detail).to.equal(
      'connected to 10.0.0.9, expected 10.96.0.1',
    );
  });

  it('http-answer: any status counts, from the right peer; no answer does not', () => {
    const check = { kind: 'http-answer' as const, peer: '10.96.0.1' };
    const forbidden: ProbeReply = {
      result: 'http-error',
      status: 403,
      body: '{"kind":"Status"}',
      peer: '10.96.0.1',
    };
    expect(judgeReply(forbidden, check)).to.deep.equal({
      outcome: 'ok',
      detail: 'HTTP 403 "{\\"kind\\":\\"Status\\"}"',
    });
    expect(judgeReply({ ...forbidden, peer: '10.96.0.9' }, check).outcome).to.equal('wrong-answer');
    expect(judgeReply({ result: 'timeout' }, check).outcome).to.equal('timeout');
    expect(judgeReply({ result: 'error', error: 'TLS handshake' }, check).outcome).to.equal(
      'error',
    );
  });

  it('body: without a peer to expect any peer will do; with one, the detail names both', () => {
    const check = { kind: 'body' as const, expect: 'external' };
    expect(
      judgeReply({ result: 'ok', body: 'external', peer: '10.0.0.9' }, check).outcome,
    ).to.equal('ok');
    const withPeer = { ...check, peer: '198.51.100.1' };
    expect(judgeReply({ result: 'ok', body: 'external' }, withPeer)).to.deep.equal({
      outcome: 'wrong-answer',
      detail: 'connected to (the probe did not say), expected 198.51.100.1',
    });
    expect(
      judgeReply({ result: 'ok', body: 'external', peer: '10.0.0.9' }, withPeer).detail,
    ).to.equal('connected to 10.0.0.9, expected 198.51.100.1');
  });

  it('body with a peer: the right body from another address is a wrong answer', () => {
    const check = { kind: 'body' as const, expect: 'external', peer: '198.51.100.1' };
    expect(
      judgeReply({ result: 'ok', body: 'external', peer: '198.51.100.1' }, check).outcome,
    ).to.equal('ok');
    expect(
      judgeReply({ result: 'ok', body: 'external', peer: '10.0.0.9' }, check).outcome,
    ).to.equal('wrong-answer');
  });
});

/** One probe as the driver got it. */
interface Sent {
  at: number;
  request: ProbeRequest;
  timeoutMs: number;
}

describe('CellRunner: a probe made again after a pause', () => {
  const nodes = [
    { name: 'n1', os: 'linux' as const, role: 'worker' as const, ip: '192.168.200.11' },
  ];
  const workloads = fakeWorkloads(nodes);

  function driver(replies: ProbeReply[], sent: Sent[]): LabDriver {
    return {
      info: {
        lab: 't',
        provider: 'netns',
        emulated: true,
        kubernetesVersion: '1.30.4',
        cni: 'x',
        osBuilds: {},
      },
      nodes,
      checkReady: () => Promise.resolve(),
      deploy: () => Promise.reject(new Error('unused')),
      probeFromPod: (_pod, request, timeoutMs) => {
        sent.push({ at: performance.now(), request, timeoutMs });
        return Promise.resolve(replies.shift() ?? { result: 'error', error: 'no reply left' });
      },
      probeFromOutside: () => Promise.resolve({ result: 'ok' }),
      probeFromNode: () => Promise.resolve({ result: 'ok' }),
      cleanup: () => Promise.resolve(),
      pending: () => [],
      [Symbol.asyncDispose]: () => Promise.resolve(),
    };
  }
  const end = { os: 'linux' as const, node: 'n1', label: 'linux pod' };
  const plan = (again?: { afterMs: number }, timeoutMs?: number): CellPlan => ({
    meta: {
      row: 'r',
      cell: 'c',
      title: 'c',
      source: end,
      target: end,
      via: 'cluster-ip',
      placement: '',
    },
    probe: () => ({
      from: 'netexec-n1-a',
      request: {
        kind: 'endpoints',
        base: 'http://10.96.3.30:80',
        service: 'affinity-linux',
        expect: ['a', 'b'],
        maxRequests: 3,
        minRequests: 3,
      },
      check: {
        kind: 'same-endpoint',
        expect: ['a', 'b'],
        runs: again === undefined ? [3] : [3, 3],
      },
      ...(again === undefined ? {} : { again }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    }),
  });
  const settings = { concurrency: 1, timeoutMs: 3000, retries: 0 };

  it('sends the request twice, the second after the pause, and judges both runs', async () => {
    const sent: Sent[] = [];
    const replies = [runOf(...times(3, 'a')), runOf(...times(3, 'b'))];
    const runner = new CellRunner(driver(replies, sent), workloads, settings);
    const result = await runner.result(plan({ afterMs: 120 }), { expected: 'ok' });
    expect(result.verdict).to.equal('pass');
    expect(result.detail).to.include('after the timeout 3 all by b (another)');
    expect(sent).to.have.length(2);
    expect(sent[1]!.at - sent[0]!.at).to.be.at.least(115);
  });

  it('judges the second run too: not sticky after the pause fails the cell', async () => {
    const replies = [runOf(...times(3, 'a')), runOf('a', 'b', 'a')];
    const runner = new CellRunner(driver(replies, []), workloads, settings);
    const result = await runner.result(plan({ afterMs: 1 }), { expected: 'ok' });
    expect(result).to.include({ verdict: 'fail', actual: 'wrong-answer' });
  });

  it('does not pause after a first run that failed', async () => {
    const sent: Sent[] = [];
    const runner = new CellRunner(driver([{ result: 'refused' }], sent), workloads, settings);
    const result = await runner.result(plan({ afterMs: 10_000 }), { expected: 'ok' });
    expect(result).to.include({ verdict: 'fail', actual: 'refused' });
    expect(sent).to.have.length(1);
  });

  it("gives up its slot during the pause: another cell's probe runs meanwhile", async () => {
    const sent: Sent[] = [];
    const replies = [runOf(...times(3, 'a')), runOf(...times(3, 'a')), runOf(...times(3, 'a'))];
    const runner = new CellRunner(driver(replies, sent), workloads, settings);
    const other = { ...plan(), meta: { ...plan().meta, cell: 'other' } };
    const paused = runner.result(plan({ afterMs: 150 }), { expected: 'ok' });
    const plain = runner.result(other, { expected: 'ok' });
    const [a, b] = await Promise.all([paused, plain]);
    expect([a.verdict, b.verdict]).to.deep.equal(['pass', 'pass']);
    // Concurrency 1: the other cell's probe went between the paused cell's two.
    expect(sent).to.have.length(3);
    expect(sent[2]!.at - sent[1]!.at).to.be.at.least(100);
  });

  it("a spec's own timeout replaces the run's", async () => {
    const sent: Sent[] = [];
    const runner = new CellRunner(driver([runOf('a', 'a', 'a')], sent), workloads, settings);
    await runner.result(plan(undefined, 1000), { expected: 'ok' });
    expect(sent[0]!.timeoutMs).to.equal(1000);
  });
});
