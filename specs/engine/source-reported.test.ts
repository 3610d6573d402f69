import { expect } from 'chai';
import { judgeSourceReported, seenAddress } from './source-reported.ts';
import { judgeReply } from './judge.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

const check = { kind: 'source-reported' as const, pod: '10.244.1.5', node: '192.168.200.11' };

describe('source-reported: what the outbound echo saw, named', () => {
  it('reads the address from ADDRESS:PORT, [ADDRESS]:PORT and a bare address', () => {
    expect(seenAddress({ result: 'ok', body: ' 10.244.1.5:40000\n' })).to.equal('10.244.1.5');
    expect(seenAddress({ result: 'ok', body: '[fd00::5]:40000' })).to.equal('fd00::5');
    expect(seenAddress({ result: 'ok', body: '10.244.1.5' })).to.equal('10.244.1.5');
    expect(seenAddress({ result: 'ok' })).to.equal('');
  });

  it('passes whoever the far end saw, and names whose address it was', () => {
    const judge = (body: string) => judgeSourceReported({ result: 'ok', body }, check);
    expect(judge('10.244.1.5:40000')).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'far end saw 10.244.1.5, the pod IP: not NATed',
    });
    expect(judge('192.168.200.11:1024')).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'far end saw 192.168.200.11, the node IP: NATed to the node',
    });
    expect(judge('203.0.113.9:1024')).to.deep.equal({
      outcome: Outcome.Ok,
      detail:
        'far end saw 203.0.113.9, neither the pod IP nor the node IP: NATed on the way (a NAT gateway, a proxy?)',
    });
  });

  it('an answer without an address is no answer', () => {
    expect(judgeSourceReported({ result: 'ok', body: ' \n' }, check)).to.deep.equal({
      outcome: Outcome.WrongAnswer,
      detail: 'the far end answered without an address',
    });
  });

  it('is what the judge does with the check; a failed request stays a failure', () => {
    expect(judgeReply({ result: 'ok', body: '10.244.1.5:1' }, check)).to.deep.equal({
      outcome: Outcome.Ok,
      detail: 'far end saw 10.244.1.5, the pod IP: not NATed',
    });
    expect(judgeReply({ result: 'timeout', error: 'no answer' }, check)).to.deep.equal({
      outcome: Outcome.Timeout,
      detail: 'timeout: no answer',
    });
  });
});
