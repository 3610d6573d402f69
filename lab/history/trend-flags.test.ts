import { expect } from 'chai';
import { computeTrend } from './trend.ts';
import { renderTrendMarkdown } from './trend-markdown.ts';
import { cell, run } from '../testing/history-records.ts';
import type { RecordedCell, RunRecord } from './run-record.ts';

const ID = 'pod-to-pod/windows-to-linux/cross-node/ip';
/** A run whose cell ID took `p50Ms`, flagged as given. */
function timed(day: number, p50Ms: number, flags?: RecordedCell['flags']): RunRecord {
  const base = run(day);
  return {
    ...base,
    cells: base.cells.map((c) =>
      c.cell === ID ? { ...c, p50Ms, maxMs: p50Ms * 2, ...(flags ? { flags } : {}) } : c,
    ),
  };
}
const pair = (a: string, b: string) => ({
  ...cell(`pod-to-pod/linux-to-linux/cross-node/${a}/${b}/ip`, 'pass'),
});
const ringRun = (day: number, pairs: [string, string][], rotation: number): RunRecord => ({
  ...run(day),
  mesh: { mode: 'ring', peers: 1, rotation },
  cells: pairs.map(([a, b]) => pair(a, b)),
});

describe('trend: how well, night by night', () => {
  it('keeps each cell’s p50 per night and the nights it was flagged slow or flaky, green or not', () => {
    const trend = computeTrend([timed(1, 2.1), timed(2, 950, ['slow']), timed(3, 2.4, ['flaky'])]);
    const [series] = trend.series;
    const c = series!.cells.find((x) => x.cell === ID)!;
    expect(c.p50Ms).to.deep.equal([2.1, 950, 2.4]);
    expect(c.flaggedRuns).to.equal(2);
    expect(series!.flagged.map((x) => x.cell)).to.deep.equal([ID]);
    expect(renderTrendMarkdown(trend)).to.include('| 2 of 3 | 2.1 · 950 · 2.4 |');
  });

  it('says how much of the mesh the window’s ring runs covered', () => {
    const trend = computeTrend([
      ringRun(
        1,
        [
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
        ],
        0,
      ),
      ringRun(
        2,
        [
          ['a', 'c'],
          ['b', 'a'],
          ['c', 'b'],
        ],
        1,
      ),
    ]);
    expect(trend.series[0]!.mesh).to.deep.equal({ covered: 6, total: 6, ringRuns: 2 });
    expect(renderTrendMarkdown(trend)).to.include(
      'together they covered 6 of 6 ordered node pairs',
    );
    const oneNight = computeTrend([
      ringRun(
        1,
        [
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
        ],
        0,
      ),
    ]);
    expect(oneNight.series[0]!.mesh).to.deep.equal({ covered: 3, total: 6, ringRuns: 1 });
    expect(computeTrend([run(1)]).series[0]!.mesh).to.equal(undefined);
  });
});
