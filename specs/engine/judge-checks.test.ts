/** Each check kind of judge.ts on the replies that tell a right verdict from a wrong one (issue 36). */
import { expect } from 'chai';
import { judgeReply } from './judge.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

const LONG = `${'x'.repeat(60)}TAIL`;

describe('judge: a failed probe', () => {
  it('names the HTTP status when no error text came with it, and nothing when neither did', () => {
    expect(judgeReply({ result: 'http-error', status: 503 }, { kind: 'responds' })).to.deep.equal({
      outcome: Outcome.Error,
      detail: 'http-error: HTTP 503',
    });
    expect(judgeReply({ result: 'timeout' }, { kind: 'responds' })).to.deep.equal({
      outcome: Outcome.Timeout,
      detail: 'timeout',
    });
  });
});

describe('judge: source-ip', () => {
  const check = { kind: 'source-ip' as const, expect: '10.244.3.5' };

  it('checks which pod it connected to only when the cell names one', () => {
    const reply = { result: 'ok' as const, body: '10.244.3.5:4000', peer: '10.96.0.10' };
    expect(judgeReply(reply, check).outcome).to.equal(Outcome.Ok);
    expect(judgeReply(reply, { ...check, peer: '10.244.1.7' })).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'connected to 10.96.0.10, expected the target pod 10.244.1.7',
    });
    expect(judgeReply({ result: 'ok', body: '10.244.3.5:4000' }, { ...check, peer: '10.244.1.7' }))
      .to.have.property('detail')
      .that.equals('connected to (the probe did not say), expected the target pod 10.244.1.7');
  });

  it('shows a body that is no ADDRESS:PORT as it came, not the address inside it', () => {
    expect(judgeReply({ result: 'ok', body: ']10.244.3.5:4000' }, check)).to.deep.equal({
      outcome: Outcome.WrongSourceIp,
      detail: 'far end saw ]10.244.3.5:4000, expected 10.244.3.5',
    });
  });
});

describe('judge: answer (a DNS lookup)', () => {
  const check = { kind: 'answer' as const, expect: '10.96.0.10' };

  it('passes when the expected address is among the answers, listing them all', () => {
    expect(
      judgeReply({ result: 'ok', addresses: ['10.96.0.9', '10.96.0.10'] }, check),
    ).to.deep.equal({ outcome: Outcome.Ok, detail: 'answered 10.96.0.9, 10.96.0.10' });
  });

  it('fails naming what answered, or nothing', () => {
    expect(
      judgeReply({ result: 'ok', addresses: ['10.96.0.1', '10.96.0.2'] }, check),
    ).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'answered 10.96.0.1, 10.96.0.2, expected 10.96.0.10',
    });
    expect(judgeReply({ result: 'ok' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'answered nothing, expected 10.96.0.10',
    });
  });
});

describe('judge: echo-reply (ping)', () => {
  const check = { kind: 'echo-reply' as const, from: '10.244.1.7' };

  it('passes only on a reply from the pinged address', () => {
    expect(judgeReply({ result: 'ok', peer: '10.244.1.7' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'echo reply from 10.244.1.7',
    });
    expect(judgeReply({ result: 'ok', peer: '10.244.1.8' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'echo reply from 10.244.1.8, expected 10.244.1.7',
    });
    expect(judgeReply({ result: 'ok' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'echo reply from (no address), expected 10.244.1.7',
    });
  });
});

describe('judge: bytes (a transfer)', () => {
  const check = { kind: 'bytes' as const, expect: 1048576 };

  it('passes on every byte and fails on fewer, or none counted', () => {
    expect(judgeReply({ result: 'ok', bytes: 1048576 }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'received all 1048576 bytes',
    });
    expect(judgeReply({ result: 'ok', bytes: 65536 }, check)).to.deep.equal({
      outcome: Outcome.Error,
      detail: 'received 65536 of 1048576 bytes',
    });
    expect(judgeReply({ result: 'ok' }, check)).to.deep.equal({
      outcome: Outcome.Error,
      detail: 'received 0 of 1048576 bytes',
    });
  });
});

describe('judge: body and responds', () => {
  it('body: passes on the expected body, whitespace around it aside', () => {
    expect(
      judgeReply({ result: 'ok', body: ' web-a\n' }, { kind: 'body', expect: 'web-a' }),
    ).to.deep.equal({ outcome: Outcome.Ok, detail: 'web-a answered' });
  });

  it('body: another body is a wrong answer, shown cut to 60 characters', () => {
    expect(
      judgeReply({ result: 'ok', body: LONG }, { kind: 'body', expect: 'web-a' }),
    ).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: `answered "${'x'.repeat(60)}", expected web-a`,
    });
    expect(judgeReply({ result: 'ok' }, { kind: 'body', expect: 'web-a' })).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'answered "", expected web-a',
    });
  });

  it('responds: any answer passes, shown cut to 60 characters', () => {
    expect(judgeReply({ result: 'ok', body: LONG }, { kind: 'responds' })).to.deep.equal({
      outcome: Outcome.Ok,
      detail: `answered "${'x'.repeat(60)}"`,
    });
    expect(judgeReply({ result: 'ok' }, { kind: 'responds' }).detail).to.equal('answered ""');
  });

  it('not-forwarded: an answer is shown cut to 60 characters', () => {
    expect(judgeReply({ result: 'ok', body: LONG }, { kind: 'not-forwarded' }).detail).to.equal(
      `forwarded: answered by ${'x'.repeat(60)}; nothing may answer here`,
    );
    expect(judgeReply({ result: 'ok' }, { kind: 'not-forwarded' })).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'forwarded: an answer came back; nothing may answer here',
    });
  });
});

