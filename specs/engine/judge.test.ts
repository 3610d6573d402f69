/** The verdict-deciding edges of judge.ts that judge-cases.test.ts's broad cases pass by (issue 36). */
import { expect } from 'chai';
import { judgeReply } from './judge.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

describe('judge: source address', () => {
  const check = { kind: 'source-ip' as const, expect: '10.244.3.5' };

  it('compares the whole address: one that only starts with the expected one is another pod', () => {
    expect(judgeReply({ result: 'ok', body: '10.244.3.50:40112' }, check)).to.deep.equal({
      outcome: Outcome.WrongSourceIp,
      detail: 'far end saw 10.244.3.50, expected 10.244.3.5',
    });
    expect(judgeReply({ result: 'ok', body: '110.244.3.5:40112' }, check).outcome).to.equal(
      Outcome.WrongSourceIp,
    );
  });

  it('reads IPv6 in brackets and a bare address without a port; nothing seen is named', () => {
    const v6 = { kind: 'source-ip' as const, expect: 'fd00:10:244::5' };
    expect(judgeReply({ result: 'ok', body: '[fd00:10:244::5]:40112' }, v6)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'far end saw fd00:10:244::5',
    });
    expect(judgeReply({ result: 'ok', body: ' 10.244.3.5\n' }, check).outcome).to.equal(Outcome.Ok);
    expect(judgeReply({ result: 'ok' }, check)).to.deep.equal({
      outcome: Outcome.WrongSourceIp,
      detail: 'far end saw (nothing), expected 10.244.3.5',
    });
  });
});

describe('judge: refused (a Service without endpoints under kube-proxy)', () => {
  const check = { kind: 'refused' as const };

  it('passes only on a refusal', () => {
    expect(judgeReply({ result: 'refused' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'not forwarded (refused), as documented',
    });
  });

  it('a timeout fails: a stale rule still sends the connection to an endpoint that is gone', () => {
    expect(
      judgeReply({ result: 'timeout', error: 'no answer within 3000 ms' }, check),
    ).to.deep.equal({
      outcome: Outcome.Timeout,
      detail:
        'timeout: nothing refused the connection, so some rule still sends it on (to an endpoint that is gone?): no answer within 3000 ms',
    });
    expect(judgeReply({ result: 'timeout' }, check).detail).to.match(/endpoint that is gone\?\)$/);
  });

  it('an answer fails as a wrong answer, naming who answered; other failures keep their name', () => {
    expect(judgeReply({ result: 'ok', body: 'netexec-lin1-b\n' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'forwarded: answered by netexec-lin1-b; nothing may answer here',
    });
    expect(judgeReply({ result: 'http-error', status: 503, body: '' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'forwarded: an answer came back; nothing may answer here',
    });
    expect(judgeReply({ result: 'unreachable', error: 'EHOSTUNREACH' }, check)).to.deep.equal({
      outcome: Outcome.Unreachable,
      detail: 'unreachable: EHOSTUNREACH',
    });
    expect(judgeReply({ result: 'nxdomain' }, check)).to.deep.equal({
      outcome: Outcome.NxDomain,
      detail: 'nxdomain',
    });
  });
});

describe('judge: endpoint sweeps', () => {
  const check = { kind: 'every-endpoint' as const, expect: ['web-a'] };

  it('a sweep that no endpoint answered misses every expected endpoint', () => {
    for (const reply of [{ result: 'ok' as const, answers: [] }, { result: 'ok' as const }]) {
      expect(judgeReply(reply, check), JSON.stringify(reply)).to.deep.equal({
        outcome: Outcome.MissingEndpoint,
        detail: 'never answered: web-a; 0 requests answered by no endpoint',
      });
    }
  });

  it('counts one request in the singular, and lists who answered once each, sorted', () => {
    const two = { kind: 'every-endpoint' as const, expect: ['web-a', 'web-b', 'web-c'] };
    const by = (endpoint: string) => ({ endpoint, client: '10.244.3.5' });
    expect(judgeReply({ result: 'ok', answers: [by('web-c')] }, two).detail).to.equal(
      'never answered: web-a, web-b; 1 request answered by web-c',
    );
    expect(
      judgeReply({ result: 'ok', answers: [by('web-c'), by('web-a'), by('web-c')] }, two).detail,
    ).to.equal('never answered: web-b; 3 requests answered by web-a, web-c');
  });

  it('names every endpoint that saw the wrong client once, whatever else is wrong', () => {
    const seen = { ...check, source: '10.244.3.5', only: true };
    const wrong = { endpoint: 'web-b', client: '' };
    expect(judgeReply({ result: 'ok', answers: [wrong, wrong] }, seen)).to.deep.equal({
      outcome: Outcome.WrongSourceIp,
      detail: 'web-b saw (nothing), expected 10.244.3.5',
    });
  });

  it('a failed request with no answers before it says so', () => {
    expect(
      judgeReply({ result: 'refused', error: 'request 1 of 4: ECONNREFUSED' }, check),
    ).to.deep.equal({
      outcome: Outcome.Refused,
      detail:
        'refused: request 1 of 4: ECONNREFUSED; never answered: web-a; 0 requests answered by no endpoint',
    });
  });
});
