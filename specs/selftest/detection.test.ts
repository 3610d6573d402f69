import { expect } from 'chai';
import type { FaultImpact } from '../../lab/faults/fault-definition.ts';
import type { CellResult, Verdict } from '../../lab/contracts/results-file.ts';
import { detect, failingCells } from './detection.ts';

function cell(id: string, verdict: Verdict, actual?: string): CellResult {
  return {
    row: id.split('/').slice(0, 2).join('/'),
    cell: id,
    title: id,
    source: { os: 'linux', node: 'lin1', label: 'linux pod' },
    target: { os: 'windows', node: 'win1', label: 'windows pod' },
    via: id.split('/').at(-1) ?? '',
    placement: '',
    expected: 'ok',
    verdict,
    ...(actual === undefined ? {} : { actual: actual as CellResult['expected'] }),
    detail: `${id} detail`,
    durationMs: 1,
    attempts: 1,
  };
}

describe('detection', () => {
  const impact: FaultImpact = {
    mustFail: [{ kinds: ['pod-to-pod'] }],
    mayFail: [{ kinds: ['pod-to-service'] }, { kinds: ['pod-to-pod'], via: 'dns' }],
    outcomes: ['timeout'],
  };

  it('judges every cell against must-fail, may-fail and pass', () => {
    const { cells, counts } = detect(impact, [
      cell('pod-to-pod/linux-to-windows/cross-node/lin1/win1/dns', 'fail', 'timeout'),
      cell('pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip', 'fail', 'refused'),
      cell('pod-to-pod/linux-to-linux/same-node/lin1/ip', 'pass', 'ok'),
      cell('pod-to-service/linux-to-windows/lin1/cluster-ip', 'fail', 'timeout'),
      cell('pod-to-service/linux-to-windows/lin1/dns', 'pass', 'ok'),
      cell('dns/fqdn/linux/lin1/dns', 'fail', 'wrong-source-ip'),
      cell('dns/short-name/linux/lin1/dns', 'pass', 'ok'),
      cell('outbound-nat/linux/lin1/ip', 'skipped'),
    ]);
    expect(cells.map((c) => c.status)).to.deep.equal([
      'detected',
      'wrong-outcome',
      'missed',
      'may-failed',
      'may-passed',
      'false-alarm',
      'ok',
      'not-hosted',
    ]);
    expect(counts).to.deep.equal({
      mustFail: 3,
      detected: 1,
      wrongOutcome: 1,
      missed: 1,
      falseAlarms: 1,
      mayFail: 2,
      mayFailed: 1,
    });
  });

  it('must-fail wins over may-fail; any failure counts without named outcomes', () => {
    const { cells } = detect(
      { mustFail: [{ kinds: ['pod-to-pod'] }], mayFail: [{ kinds: ['pod-to-pod'] }] },
      [cell('pod-to-pod/linux-to-linux/same-node/lin1/ip', 'infra-error')],
    );
    expect(cells[0]).to.include({ expectation: 'must-fail', status: 'detected' });
  });

  it('failing cells are the ones neither passed nor skipped', () => {
    expect(
      failingCells([
        cell('a', 'pass'),
        cell('b', 'fail'),
        cell('c', 'skipped'),
        cell('d', 'infra-error'),
      ]),
    ).to.deep.equal(['b', 'd']);
  });
});
