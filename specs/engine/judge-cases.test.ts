/** The judge's broad cases: each probe failure, each check kind's pass and fail, and the verdict. */
import { expect } from 'chai';
import { judgeReply, verdictOf } from './judge.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

describe('judge', () => {
  it('names each probe failure', () => {
    expect(judgeReply({ result: 'timeout' }, { kind: 'responds' }).outcome).to.equal(
      Outcome.Timeout,
    );
    expect(judgeReply({ result: 'refused' }, { kind: 'responds' }).outcome).to.equal(
      Outcome.Refused,
    );
    expect(judgeReply({ result: 'nxdomain' }, { kind: 'responds' }).outcome).to.equal(
      Outcome.NxDomain,
    );
    expect(judgeReply({ result: 'http-error', status: 503 }, { kind: 'responds' })).to.deep.equal({
      outcome: Outcome.Error,
      detail: 'http-error: HTTP 503',
    });
  });

  it('catches SNAT inside the cluster as wrong-source-ip', () => {
    const check = { kind: 'source-ip' as const, expect: '10.244.3.5' };
    expect(judgeReply({ result: 'ok', body: '10.244.3.5:40112' }, check).outcome).to.equal(
      Outcome.Ok,
    );
    const snat = judgeReply({ result: 'ok', body: '192.168.200.13:40112' }, check);
    expect(snat).to.deep.equal({
      outcome: Outcome.WrongSourceIp,
      detail: 'far end saw 192.168.200.13, expected 10.244.3.5',
    });
  });

  it('by name, a reply from a pod other than the one the name stands for is a wrong answer', () => {
    const check = { kind: 'source-ip' as const, expect: '10.244.3.5', peer: '10.244.2.7' };
    const right = { result: 'ok' as const, body: '10.244.3.5:40112', peer: '10.244.2.7' };
    expect(judgeReply(right, check).outcome).to.equal(Outcome.Ok);
    expect(judgeReply({ ...right, peer: '10.244.1.9' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'connected to 10.244.1.9, expected the target pod 10.244.2.7',
    });
    expect(judgeReply({ result: 'ok', body: '10.244.3.5:40112' }, check).outcome).to.equal(
      Outcome.WrongAnswer,
    );
  });

  it('checks DNS answers', () => {
    const check = { kind: 'answer' as const, expect: '10.96.0.20' };
    expect(judgeReply({ result: 'ok', addresses: ['10.96.0.20'] }, check).outcome).to.equal(
      Outcome.Ok,
    );
    expect(judgeReply({ result: 'ok', addresses: ['10.96.0.21'] }, check).outcome).to.equal(
      Outcome.WrongAnswer,
    );
  });

  it('a sweep passes only when every endpoint answered and saw the source pod', () => {
    const check = {
      kind: 'every-endpoint' as const,
      expect: ['web-a', 'web-b'],
      source: '10.244.3.5',
    };
    const a = { endpoint: 'web-a', client: '10.244.3.5' };
    const b = { endpoint: 'web-b', client: '10.244.3.5' };
    expect(judgeReply({ result: 'ok', answers: [a, a, b] }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'every endpoint answered in 3 requests (web-a, web-b), each saw 10.244.3.5',
    });
    expect(judgeReply({ result: 'ok', answers: [a, a, a] }, check)).to.deep.equal({
      outcome: Outcome.MissingEndpoint,
      detail: 'never answered: web-b; 3 requests answered by web-a',
    });
    expect(
      judgeReply({ result: 'ok', answers: [a, { ...b, client: '192.168.200.13' }] }, check),
    ).to.deep.equal({
      outcome: Outcome.WrongSourceIp,
      detail: 'web-b saw 192.168.200.13, expected 10.244.3.5',
    });
    // The first failed request fails the sweep, and the detail names who never answered.
    const failed = {
      result: 'timeout' as const,
      error: 'request 2 of 40: no answer',
      answers: [a],
    };
    expect(judgeReply(failed, check)).to.deep.equal({
      outcome: Outcome.Timeout,
      detail:
        'timeout: request 2 of 40: no answer; never answered: web-b; 1 request answered by web-a',
    });
    // From outside, only who answered counts.
    const outside = { kind: 'every-endpoint' as const, expect: ['web-a', 'web-b'] };
    const masqueraded = [a, { endpoint: 'web-b', client: '10.244.1.0' }];
    expect(judgeReply({ result: 'ok', answers: masqueraded }, outside).outcome).to.equal(
      Outcome.Ok,
    );
  });

  it('a sweep with `only` fails when any other endpoint answered (Local traffic policy)', () => {
    const check = {
      kind: 'every-endpoint' as const,
      expect: ['web-a'],
      source: '192.168.200.1',
      only: true,
    };
    const a = { endpoint: 'web-a', client: '192.168.200.1' };
    expect(judgeReply({ result: 'ok', answers: [a, a, a] }, check).outcome).to.equal(Outcome.Ok);
    expect(
      judgeReply(
        { result: 'ok', answers: [a, { endpoint: 'web-b', client: '192.168.200.1' }] },
        check,
      ),
    ).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'answered by web-b in 1 of 2 requests; only web-a may answer',
    });
  });

  it('a not-forwarded check passes on a drop or a refusal, and fails on any answer', () => {
    const check = { kind: 'not-forwarded' as const };
    expect(judgeReply({ result: 'timeout', error: 'no answer' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'not forwarded (timeout), as documented',
    });
    expect(judgeReply({ result: 'refused' }, check).outcome).to.equal(Outcome.Ok);
    // A node without a route for it (VMs with no way out) reports the drop as unreachable.
    expect(judgeReply({ result: 'unreachable', error: 'ENETUNREACH' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'not forwarded (unreachable), as documented',
    });
    expect(judgeReply({ result: 'unreachable' }, { kind: 'refused' })).to.deep.equal({
      outcome: Outcome.Unreachable,
      detail: 'unreachable',
    });
    expect(judgeReply({ result: 'ok', body: 'netexec-lin1-b' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'forwarded: answered by netexec-lin1-b; nothing may answer here',
    });
    expect(judgeReply({ result: 'error', error: 'exec failed' }, check).outcome).to.equal(
      Outcome.Error,
    );
  });

  it('turns outcomes into verdicts', () => {
    expect(verdictOf(Outcome.Ok, Outcome.Ok)).to.equal('pass');
    expect(verdictOf(Outcome.Ok, Outcome.Timeout)).to.equal('fail');
    expect(verdictOf(Outcome.Timeout, Outcome.Timeout)).to.equal('expected-failure');
    expect(verdictOf(Outcome.Timeout, Outcome.Ok)).to.equal('unexpected-pass');
    expect(verdictOf(Outcome.Timeout, Outcome.Refused)).to.equal('fail');
  });
});
