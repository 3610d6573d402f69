import { expect } from 'chai';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { DEFAULT_LATENCY_BUDGET, quantile, slowFlags, timingOf } from './latency-budget.ts';

/** A passing timed cell of `row` whose requests took `p50` ms (median). */
function timed(id: string, p50: number, row = 'pod-to-pod/linux-to-linux', verdict = 'pass') {
  const end = { os: 'linux' as const, node: id, label: 'linux pod' };
  return {
    row,
    cell: `${row}/cross-node/${id}/x/ip`,
    title: id,
    source: end,
    target: end,
    via: 'ip',
    placement: 'cross-node',
    expected: 'ok',
    verdict,
    detail: '',
    durationMs: p50,
    attempts: 1,
    timing: { samples: 1, totalP50Ms: p50, totalMaxMs: p50 },
  } as CellResult;
}

const budget = DEFAULT_LATENCY_BUDGET;
const ids = (flags: Map<string, unknown>) => [...flags.keys()].map((k) => k.split('/')[3]);

describe('latency budget', () => {
  it('takes nearest-rank quantiles and p50/max of the timed requests only', () => {
    expect(quantile([5, 1, 3, 2, 4], 0.5)).to.equal(3);
    expect(quantile([1, 2, 3, 4], 0.5)).to.equal(2);
    expect(quantile([1, 2, 3, 4], 0.99)).to.equal(4);
    expect(quantile([], 0.5)).to.equal(undefined);
    expect(
      timingOf([{ ms: 4, connectMs: 1 }, { ms: 9, connectMs: 2 }, { connectMs: 7 }]),
    ).to.deep.equal({
      samples: 2,
      totalP50Ms: 4,
      totalMaxMs: 9,
      connectP50Ms: 2,
      connectMaxMs: 7,
    });
    expect(timingOf([{}, {}])).to.equal(undefined);
  });

  it('flags a cell several times slower than the median of its peers, naming measure and baseline', () => {
    const cells = [timed('a', 2), timed('b', 3), timed('c', 2), timed('d', 2.5), timed('e', 900)];
    const flags = slowFlags(cells, budget);
    expect(ids(flags)).to.deep.equal(['e']);
    expect(flags.get(cells[4]!.cell)).to.deep.equal({
      measure: 'total-p50',
      unit: 'ms',
      value: 900,
      // Nearest rank: the lower middle of 2, 2, 2.5, 3.
      baseline: 2,
      ratio: 450,
      basis: 'median of 4 pod-to-pod/linux-to-linux cross-node cells via ip',
    });
  });

  it('needs both the ratio and the floor: a sub-millisecond path that takes 40 times as long is not slow', () => {
    // 90 ms against 2 ms is 45×, but only 88 ms more: under the 100 ms floor.
    const few = [timed('a', 2), timed('b', 2), timed('c', 2), timed('d', 90)];
    expect(slowFlags(few, budget).size).to.equal(0);
    // 400 ms against a 150 ms baseline is 250 ms more, but under 5×.
    const slowLab = [timed('a', 150), timed('b', 150), timed('c', 150), timed('d', 400)];
    expect(slowFlags(slowLab, budget).size).to.equal(0);
  });

  it('flags nothing when the whole run is slow: the baseline is the run itself (a loaded machine)', () => {
    const loaded = ['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => timed(id, 300 + 40 * i));
    expect(slowFlags(loaded, budget).size).to.equal(0);
  });

  it('falls back to the same kind of path of any OS pair when its own row has too few peers', () => {
    const cells = [
      timed('a', 2, 'pod-to-pod/linux-to-windows'),
      timed('b', 2, 'pod-to-pod/windows-to-linux'),
      timed('c', 2, 'pod-to-pod/windows-to-windows'),
      timed('d', 700, 'pod-to-pod/linux-to-linux'),
    ];
    const flag = slowFlags(cells, budget).get(cells[3]!.cell);
    expect(flag?.basis).to.equal('median of 3 pod-to-pod cross-node cells via ip (any OS)');
  });

  it('judges no cell without enough peers, no failing cell, and no churn cell', () => {
    expect(slowFlags([timed('a', 2), timed('b', 2), timed('c', 900)], budget).size).to.equal(0);
    const failing = [
      timed('a', 2),
      timed('b', 2),
      timed('c', 2),
      timed('d', 900, undefined, 'fail'),
    ];
    expect(slowFlags(failing, budget).size).to.equal(0);
    const churn = ['a', 'b', 'c'].map((id) => timed(id, 2, 'churn/linux-to-linux'));
    expect(slowFlags([...churn, timed('d', 900, 'churn/linux-to-linux')], budget).size).to.equal(0);
  });
  it('a run whose requests timed no connect has no connect figures', () => {
    expect(timingOf([{ ms: 3 }, { ms: 5 }])).to.deep.equal({
      samples: 2,
      totalP50Ms: 3,
      totalMaxMs: 5,
    });
  });

  it('slow is above both ratio × baseline and baseline + floor, not at them', () => {
    // baseline 100: 500 is exactly 5×; baseline 20: 120 is exactly 100 ms above it.
    const at = (value: number, base: number) =>
      ids(
        slowFlags(
          [timed('a', base), timed('b', base), timed('c', base), timed('x', value)],
          budget,
        ),
      );
    expect(at(500, 100)).to.deep.equal([]);
    expect(at(501, 100)).to.deep.equal(['x']);
    expect(at(120, 20)).to.deep.equal([]);
    expect(at(121, 20)).to.deep.equal(['x']);
    expect(at(110, 20)).to.deep.equal([]);
  });

  it('a Service cell (no placement) is named by its row and via alone', () => {
    const svc = (id: string, p50: number, row = 'pod-to-service/linux-to-linux') => ({
      ...timed(id, p50, row),
      placement: '',
      via: 'cluster-ip',
    });
    const own = slowFlags([svc('a', 2), svc('b', 2), svc('c', 2), svc('x', 900)], budget);
    expect([...own.values()].map((f) => f.basis)).to.deep.equal([
      'median of 3 pod-to-service/linux-to-linux cells via cluster-ip',
    ]);
    const other = 'pod-to-service/windows-to-linux';
    const anyOs = slowFlags(
      [svc('a', 2, other), svc('b', 2, other), svc('c', 2, other), svc('x', 900)],
      budget,
    );
    expect([...anyOs.values()].map((f) => f.basis)).to.deep.equal([
      'median of 3 pod-to-service cells via cluster-ip (any OS)',
    ]);
  });

  it('never takes cells of another kind of path as peers', () => {
    const other = 'pod-to-service/linux-to-linux';
    const cells = [
      timed('a', 2, other),
      timed('b', 2, other),
      timed('c', 2, other),
      timed('x', 900),
    ];
    expect(ids(slowFlags(cells, budget))).to.deep.equal([]);
  });
});
