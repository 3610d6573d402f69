import { expect } from 'chai';
import type { CellResult, Verdict } from '../../lab/contracts/results-file.ts';
import type { UpstreamTest } from '../../lab/contracts/upstream-results.ts';
import { crossCheck } from './cross-check.ts';
import type { CrossCheckEntry } from './upstream-catalogue.ts';

const POD_SERVICE =
  '[sig-network] Networking Granular Checks: Services should function for pod-Service: udp';
const ENTRY: CrossCheckEntry = {
  test: POD_SERVICE,
  rows: ['pod-to-service-udp/linux-to-linux'],
  via: 'cluster-ip',
};

function cell(node: string, verdict: Verdict, via = 'cluster-ip'): CellResult {
  return {
    row: 'pod-to-service-udp/linux-to-linux',
    cell: `pod-to-service-udp/linux-to-linux/${node}/${via}`,
    title: `pod-to-service-udp linux-to-linux ${node} via ${via}`,
    source: { os: 'linux', node, label: 'linux pod' },
    target: { os: 'linux', node: 'cp1,lin1,lin2', label: 'linux service' },
    via,
    placement: '',
    expected: 'ok',
    verdict,
    detail: '',
    durationMs: 1,
    attempts: 1,
  };
}
const test = (verdict: Verdict): UpstreamTest => ({
  name: POD_SERVICE,
  verdict,
  selected: true,
  durationMs: 1,
});

describe('cross-check', function () {
  it('both green agree', function () {
    const [row] = crossCheck([ENTRY], [test('pass')], [cell('cp1', 'pass'), cell('lin1', 'pass')]);
    expect(row).to.deep.include({
      upstream: 'pass',
      matrix: 'pass',
      agreement: 'agree',
      cells: [],
    });
  });

  it('red on some nodes is partial, and agrees with an upstream failure', function () {
    const [row] = crossCheck([ENTRY], [test('fail')], [cell('cp1', 'pass'), cell('lin1', 'fail')]);
    expect(row).to.deep.include({ matrix: 'partial', agreement: 'agree', cells: [] });
  });

  it('red on every node agrees with an upstream failure', function () {
    const [row] = crossCheck(
      [ENTRY],
      [test('fail')],
      [cell('cp1', 'fail'), cell('lin1', 'infra-error')],
    );
    expect(row).to.deep.include({ matrix: 'fail', agreement: 'agree' });
  });

  it('red on some nodes is not compared with an upstream pass: its one client may sit on a healthy node', function () {
    const [row] = crossCheck([ENTRY], [test('pass')], [cell('cp1', 'pass'), cell('lin1', 'fail')]);
    expect(row).to.deep.include({
      upstream: 'pass',
      matrix: 'partial',
      agreement: 'not-comparable',
    });
  });

  it('upstream red and the matrix green disagree, naming the cells that passed', function () {
    const [row] = crossCheck([ENTRY], [test('fail')], [cell('cp1', 'pass'), cell('lin1', 'pass')]);
    expect(row).to.deep.include({
      upstream: 'fail',
      matrix: 'pass',
      agreement: 'disagree',
      cells: [
        'pod-to-service-udp/linux-to-linux/cp1/cluster-ip',
        'pod-to-service-udp/linux-to-linux/lin1/cluster-ip',
      ],
    });
  });

  it('upstream green and the matrix red on every node disagree, naming the red cells', function () {
    const [row] = crossCheck(
      [ENTRY],
      [test('pass')],
      [cell('cp1', 'fail'), cell('lin2', 'unexpected-pass')],
    );
    expect(row).to.deep.include({
      agreement: 'disagree',
      cells: [
        'pod-to-service-udp/linux-to-linux/cp1/cluster-ip',
        'pod-to-service-udp/linux-to-linux/lin2/cluster-ip',
      ],
    });
  });

  it('only cells of the entry`s via count', function () {
    const [row] = crossCheck(
      [ENTRY],
      [test('pass')],
      [cell('cp1', 'pass'), cell('lin1', 'fail', 'dns')],
    );
    expect(row).to.deep.include({ matrix: 'pass', agreement: 'agree' });
  });

  it('a skipped or known-limit side is not comparable, never a disagreement', function () {
    expect(
      crossCheck([ENTRY], [test('expected-failure')], [cell('cp1', 'pass')])[0],
    ).to.deep.include({
      upstream: 'none',
      agreement: 'not-comparable',
    });
    expect(crossCheck([ENTRY], [test('fail')], [cell('cp1', 'skipped')])[0]).to.deep.include({
      matrix: 'none',
      agreement: 'not-comparable',
    });
  });

  it('an entry neither side has anything on is left out of the table', function () {
    expect(crossCheck([ENTRY], [], [])).to.deep.equal([]);
  });
});