describe('judge: endpoint sweeps, the edges', () => {
  const by = (endpoint: string, client = '10.244.3.5') => ({ endpoint, client });

  it('a sweep that failed after every endpoint answered names no endpoint as missing', () => {
    const check = { kind: 'every-endpoint' as const, expect: ['web-a'] };
    expect(
      judgeReply({ result: 'refused', error: 'request 2 of 4', answers: [by('web-a')] }, check),
    ).to.deep.equal({
      outcome: Outcome.Refused,
      detail: 'refused: request 2 of 4; 1 request answered by web-a',
    });
  });

  it('names each endpoint that saw the wrong client', () => {
    const check = { kind: 'every-endpoint' as const, expect: ['a', 'b'], source: '10.0.0.1' };
    expect(judgeReply({ result: 'ok', answers: [by('a'), by('b')] }, check).detail).to.equal(
      'a saw 10.244.3.5, b saw 10.244.3.5, expected 10.0.0.1',
    );
  });

  it('a stranger answering fails only a cell that says only the expected may answer', () => {
    const check = { kind: 'every-endpoint' as const, expect: ['a', 'b'] };
    const answers = [by('z'), by('a'), by('y'), by('b')];
    expect(judgeReply({ result: 'ok', answers }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'every endpoint answered in 4 requests (a, b)',
    });
    expect(judgeReply({ result: 'ok', answers }, { ...check, only: true })).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'answered by y, z in 2 of 4 requests; only a, b may answer',
    });
  });

  it('a pass says which client each endpoint saw when the cell checks it', () => {
    const check = { kind: 'every-endpoint' as const, expect: ['a'], source: '10.244.3.5' };
    expect(judgeReply({ result: 'ok', answers: [by('a')] }, check).detail).to.equal(
      'every endpoint answered in 1 requests (a), each saw 10.244.3.5',
    );
  });
});

describe('judge: measured (perf cells)', () => {
  const check = { kind: 'measured' as const };
  const base = { measure: 'tcp-rr' as const, durationMs: 250, failed: 0, attempts: 100 };

  it('is ok with the figures in one line: a stream its rate, rr its rate and percentiles', () => {
    const stream = { ...base, measure: 'tcp-stream' as const, mbps: 940, attempts: 1 };
    expect(judgeReply({ result: 'ok', perf: stream }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'tcp-stream 940 Mbit/s',
    });
    const rr = { ...base, ratePerS: 400, p50Ms: 0.6, p90Ms: 1.2, p99Ms: 3.4 };
    expect(judgeReply({ result: 'ok', perf: rr }, check).detail).to.equal(
      'tcp-rr 400/s, p50 0.6 ms, p90 1.2 ms, p99 3.4 ms',
    );
    expect(judgeReply({ result: 'ok', perf: { ...base, p50Ms: 0 } }, check).detail).to.equal(
      'tcp-rr 0/s, p50 0 ms, p90 ? ms, p99 ? ms',
    );
    expect(judgeReply({ result: 'ok', perf: base }, check).detail).to.equal(
      'tcp-rr 0/s, p50 ? ms, p90 ? ms, p99 ? ms',
    );
    expect(judgeReply({ result: 'ok' }, check).detail).to.equal('measured nothing');
  });

  it('says what was lost, retransmitted and who answered, only when there is something to say', () => {
    const lossy = {
      ...base,
      measure: 'udp-stream' as const,
      mbps: 3.5,
      failed: 12,
      attempts: 400,
      retransmitted: 7,
      sent: 900,
      backend: 'netexec-lin2-a',
    };
    expect(judgeReply({ result: 'ok', perf: lossy }, check).detail).to.equal(
      'udp-stream 3.5 Mbit/s, 12 of 400 lost or failed, 7 of 900 segments retransmitted (netexec-lin2-a answered)',
    );
    const unsent = { ...lossy, failed: 0, retransmitted: 1, sent: undefined, backend: undefined };
    expect(judgeReply({ result: 'ok', perf: unsent }, check).detail).to.equal(
      'udp-stream 3.5 Mbit/s, 1 of ? segments retransmitted',
    );
    const clean = { ...lossy, failed: 0, retransmitted: 0, backend: '' };
    expect(judgeReply({ result: 'ok', perf: clean }, check).detail).to.equal(
      'udp-stream 3.5 Mbit/s',
    );
  });
});

describe('judge: source-reported', () => {
  const check = { kind: 'source-reported' as const, pod: '10.244.3.5', node: '192.168.200.11' };

  it('passes whatever address the far end saw, naming whose it was', () => {
    expect(judgeReply({ result: 'ok', body: '192.168.200.11:4000' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'far end saw 192.168.200.11, the node IP: NATed to the node',
    });
    // The address without its port, as source-ip reads it.
    expect(judgeReply({ result: 'ok', body: '[10.244.3.5]:4000' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'far end saw 10.244.3.5, the pod IP: not NATed',
    });
    expect(judgeReply({ result: 'ok', body: '' }, check).outcome).to.equal(Outcome.WrongAnswer);
  });
});
