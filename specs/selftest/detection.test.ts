import { expect } from 'chai';
import type { FaultImpact } from '../../lab/faults/fault-definition.ts';
import type { CellResult, Verdict } from '../engine/results.ts';
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
    mustFail: [{ cell: 'a/**' }],
    mayFail: [{ cell: 'b/**' }, { cell: 'a/x/**' }],
    outcomes: ['timeout'],
  };

  it('judges every cell against must-fail, may-fail and pass', () => {
    const { cells, counts } = detect(impact, [
      cell('a/x/1', 'fail', 'timeout'),
      cell('a/y/2', 'fail', 'refused'),
      cell('a/z/3', 'pass', 'ok'),
      cell('b/1', 'fail', 'timeout'),
      cell('b/2', 'pass', 'ok'),
      cell('c/1', 'fail', 'wrong-source-ip'),
      cell('c/2', 'pass', 'ok'),
      cell('c/3', 'skipped'),
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
    const { cells } = detect({ mustFail: [{ cell: 'a/**' }], mayFail: [{ cell: 'a/**' }] }, [
      cell('a/1', 'infra-error'),
    ]);
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
