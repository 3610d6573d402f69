/** The outbound-NAT cells under OUTBOUND_NAT: the same cells, each mode its own check. */
import { expect } from 'chai';
import { expandCells } from './expand-cells.ts';
import { MATRIX } from './rows.ts';
import { HYBRID, workloads } from '../testing/expand-cells-fixtures.ts';
import { expectationFor, loadProfile, settle } from '../engine/profile.ts';
import { judgeReply } from '../engine/judge.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

const w = workloads(HYBRID);
const podIp = w.pods.find((p) => p.name === 'netexec-win2-a')!.ip;
const NAT_CELL = 'outbound-nat/windows/win2/ip';

function natCheck(outboundNat?: 'node' | 'preserve' | 'report') {
  const cells = expandCells(MATRIX, HYBRID, undefined, undefined, {
    ...(outboundNat === undefined ? {} : { outboundNat }),
  });
  return cells.find((c) => c.meta.cell === NAT_CELL)!.probe!(w).check;
}

describe('outbound-NAT cells under OUTBOUND_NAT', () => {
  it('keeps the same cells and ids in every mode', () => {
    const ids = (outboundNat?: 'node' | 'preserve' | 'report') =>
      expandCells(MATRIX, HYBRID, undefined, undefined, {
        ...(outboundNat === undefined ? {} : { outboundNat }),
      }).map((c) => c.meta);
    for (const mode of ['node', 'preserve', 'report'] as const)
      expect(ids(mode)).to.deep.equal(ids());
  });

  it('node (and unset): the echo must see the node IP; preserve: the pod IP; report: either, named', () => {
    expect(natCheck()).to.deep.equal({ kind: 'source-ip', expect: '192.168.200.14' });
    expect(natCheck('node')).to.deep.equal({ kind: 'source-ip', expect: '192.168.200.14' });
    expect(natCheck('preserve')).to.deep.equal({ kind: 'source-ip', expect: podIp });
    expect(natCheck('report')).to.deep.equal({
      kind: 'source-reported',
      pod: podIp,
      node: '192.168.200.14',
    });
  });

  it('a cluster that keeps the pod address: red under node, green under preserve and report', () => {
    const reply = { result: 'ok' as const, body: `${podIp}:41000` };
    const strict = loadProfile('strict');
    const verdict = (mode: 'node' | 'preserve' | 'report') => {
      const judged = judgeReply(reply, natCheck(mode));
      return [
        settle(expectationFor(strict, NAT_CELL, { outboundNat: mode }), judged.outcome).verdict,
        judged.detail,
      ];
    };
    expect(verdict('node')).to.deep.equal([
      'fail',
      `far end saw ${podIp}, expected 192.168.200.14`,
    ]);
    expect(verdict('preserve')).to.deep.equal(['pass', `far end saw ${podIp}`]);
    expect(verdict('report')).to.deep.equal([
      'pass',
      `far end saw ${podIp}, the pod IP: not NATed`,
    ]);
  });

  it('Windows ping out on a path that does not NAT passes under report, never an unexpected pass', () => {
    const cell = 'icmp-outbound/windows/win2/ip';
    const probe = expandCells(MATRIX, HYBRID, undefined, undefined, { outboundNat: 'report' }).find(
      (c) => c.meta.cell === cell,
    )!.probe!(w);
    const judged = judgeReply({ result: 'ok', peer: w.external.address }, probe.check);
    for (const profile of ['strict', 'known-limitations']) {
      const e = expectationFor(loadProfile(profile), cell, { outboundNat: 'report' });
      expect(settle(e, judged.outcome)).to.deep.include({
        verdict: 'pass',
        seen: 'ok, as without outbound NAT',
      });
      // NATed and untranslated, as documented: an expected failure, named so.
      expect(settle(e, Outcome.Timeout)).to.deep.include({
        verdict: 'expected-failure',
        seen: 'timeout, as through outbound NAT',
      });
      // On the project's labs (NATed): still an unexpected pass, as before.
      expect(settle(expectationFor(loadProfile(profile), cell), judged.outcome).verdict).to.equal(
        'unexpected-pass',
      );
    }
  });
});
