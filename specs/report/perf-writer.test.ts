import { expect } from 'chai';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { makeReport } from '../model/report.ts';
import { sampleRun } from '../testing/sample-report.ts';
import { hasPerf, renderPerfHtml, renderPerfJson } from './perf-writer.ts';
import { renderSummary } from './summary-writer.ts';
import { linuxCell } from '../testing/linux-cell.ts';

function cell(measure: string, network: string, patch: Partial<CellResult>): CellResult {
  return linuxCell(`perf/${measure}/${network}/linux-to-linux`, 'lin1', 'lin2', patch);
}

const rr = cell('tcp-rr', 'pod', {
  perf: {
    measure: 'tcp-rr',
    durationMs: 250,
    transactions: 100,
    ratePerS: 400,
    p50Ms: 0.6,
    p90Ms: 1.2,
    p99Ms: 3.4,
    failed: 0,
    attempts: 100,
    backend: 'netexec-lin2-a',
  },
});
const slowStream = cell('tcp-stream', 'pod', {
  verdict: 'fail',
  actual: 'slow',
  perf: { measure: 'tcp-stream', durationMs: 250, mbps: 0.9, failed: 0, attempts: 1 },
  flags: {
    slow: {
      measure: 'tcp-stream',
      unit: 'Mbit/s',
      value: 0.9,
      baseline: 1800,
      ratio: 2000,
      basis: 'upper quartile of 9 tcp-stream pod cross-node paths (any OS)',
    },
  },
});
const report = makeReport(
  { ...sampleRun(true), suite: 'perf', mesh: { mode: 'ring', peers: 1, rotation: 20500 } },
  [rr, slowStream],
);

describe('report: perf.json, perf.html and the perf table', () => {
  it('writes one perfdash-like data item per path and measure, with percentiles or throughput and labels', () => {
    expect(hasPerf(report)).to.equal(true);
    const doc = JSON.parse(renderPerfJson(report)) as {
      version: string;
      emulated: boolean;
      dataItems: { data: Record<string, number>; unit: string; labels: Record<string, string> }[];
    };
    expect(doc.version).to.equal('v1');
    expect(doc.emulated).to.equal(true);
    expect(doc.dataItems).to.have.length(2);
    expect(doc.dataItems[0]).to.deep.include({
      unit: 'ms',
      data: { Perc50: 0.6, Perc90: 1.2, Perc99: 3.4, RatePerSecond: 400, Failed: 0 },
    });
    expect(doc.dataItems[0]!.labels).to.include({
      Metric: 'tcp-rr',
      Network: 'pod',
      OsPair: 'linux-to-linux',
      Source: 'lin1',
      Target: 'lin2',
      Backend: 'netexec-lin2-a',
      Verdict: 'pass',
    });
    expect(doc.dataItems[1]).to.deep.include({ unit: 'Mbit/s', data: { Throughput: 0.9 } });
    expect(doc.dataItems[1]!.labels.Slow).to.match(
      /^slow: tcp-stream 0.9 Mbit\/s is 2000× the baseline 1800 Mbit\/s/,
    );
  });

  it('shows each OS pair as paths by measures on perf.html, the flagged figure red with why, and says EMULATED', () => {
    const html = renderPerfHtml(report);
    expect(html).to.include('<h2>linux-to-linux</h2>');
    expect(html).to.match(
      /<td class="flag" title="slow: tcp-stream 0.9 Mbit\/s[^"]*">0.9 Mbit\/s<\/td>/,
    );
    expect(html).to.include('400/s p50 0.6 p99 3.4 ms');
    expect(html).to.include('EMULATED');
    expect(html).to.include('mesh ring (1 peer(s), rotation 20500)');
  });

  it('puts the same table in summary.md, the flagged figure marked', () => {
    const summary = renderSummary(report);
    expect(summary).to.include('## Perf');
    expect(summary).to.include(
      '| pod | cross-node | lin1-to-lin2 | 400/s p50 0.6 p99 3.4 ms |   | ❌ 0.9 Mbit/s |',
    );
  });

  it('writes no perf files for a matrix run', () => {
    expect(hasPerf(makeReport(sampleRun(false), []))).to.equal(false);
  });
});
