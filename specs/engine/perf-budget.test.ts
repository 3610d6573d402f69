import { expect } from 'chai';
import type { CellResult, PerfFigures } from '../../lab/contracts/results-file.ts';
import { DEFAULT_PERF_BUDGET, better, lossOf, perfFlags } from './perf-budget.ts';
import { linuxCell } from '../testing/linux-cell.ts';

/** A passing perf cell of `measure` over `network` from `src` to `dst` with these figures. */
function perf(
  measure: PerfFigures['measure'],
  src: string,
  dst: string,
  figures: Partial<PerfFigures>,
  network: 'pod' | 'host' = 'pod',
): CellResult {
  return linuxCell(`perf/${measure}/${network}/linux-to-linux`, src, dst, {
    perf: { measure, durationMs: 250, failed: 0, attempts: 1, ...figures },
  });
}

const budget = DEFAULT_PERF_BUDGET;
const stream = (src: string, dst: string, mbps: number, network?: 'pod' | 'host') =>
  perf('tcp-stream', src, dst, { mbps }, network);
const flaggedIds = (cells: CellResult[]) =>
  [...perfFlags(cells, budget).keys()].map((k) => k.split('/').slice(5, 7).join('>'));

describe('perf budget', () => {
  it('flags a stream far below the upper quartile of its peers, naming the baseline', () => {
    const cells = [
      stream('a', 'b', 1500),
      stream('b', 'c', 1200),
      stream('c', 'd', 2000),
      stream('d', 'a', 0.9),
    ];
    const flags = perfFlags(cells, budget);
    expect(flaggedIds(cells)).to.deep.equal(['d>a']);
    expect(flags.get(cells[3]!.cell)?.slow).to.deep.include({
      measure: 'tcp-stream',
      unit: 'Mbit/s',
      value: 0.9,
      baseline: 2000,
      basis: 'upper quartile of 3 tcp-stream pod linux-to-linux cross-node paths',
    });
  });

  it('leaves a path a few times slower alone, and a run that is slow as a whole (a loaded machine)', () => {
    expect(
      flaggedIds([stream('a', 'b', 1500), stream('b', 'c', 1200), stream('c', 'a', 300)]),
    ).to.deep.equal([]);
    expect(
      flaggedIds([stream('a', 'b', 90), stream('b', 'c', 60), stream('c', 'a', 70)]),
    ).to.deep.equal([]);
  });

  it('judges request rates by their losses only: CPU bounds them on one machine', () => {
    const rr = (src: string, ratePerS: number, failed = 0, attempts = 100) =>
      perf('tcp-rr', src, 'x', { ratePerS, failed, attempts, transactions: attempts - failed });
    expect(flaggedIds([rr('a', 900), rr('b', 800), rr('c', 20)])).to.deep.equal([]);
    const lossy = [rr('a', 900), rr('b', 800), rr('c', 700, 9, 100)];
    expect(perfFlags(lossy, budget).get(lossy[2]!.cell)?.flaky).to.deep.equal({
      failed: 9,
      attempts: 100,
      fraction: 0.09,
      what: 'requests',
    });
  });

  it('holds the pod network to a fraction of the host network between the same two nodes', () => {
    const cells = [
      stream('a', 'b', 150),
      stream('a', 'b', 2000, 'host'),
      stream('b', 'c', 1900),
      stream('b', 'c', 2100, 'host'),
    ];
    const flag = perfFlags(cells, budget).get(cells[0]!.cell)?.slow;
    expect(flag?.basis).to.equal(
      'host network on the same node pair; the pod network must reach 0.1 of it',
    );
    expect(flag).to.include({ value: 150, baseline: 2000, ratio: 13.3 });
    expect(perfFlags(cells, budget).has(cells[2]!.cell)).to.equal(false);
  });

  it('counts requests that waited for a retransmission as lost', () => {
    const rr = {
      measure: 'tcp-crr' as const,
      durationMs: 250,
      ratePerS: 40,
      failed: 0,
      attempts: 10,
      waited: 2,
    };
    expect(lossOf(rr, budget)).to.deep.include({ failed: 2, attempts: 10, fraction: 0.2 });
    expect(lossOf({ ...rr, waited: 0 }, budget)).to.equal(undefined);
  });

  it('counts lost datagrams and retransmitted segments, but not a handful of segments', () => {
    const udp = (failed: number) => ({
      measure: 'udp-stream' as const,
      durationMs: 250,
      mbps: 4,
      failed,
      attempts: 104,
    });
    expect(lossOf(udp(11), budget)).to.include({ what: 'udp datagrams', failed: 11 });
    expect(lossOf(udp(3), budget)).to.equal(undefined);
    const segs = (retransmitted: number, sent: number) => ({
      measure: 'tcp-stream' as const,
      durationMs: 250,
      mbps: 9,
      failed: 0,
      attempts: 1,
      retransmitted,
      sent,
    });
    expect(lossOf(segs(900, 9000), budget)).to.include({
      what: 'tcp segments retransmitted',
      fraction: 0.1,
    });
    expect(lossOf(segs(10, 20), budget)).to.equal(undefined);
  });

  it('keeps the better of two runs of a measure: the higher rate and the lower loss', () => {
    const a: PerfFigures = {
      measure: 'udp-stream',
      durationMs: 250,
      mbps: 3,
      failed: 20,
      attempts: 100,
    };
    const b: PerfFigures = {
      measure: 'udp-stream',
      durationMs: 250,
      mbps: 2,
      failed: 1,
      attempts: 100,
    };
    expect(better(a, b)).to.include({ mbps: 3, failed: 1 });
    expect(better(b, a)).to.include({ mbps: 3, failed: 1 });
  });

  it("takes a run's loss figures together: the other run's waits never count against its attempts", () => {
    // The faster run waited for retransmissions on 2 of its 3 requests; the other made 1, at once.
    const fast: PerfFigures = {
      measure: 'tcp-crr',
      durationMs: 250,
      ratePerS: 12,
      failed: 0,
      waited: 2,
      attempts: 3,
    };
    const slow: PerfFigures = {
      measure: 'tcp-crr',
      durationMs: 250,
      ratePerS: 4,
      failed: 0,
      waited: 0,
      attempts: 1,
    };
    for (const kept of [better(fast, slow), better(slow, fast)]) {
      expect(kept).to.include({ ratePerS: 12, failed: 0, waited: 0, attempts: 1 });
      expect(lossOf(kept, budget)).to.equal(undefined);
    }
    // A run without a figure leaves none of the other's behind.
    expect(better(fast, { ...slow, waited: undefined })).to.not.have.property('waited');
  });
});
