import { expect } from 'chai';
import { run } from '../testing/history-records.ts';
import type { RunRecord } from './run-record.ts';
import { computeTrend, type CellTrend, type SeriesTrend } from './trend.ts';

const W = 'pod-to-pod/windows-to-linux/cross-node/ip';
const O = 'outbound-nat/windows/win1/ip';
const S = 'dns/short-name/windows/dns';

function series(records: RunRecord[], window = 14, preset = 'hybrid'): SeriesTrend {
  const found = computeTrend(records, window).series.find((s) => s.preset === preset);
  if (found === undefined) throw new Error(`no series ${preset}`);
  return found;
}

function cellOf(s: SeriesTrend, id: string): CellTrend {
  const found = s.cells.find((c) => c.cell === id);
  if (found === undefined) throw new Error(`no cell ${id}`);
  return found;
}

describe('history trend', () => {
  it('a regression (pass, pass, fail) is failing since its first failed run and not flaky', () => {
    const s = series([run(1), run(2), run(3, { [W]: 'fail' })]);
    const w = cellOf(s, W);
    expect(w.outcomes).to.deep.equal(['pass', 'pass', 'fail']);
    expect(w.passRate).to.be.closeTo(2 / 3, 1e-9);
    expect(w.flaky).to.be.false;
    expect(w.failingSince).to.include({ runId: 'run-03', runs: 1, sinceFirstRecorded: false });
    expect(s.failing.map((c) => c.cell)).to.deep.equal([W]);
    expect(s.flaky).to.deep.equal([]);
  });

  it('a failure a later pass contradicts (pass, fail, pass) is flaky, not failing', () => {
    const s = series([run(1), run(2, { [W]: 'fail' }), run(3)]);
    expect(s.flaky.map((c) => c.cell)).to.deep.equal([W]);
    expect(s.failing).to.deep.equal([]);
    expect(cellOf(s, W).lastDetail).to.equal(`${W}: timed out`);
  });

  it('fail, pass, fail is failing since the last failure and flaky too', () => {
    const s = series([run(1, { [W]: 'fail' }), run(2), run(3, { [W]: 'fail' })]);
    const w = cellOf(s, W);
    expect(w.flaky).to.be.true;
    expect(w.failingSince).to.include({ runId: 'run-03', runs: 1 });
  });

  it('finds the start of a streak beyond the window, across runs where the lab was not ready', () => {
    const records = [
      run(1),
      run(2, { [O]: 'fail' }),
      run(3, { [O]: 'fail' }),
      run(4, {}, { status: 'infra', cells: [] }),
      run(5, { [O]: 'fail' }),
    ];
    const s = series(records, 2);
    expect(s.runs.map((r) => r.runId)).to.deep.equal(['run-04', 'run-05']);
    expect(s.totalRuns).to.equal(5);
    const o = cellOf(s, O);
    expect(o.outcomes).to.deep.equal(['infra', 'fail']);
    expect(o.failingSince).to.include({ runId: 'run-02', runs: 3, sinceFirstRecorded: false });
    expect(o.passRate).to.equal(0);
  });

  it('marks a streak that reaches the oldest stored run as possibly older', () => {
    const s = series([run(1, { [W]: 'fail' }), run(2, { [W]: 'fail' })]);
    expect(cellOf(s, W).failingSince).to.include({ runId: 'run-01', sinceFirstRecorded: true });
  });

  it('counts unexpected passes as failures and leaves expected failures and skips out', () => {
    const s = series([
      run(1, { [S]: 'expected-failure', [O]: 'skipped' }),
      run(2, { [S]: 'unexpected-pass' }),
    ]);
    expect(cellOf(s, S).outcomes).to.deep.equal(['expected', 'fail']);
    expect(cellOf(s, S).passRate).to.equal(0);
    expect(cellOf(s, O).passRate).to.equal(1);
    expect(cellOf(s, O).passes).to.equal(1);
  });

  it('orders runs by start time, not by the order they were added', () => {
    const s = series([run(3, { [W]: 'fail' }), run(1), run(2)]);
    expect(s.runs.map((r) => r.runId)).to.deep.equal(['run-01', 'run-02', 'run-03']);
    expect(s.failing.map((c) => c.cell)).to.deep.equal([W]);
  });

  it('keeps presets apart, counts their runs, and says which are emulated', () => {
    const report = computeTrend([
      run(1),
      run(2),
      run(1, { [W]: 'fail' }, { preset: 'libvirt-hybrid', provider: 'libvirt', emulated: false }),
    ]);
    expect(
      report.series.map((s) => [s.preset, s.totalRuns, s.emulated, s.providers]),
    ).to.deep.equal([
      ['hybrid', 2, true, ['netns']],
      ['libvirt-hybrid', 1, false, ['libvirt']],
    ]);
    expect(report.series[0]!.failing).to.deep.equal([]);
    expect(report.series[1]!.failing.map((c) => c.cell)).to.deep.equal([W]);
  });

  it('shows a cell missing from a run as absent and orders cells as the newest run does', () => {
    const older = run(1);
    older.cells = older.cells.filter((c) => c.cell !== W);
    const s = series([older, run(2)]);
    expect(cellOf(s, W).outcomes).to.deep.equal([undefined, 'pass']);
    expect(s.cells[0]!.cell).to.equal(run(2).cells[0]!.cell);
  });
});
