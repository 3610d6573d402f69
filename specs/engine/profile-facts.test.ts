/** Profiles on a lab that does not say a fact a rule depends on: either way is accepted, and named. */
import { expect } from 'chai';
import { expectationFor, expectationMeta, loadProfile, settle, type Profile } from './profile.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';
import { CellRunner } from './cell-runner.ts';
import { W1, plainCell, urlDriver } from '../testing/cell-runner-fixtures.ts';

const LOCAL_WIN = 'nodeport-local/external-to-windows-node/win1/node-ip';
const ICMP_WIN = 'icmp-outbound/windows/win1/ip';

describe('profiles: a fact the lab does not say', () => {
  for (const name of ['strict', 'known-limitations']) {
    const profile = loadProfile(name);

    it(`${name}: unknown Windows DSR accepts ok (DSR on) and wrong-source-ip (DSR off)`, () => {
      const e = expectationFor(profile, LOCAL_WIN);
      expect(e.expected).to.equal(Outcome.Ok);
      expect(e.assuming).to.equal('with Windows DSR on');
      expect(e.reason).to.equal(
        'Windows DSR is not known on this cluster (WINDOWS_DSR=on|off states it); with Windows DSR on this cell is expected ok',
      );
      expect(e.otherwise).to.have.length(1);
      const off = e.otherwise![0]!;
      expect(off.expected).to.equal(Outcome.WrongSourceIp);
      expect(off.assuming).to.equal('with Windows DSR off');
      expect(off.reason).to.match(
        /^Windows DSR is not known on this cluster \(WINDOWS_DSR=on\|off states it\); with Windows DSR off this cell is expected wrong-source-ip: .*DSR.*\(https:\/\//,
      );
    });

    it(`${name}: a lab that says its DSR gets one expectation, as before`, () => {
      expect(expectationFor(profile, LOCAL_WIN, { windowsDsr: true })).to.deep.equal({
        expected: Outcome.Ok,
      });
      const off = expectationFor(profile, LOCAL_WIN, { windowsDsr: false });
      expect(off.expected).to.equal(Outcome.WrongSourceIp);
      expect(off).to.not.have.property('otherwise');
      expect(off).to.not.have.property('assuming');
    });

    it(`${name}: Windows ping out times out through NAT, works without, either under report`, () => {
      // Labs the harness made (no outboundNat) and OUTBOUND_NAT=node: NATed, as before.
      for (const lab of [{}, { outboundNat: 'node' as const }]) {
        const e = expectationFor(profile, ICMP_WIN, lab);
        expect(e.expected).to.equal(Outcome.Timeout);
        expect(e.reason).to.contain('ICMP');
        expect(e).to.not.have.property('otherwise');
      }
      expect(expectationFor(profile, ICMP_WIN, { outboundNat: 'preserve' })).to.deep.equal({
        expected: Outcome.Ok,
      });
      const report = expectationFor(profile, ICMP_WIN, { outboundNat: 'report' });
      expect(report.expected).to.equal(Outcome.Ok);
      expect(report.assuming).to.equal('without outbound NAT');
      expect(report.reason).to.contain('OUTBOUND_NAT=report');
      expect(report.otherwise!.map((o) => [o.expected, o.assuming])).to.deep.equal([
        [Outcome.Timeout, 'through outbound NAT'],
      ]);
    });

    it(`${name}: cells no rule with a condition names are untouched by unknown facts`, () => {
      expect(
        expectationFor(profile, 'icmp-outbound/linux/lin1/ip', { outboundNat: 'report' }),
      ).to.deep.equal({ expected: Outcome.Ok });
      expect(expectationFor(profile, 'host-network-to-own-nodeport/windows/win1/node-ip'))
        .to.have.property('expected', Outcome.Timeout)
        .and.not.to.have.property('otherwise');
    });
  }

  it('a fact unknown whose two ways expect the same outcome is no alternative', () => {
    const profile: Profile = {
      name: 'p',
      description: 'p',
      unexpectedPass: 'fail',
      expectations: [
        { cells: 'a/**', when: { windowsDsr: false }, expect: Outcome.Timeout, reason: 'off' },
        { cells: 'a/**', expect: Outcome.Timeout, reason: 'always' },
      ],
    };
    expect(expectationFor(profile, 'a/b')).to.deep.equal({
      expected: Outcome.Timeout,
      reason: 'always',
    });
    expect(expectationFor(profile, 'a/b', { windowsDsr: false }).reason).to.equal('off');
  });

  it('a rule naming two facts applies only where both match', () => {
    const profile: Profile = {
      name: 'p',
      description: 'p',
      unexpectedPass: 'fail',
      expectations: [
        {
          cells: 'a/**',
          when: { windowsDsr: true, outboundNat: true },
          expect: Outcome.Refused,
          reason: 'both',
        },
      ],
    };
    expect(expectationFor(profile, 'a/b', { windowsDsr: true }).expected).to.equal(Outcome.Refused);
    expect(expectationFor(profile, 'a/b', { windowsDsr: false }).expected).to.equal(Outcome.Ok);
    expect(
      expectationFor(profile, 'a/b', { windowsDsr: true, outboundNat: 'preserve' }).expected,
    ).to.equal(Outcome.Ok);
  });

  it('settles on the way the cell went, and names it', () => {
    const e = expectationFor(loadProfile('strict'), LOCAL_WIN);
    expect(settle(e, Outcome.Ok)).to.deep.equal({
      ...expectationMeta(e),
      verdict: 'pass',
      seen: 'ok, as with Windows DSR on',
    });
    const off = settle(e, Outcome.WrongSourceIp);
    expect(off).to.deep.include({
      expected: Outcome.WrongSourceIp,
      verdict: 'expected-failure',
      seen: 'wrong-source-ip, as with Windows DSR off',
    });
    expect(off.reason).to.contain('with Windows DSR off');
    // Neither way: judged against the first, unnamed.
    expect(settle(e, Outcome.Timeout)).to.deep.equal({
      ...expectationMeta(e),
      verdict: 'fail',
    });
    // A known fact: as verdictOf always did.
    expect(settle({ expected: Outcome.Timeout, reason: 'r' }, Outcome.Ok)).to.deep.equal({
      expected: Outcome.Timeout,
      reason: 'r',
      verdict: 'unexpected-pass',
    });
    expect(expectationMeta({ expected: Outcome.Ok })).to.deep.equal({ expected: Outcome.Ok });
  });

  it('a cell that went the other way is an expected failure at once, its detail naming the way', async () => {
    const driver = urlDriver(() => ({ result: 'ok', body: '10.0.0.9:5000' }));
    const runner = new CellRunner(driver, W1, { concurrency: 1, timeoutMs: 100, retries: 2 });
    const expectation = expectationFor(loadProfile('strict'), LOCAL_WIN);
    const result = await runner.result(
      plainCell('dsr', {}, { check: { kind: 'source-ip', expect: '192.0.2.7' } }),
      expectation,
    );
    expect(result).to.deep.include({
      verdict: 'expected-failure',
      expected: Outcome.WrongSourceIp,
      actual: Outcome.WrongSourceIp,
      attempts: 1,
    });
    expect(result.detail).to.equal(
      'netexec-lin1-a → http://dsr/: far end saw 10.0.0.9, expected 192.0.2.7 (wrong-source-ip, as with Windows DSR off)',
    );
    expect(result).to.not.have.property('failedAttempts');
    expect(result).to.not.have.property('otherwise');
    const on = await runner.result(
      plainCell('dsr-on', {}, { check: { kind: 'source-ip', expect: '10.0.0.9' } }),
      expectation,
    );
    expect(on).to.deep.include({ verdict: 'pass', expected: Outcome.Ok, attempts: 1 });
    expect(on.detail).to.match(/far end saw 10\.0\.0\.9 \(ok, as with Windows DSR on\)$/);
  });

  it('a cell that went neither way is retried and fails against the first', async () => {
    const driver = urlDriver(() => ({ result: 'timeout' }));
    const runner = new CellRunner(driver, W1, { concurrency: 1, timeoutMs: 100, retries: 2 });
    const result = await runner.result(
      plainCell('t', {}, { check: { kind: 'source-ip', expect: '192.0.2.7' } }),
      expectationFor(loadProfile('strict'), LOCAL_WIN),
    );
    expect(result).to.deep.include({ verdict: 'fail', expected: Outcome.Ok, attempts: 3 });
    expect(result.detail).to.equal('netexec-lin1-a → http://t/: timeout');
    expect(result.failedAttempts).to.have.length(2);
  });
});
