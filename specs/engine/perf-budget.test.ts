import { expect } from 'chai';
import type { CellResult, PerfFigures } from '../../lab/contracts/results-file.ts';
import { DEFAULT_PERF_BUDGET, better, lossOf, perfFlags, rateOf } from './perf-budget.ts';
import { linuxCell } from '../testing/linux-cell.ts';

/** A passing perf cell of `measure` over `network` from `src` to `dst` with these figures. */
function perf(
  measure: PerfFigures['measure'],
  src: string,
  dst: string,
  figures: Partial<PerfFigures>,
  network: 'pod' | 'host' = 'pod',
  patch: Partial<CellResult> = {},
): CellResult {
  return linuxCell(`perf/${measure}/${network}/linux-to-linux`, src, dst, {
    perf: { measure, durationMs: 250, failed: 0, attempts: 1, ...figures },
    ...patch,
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
  it('a rate is Mbit/s for a stream and requests/s for request-response', () => {
    const rr: PerfFigures = {
      measure: 'tcp-rr',
      durationMs: 250,
      ratePerS: 40,
      failed: 0,
      attempts: 9,
    };
    expect(rateOf(rr)).to.deep.equal({ value: 40, unit: 'requests/s' });
    expect(rateOf({ ...rr, ratePerS: undefined })).to.deep.equal({ value: 0, unit: 'requests/s' });
    expect(rateOf({ ...rr, measure: 'tcp-stream', mbps: 7 })).to.deep.equal({
      value: 7,
      unit: 'Mbit/s',
    });
  });

  it('flags a stream against as few as minPeers peers, with the whole flag', () => {
    const cells = [stream('a', 'b', 2000), stream('b', 'c', 2000), stream('c', 'a', 0.9)];
    expect(perfFlags(cells, budget).get(cells[2]!.cell)).to.deep.equal({
      slow: {
        measure: 'tcp-stream',
        unit: 'Mbit/s',
        value: 0.9,
        baseline: 2000,
        ratio: 2222.2,
        basis: 'upper quartile of 2 tcp-stream pod linux-to-linux cross-node paths',
      },
    });
    expect(flaggedIds([stream('a', 'b', 2000), stream('c', 'a', 0.9)])).to.deep.equal([]);
  });

  it('a stream that carried nothing is 10 000 times slower than 1 Mbit/s, not infinitely', () => {
    const cells = [stream('a', 'b', 1000), stream('b', 'c', 1000), stream('c', 'a', 0)];
    expect(perfFlags(cells, budget).get(cells[2]!.cell)?.slow?.ratio).to.equal(10_000);
  });

  it('a stream exactly at the baseline over the ratio is not slow', () => {
    expect(
      flaggedIds([stream('a', 'b', 2000), stream('b', 'c', 2000), stream('c', 'a', 200)]),
    ).to.deep.equal([]);
  });

  it('judges only passing cells, and does not count a failed one as a peer', () => {
    const failedFast = perf('tcp-stream', 'x', 'y', { mbps: 9000 }, 'pod', { verdict: 'fail' });
    const failedLossy = perf('tcp-rr', 'x', 'y', { ratePerS: 1, failed: 9, attempts: 10 }, 'pod', {
      verdict: 'fail',
    });
    const cells = [stream('a', 'b', 2000), stream('b', 'c', 150), failedFast, failedLossy];
    expect(flaggedIds(cells)).to.deep.equal([]);
  });

  it('names a service path by its placement "service", in both groupings', () => {
    const svc = (src: string, mbps: number, row = 'perf/tcp-stream/pod/linux-to-linux') =>
      linuxCell(row, src, 'x', {
        placement: '',
        perf: { measure: 'tcp-stream', durationMs: 250, mbps, failed: 0, attempts: 1 },
      });
    const sameOs = [svc('a', 2000), svc('b', 2000), svc('c', 1)];
    expect(perfFlags(sameOs, budget).get(sameOs[2]!.cell)?.slow?.basis).to.equal(
      'upper quartile of 2 tcp-stream pod linux-to-linux service paths',
    );
    const anyOs = [
      svc('a', 2000, 'perf/tcp-stream/pod/linux-to-windows'),
      svc('b', 2000, 'perf/tcp-stream/pod/linux-to-windows'),
      svc('c', 1),
    ];
    expect(perfFlags(anyOs, budget).get(anyOs[2]!.cell)?.slow?.basis).to.equal(
      'upper quartile of 2 tcp-stream pod service paths (any OS)',
    );
  });

  it('falls back to peers of any OS pair when its own OS pair has too few', () => {
    const l2w = (src: string, mbps: number) =>
      linuxCell('perf/tcp-stream/pod/linux-to-windows', src, 'w', {
        perf: { measure: 'tcp-stream', durationMs: 250, mbps, failed: 0, attempts: 1 },
      });
    const cells = [l2w('a', 2000), l2w('b', 1800), stream('c', 'd', 1)];
    expect(perfFlags(cells, budget).get(cells[2]!.cell)?.slow).to.deep.include({
      baseline: 2000,
      basis: 'upper quartile of 2 tcp-stream pod cross-node paths (any OS)',
    });
  });

  it('the host tolerance flag, whole; exactly at the tolerance is not below it', () => {
    const cells = [stream('a', 'b', 150), stream('a', 'b', 2000, 'host')];
    expect(perfFlags(cells, budget).get(cells[0]!.cell)).to.deep.equal({
      slow: {
        measure: 'tcp-stream',
        unit: 'Mbit/s',
        value: 150,
        baseline: 2000,
        ratio: 13.3,
        basis: 'host network on the same node pair; the pod network must reach 0.1 of it',
      },
    });
    expect(flaggedIds([stream('a', 'b', 200), stream('a', 'b', 2000, 'host')])).to.deep.equal([]);
  });

  it('holds only cross-node pod streams to the host network of the same measure and node pair', () => {
    const host = (measure: PerfFigures['measure'], src: string, dst: string) =>
      perf(measure, src, dst, { mbps: 2000 }, 'host');
    const others = [
      host('tcp-stream-reverse', 'a', 'b'),
      host('tcp-stream', 'c', 'b'),
      host('tcp-stream', 'a', 'c'),
    ];
    expect(flaggedIds([stream('a', 'b', 150), ...others])).to.deep.equal([]);
    const sameNode = perf('tcp-stream', 'a', 'a', { mbps: 150 }, 'pod', { placement: 'same-node' });
    expect(
      flaggedIds([sameNode, perf('tcp-stream', 'a', 'a', { mbps: 2000 }, 'host')]),
    ).to.deep.equal([]);
    // Two host runs of one pair: the host network is never held to itself.
    const slowHost = perf('tcp-stream', 'a2', 'b2', { mbps: 100 }, 'host', {
      source: { os: 'linux', node: 'a', label: 'linux pod' },
      target: { os: 'linux', node: 'b', label: 'linux pod' },
    });
    expect(perfFlags([host('tcp-stream', 'a', 'b'), slowHost], budget).size).to.equal(0);
  });

  it('a loss exactly at the budget is not flaky; no attempts is no loss', () => {
    const rr = (failed: number, attempts: number, waited?: number): PerfFigures => ({
      measure: 'tcp-rr',
      durationMs: 250,
      ratePerS: 10,
      failed,
      attempts,
      waited,
    });
    expect(lossOf(rr(5, 100), budget)).to.equal(undefined);
    expect(lossOf(rr(6, 100), budget)).to.deep.equal({
      failed: 6,
      attempts: 100,
      fraction: 0.06,
      what: 'requests',
    });
    expect(lossOf(rr(0, 0), budget)).to.equal(undefined);
    expect(lossOf(rr(3, 0), budget)).to.equal(undefined);
    expect(lossOf(rr(0, 0, 2), budget)).to.equal(undefined);
  });

  it('waited requests: the whole flag, rounded to a thousandth', () => {
    const crr: PerfFigures = {
      measure: 'tcp-crr',
      durationMs: 250,
      ratePerS: 40,
      failed: 1,
      attempts: 3,
      waited: 1,
    };
    expect(lossOf(crr, budget)).to.deep.equal({
      failed: 2,
      attempts: 3,
      fraction: 0.667,
      what: 'requests failed or waited for a retransmission (200 ms or more)',
    });
  });

  it('segments: 50 sent is enough to judge; the worst of all the losses is the one named', () => {
    const stream50: PerfFigures = {
      measure: 'tcp-stream',
      durationMs: 250,
      mbps: 9,
      failed: 1,
      attempts: 100,
      sent: 50,
      retransmitted: 10,
    };
    expect(lossOf(stream50, budget)).to.deep.equal({
      failed: 10,
      attempts: 50,
      fraction: 0.2,
      what: 'tcp segments retransmitted',
    });
    const server = { ...stream50, serverSent: 50, serverRetransmitted: 15 };
    expect(lossOf(server, budget)).to.deep.equal({
      failed: 15,
      attempts: 50,
      fraction: 0.3,
      what: 'tcp segments the server retransmitted',
    });
    const middle = {
      ...stream50,
      failed: 9,
      attempts: 10,
      serverSent: 50,
      serverRetransmitted: 15,
    };
    expect(lossOf(middle, budget)).to.include({ what: 'requests', fraction: 0.9 });
  });

  it("the server's segments: under 50 sent, or none retransmitted, say nothing", () => {
    const figures: PerfFigures = {
      measure: 'tcp-stream',
      durationMs: 250,
      mbps: 9,
      failed: 0,
      attempts: 1,
      serverSent: 49,
      serverRetransmitted: 40,
    };
    expect(lossOf(figures, budget)).to.equal(undefined);
    expect(lossOf({ ...figures, serverSent: 1000, serverRetransmitted: 0 }, budget)).to.equal(
      undefined,
    );
  });

  describe('the better of two runs', () => {
    const run = (patch: Partial<PerfFigures>): PerfFigures => ({
      measure: 'tcp-stream',
      durationMs: 250,
      mbps: 10,
      failed: 0,
      attempts: 1,
      ...patch,
    });

    it('keeps a run that is both faster and less lossy as it is', () => {
      const a = run({ mbps: 20 });
      const b = run({ mbps: 10, failed: 1 });
      expect(better(a, b)).to.equal(a);
      expect(better(b, a)).to.equal(a);
    });

    it("on equal rates keeps the first run's rate figures; on equal loss the first run's loss figures", () => {
      const first = run({ durationMs: 250, failed: 1, attempts: 10 });
      const second = run({ durationMs: 300, failed: 0, attempts: 10 });
      expect(better(first, second)).to.deep.equal({ ...first, failed: 0, attempts: 10 });
      const a = run({ mbps: 20, failed: 1, attempts: 10 });
      const b = run({ mbps: 10, failed: 2, attempts: 20 });
      expect(better(a, b)).to.equal(a);
    });

    it('adds the loss of requests, client segments and server segments', () => {
      // Requests alone look worse in `a`; with its segments counted `b` is worse.
      const a = run({ mbps: 20, failed: 1, attempts: 10 });
      const b = run({ mbps: 10, failed: 0, attempts: 10, sent: 100, retransmitted: 30 });
      expect(better(a, b)).to.equal(a);
      const c = run({
        mbps: 10,
        failed: 0,
        attempts: 10,
        serverSent: 100,
        serverRetransmitted: 30,
      });
      expect(better(a, c)).to.equal(a);
      const d = run({
        mbps: 10,
        failed: 0,
        attempts: 10,
        sent: 100,
        retransmitted: 5,
        serverSent: 100,
        serverRetransmitted: 10,
      });
      expect(better(a, d)).to.equal(a);
    });

    it('divides each loss by what it is a loss of; a run of no attempts lost nothing', () => {
      const requests = run({ mbps: 20, failed: 1, attempts: 10 });
      expect(better(requests, run({ mbps: 10, sent: 10, retransmitted: 5 }))).to.equal(requests);
      const slowLossy = run({ mbps: 10, failed: 1, attempts: 10 });
      const client = run({ mbps: 20, sent: 100, retransmitted: 5 });
      expect(better(slowLossy, client)).to.equal(client);
      const server = run({ mbps: 20, serverSent: 100, serverRetransmitted: 5 });
      expect(better(slowLossy, server)).to.equal(server);
      const none = run({ mbps: 10, failed: 0, attempts: 0 });
      expect(better(requests, none)).to.deep.equal({ ...requests, failed: 0, attempts: 0 });
    });
  });
});
