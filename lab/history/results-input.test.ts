import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Verdict } from '../contracts/results-file.ts';
import { resultsDocument } from '../testing/history-records.ts';
import { HistoryError } from './history-error.ts';
import { DETAIL_MAX, readResultsFile, recordFromResults } from './results-input.ts';

/** A suite results.json with these cells (a verdict outside the schema is the caller's test). */
function results(cells: { cell: string; verdict: string; detail?: string }[], extra = {}) {
  return resultsDocument(cells as { cell: string; verdict: Verdict; detail?: string }[], extra);
}

function failure(fn: () => unknown): HistoryError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(HistoryError);
    return error as HistoryError;
  }
  throw new Error('expected a HistoryError');
}

describe('history: reading results.json', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const ok = { cell: 'pod-to-pod/linux-to-linux/cross-node/ip', verdict: 'pass' };
  const bad = { cell: 'pod-to-pod/windows-to-linux/cross-node/ip', verdict: 'fail' };

  it('keeps run facts, the emulated flag and per-cell verdicts; details only where a cell did not pass', () => {
    const record = recordFromResults(results([ok, bad]), 'r.json', {
      now: new Date('2026-11-22T04:00:00Z'),
      link: 'https://ci.example/run/7',
    });
    expect(record).to.include({
      preset: 'hybrid',
      runId: '20261122-abc123',
      emulated: true,
      provider: 'netns',
      status: 'failed',
      link: 'https://ci.example/run/7',
      addedAt: '2026-11-22T04:00:00.000Z',
    });
    expect(record.cells.map((c) => [c.cell, c.verdict, c.detail])).to.deep.equal([
      [ok.cell, 'pass', undefined],
      [bad.cell, 'fail', 'far end saw 10.244.0.2'],
    ]);
  });

  it('files the run under --preset when given', () => {
    expect(recordFromResults(results([ok]), 'r.json', { preset: 'nightly-a' }).preset).to.equal(
      'nightly-a',
    );
  });

  it('shortens long details and drops control characters', () => {
    const detail = `\u001b[31mred\u001b[0m ${'x'.repeat(1000)}`;
    const record = recordFromResults(results([{ ...bad, detail }]), 'r.json');
    const kept = record.cells[0]!.detail!;
    expect(kept.length).to.equal(DETAIL_MAX);
    expect(kept.startsWith('red x')).to.be.true;
  });

  it('judges the run: failures, then infrastructure, then interruption', () => {
    const status = (cells: { cell: string; verdict: string }[], extra = {}) =>
      recordFromResults(results(cells, extra), 'r.json').status;
    expect(status([ok])).to.equal('passed');
    expect(status([ok, { ...bad, verdict: 'unexpected-pass' }])).to.equal('failed');
    expect(status([])).to.equal('infra');
    expect(status([{ cell: 'infrastructure/lab-ready', verdict: 'infra-error' }])).to.equal(
      'infra',
    );
    const hook = { classname: 'infrastructure', title: 'deploy', durationMs: 0 };
    expect(status([ok], { other: [{ ...hook, state: 'hook-failed' }] })).to.equal('infra');
    expect(status([ok], { interrupted: 'SIGTERM' })).to.equal('interrupted');
    expect(status([bad], { interrupted: 'SIGTERM' })).to.equal('failed');
  });

  it('names the file and the field of a bad results file', () => {
    const data = results([ok, { ...bad, verdict: 'broken' }]);
    const error = failure(() => recordFromResults(data, '/ci/a/results.json'));
    expect(error.message).to.contain('/ci/a/results.json');
    expect(error.message).to.contain('cells[1].verdict: expected pass|fail|');
    expect(error.message).to.contain('got "broken"');
  });

  it('names missing run fields', () => {
    const data = results([ok]) as { run: Record<string, unknown> };
    delete data.run.emulated;
    data.run.startedAt = 'yesterday';
    const error = failure(() => recordFromResults(data, 'r.json'));
    expect(error.message).to.contain('run.emulated: required');
    expect(error.message).to.contain('run.startedAt: expected an ISO date');
  });

  it('rejects a truncated cell list and duplicate cells', () => {
    const full = results([ok, bad]);
    const truncated = { ...full, totals: { ...full.totals, cells: 3 } };
    expect(failure(() => recordFromResults(truncated, 'r.json')).message).to.contain(
      'totals.cells is 3 but cells has 2 entries',
    );
    expect(failure(() => recordFromResults(results([ok, ok]), 'r.json')).message).to.contain(
      'cells[1].cell: duplicate cell id',
    );
  });

  it('rejects preset names that cannot be file names', () => {
    const error = failure(() => recordFromResults(results([ok]), 'r.json', { preset: '../x' }));
    expect(error.message).to.contain('"../x" (from --preset)');
  });

  it('reads files, naming the file when it is missing or not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hl-results-'));
    dirs.push(dir);
    const good = join(dir, 'results.json');
    writeFileSync(good, JSON.stringify(results([ok])));
    expect(readResultsFile(good).cells).to.have.length(1);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"run": ');
    expect(failure(() => readResultsFile(broken)).message).to.contain(`${broken} is not JSON`);
    expect(failure(() => readResultsFile(join(dir, 'nope.json'))).message).to.contain(
      'cannot read results file',
    );
  });
});
