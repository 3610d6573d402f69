import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { PERF_MEASURES as CONTRACT } from '../../contracts/cells.ts';
import { PERF_MEASURES, runMeasure } from './perf-measures.mjs';
import { workloadPath } from '../runtime/workload-programs.ts';

describe('perf measures (against netexec on 127.0.0.1)', function () {
  this.timeout(20_000);
  let netexec: ChildProcessWithoutNullStreams;
  let http = 0;
  let udp = 0;

  before(async () => {
    netexec = spawn(process.execPath, [
      workloadPath('netexec.mjs'),
      '--http-port',
      '0',
      '--udp-port',
      '0',
      '--hostname',
      'pod-b',
      '--bind',
      '127.0.0.1',
    ]);
    const [line] = (await once(netexec.stdout, 'data')) as [Buffer];
    [, http = 0, udp = 0] = /http=(\d+) udp=(\d+)/.exec(line.toString())!.map(Number);
  });
  after(() => netexec.kill('SIGKILL'));

  it('names the same measures as the results contract', () => {
    expect([...PERF_MEASURES]).to.deep.equal([...CONTRACT]);
  });

  for (const measure of ['tcp-rr', 'tcp-crr'] as const) {
    it(`${measure}: answered requests for the duration, their rate and percentiles, and who answered`, async () => {
      const found = await runMeasure(measure, `http://127.0.0.1:${http}`, { durationMs: 200 });
      expect(found).to.include({ measure, durationMs: 200, backend: 'pod-b' });
      expect(found.transactions).to.be.above(5);
      // On a machine this busy a request may outlast its 1.5 s: counted as failed, not answered.
      expect(found.attempts).to.equal(found.transactions! + found.failed);
      expect(found.failed).to.be.at.most(Math.ceil(found.attempts / 10));
      expect(found.p50Ms).to.be.at.most(found.p90Ms!).and.at.most(found.p99Ms!);
      expect(found.ratePerS).to.equal(Math.round((found.transactions! * 1000) / 200));
    });
  }

  for (const measure of ['tcp-stream', 'tcp-stream-reverse'] as const) {
    it(`${measure}: megabits per second that arrived, from the server that counted them`, async () => {
      const found = await runMeasure(measure, `http://127.0.0.1:${http}`, { durationMs: 200 });
      expect(found).to.include({ measure, backend: 'pod-b', failed: 0, attempts: 1 });
      expect(found.mbps).to.be.above(50);
      // Retransmissions are counted in this namespace (Linux): a number, whatever it is.
      expect(found.retransmitted).to.be.a('number');
    });
  }

  it('udp-stream: datagrams at the rate asked, counted by the server, none lost on loopback', async () => {
    const found = await runMeasure('udp-stream', `udp://127.0.0.1:${udp}`, {
      durationMs: 300,
      rateMbps: 4,
    });
    expect(found).to.include({ measure: 'udp-stream', failed: 0, backend: 'pod-b' });
    // 4 Mbit/s of 1200-byte datagrams for 300 ms: 125.
    expect(found.attempts).to.be.within(110, 135);
    expect(found.mbps).to.be.within(3.5, 4.5);
  });

  it('fails, and names why, where nothing listens', async () => {
    let caught: unknown;
    await runMeasure('tcp-stream', 'http://127.0.0.1:1', { durationMs: 100 }).catch(
      (e: unknown) => (caught = e),
    );
    expect(String(caught)).to.match(/ECONNREFUSED/);
  });
});
