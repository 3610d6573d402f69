import { expect } from 'chai';
import type { CellMeta, CellResult } from '../../lab/contracts/results-file.ts';
import { RunRecorder } from './run-recorder.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';

const meta = (cell: string): CellMeta => ({
  row: cell.split('/').slice(0, 2).join('/'),
  cell,
  title: cell.replace(/\//g, ' '),
  source: { os: 'linux', node: 'lin1', label: 'linux pod' },
  target: { os: 'windows', node: 'win1', label: 'windows pod' },
  via: 'ip',
  placement: 'cross-node',
  expected: 'ok',
});
const passed = (cell: string): CellResult => ({
  ...meta(cell),
  verdict: 'pass',
  actual: 'ok',
  detail: 'fine',
  durationMs: 5,
  attempts: 1,
});

describe('RunRecorder', function () {
  it('reports planned cells in plan order: results, skips with their reasons, the rest not run', function () {
    const recorder = new RunRecorder();
    recorder.plan([
      { meta: meta('a/b/c') },
      { meta: meta('a/b/skip'), skip: 'needs two windows nodes' },
      { meta: meta('a/b/flight') },
      { meta: meta('a/b/queued') },
    ]);
    recorder.started('a/b/flight');
    recorder.record(passed('a/b/c'));
    const report = recorder.report('SIGINT');
    expect(report.cells.map((c) => [c.cell, c.verdict, c.reason ?? ''])).to.deep.equal([
      ['a/b/c', 'pass', ''],
      ['a/b/skip', 'skipped', 'needs two windows nodes'],
      ['a/b/flight', 'skipped', 'not run: run interrupted by SIGINT while it ran'],
      ['a/b/queued', 'skipped', 'not run: run interrupted by SIGINT'],
    ]);
    expect(report.interrupted).to.equal('SIGINT');
    expect(report.totals).to.include({ cells: 4, passed: 1, skipped: 3, notRun: 2 });
  });

  it('keeps the first result of a cell', function () {
    const recorder = new RunRecorder();
    recorder.plan([{ meta: meta('a/b/c') }]);
    recorder.record(passed('a/b/c'));
    recorder.record({ ...passed('a/b/c'), verdict: 'fail', actual: 'timeout' });
    expect(recorder.report().cells[0]!.verdict).to.equal('pass');
  });

  it('names a failed hook as infrastructure and the cells it cut off as not run', function () {
    const recorder = new RunRecorder();
    recorder.plan([{ meta: meta('a/b/c') }]);
    recorder.hookFailed('infrastructure: lab ready and workloads deployed', new Error('no pods'));
    const report = recorder.report();
    expect(report.other).to.deep.include({
      classname: 'infrastructure',
      title: 'infrastructure: lab ready and workloads deployed',
      state: 'hook-failed',
      message: 'no pods',
      errorType: 'Error',
      stack: report.other[0]!.stack,
      durationMs: 0,
    });
    expect(report.cells[0]!.reason).to.equal('not run: a hook failed (see infrastructure)');
    expect(report.totals.otherFailures).to.equal(1);
  });

  it('reports a lab that could not be opened as the one infrastructure cell, with the run facts it has', function () {
    const recorder = new RunRecorder();
    recorder.openFailed('lab hybrid is down, not up');
    const report = recorder.report();
    expect(report.cells.map((c) => [c.cell, c.verdict, c.detail])).to.deep.equal([
      ['infrastructure/lab-ready', 'infra-error', 'lab hybrid is down, not up'],
    ]);
    expect(report.run.lab).to.equal('unknown');
    expect(report.run.finishedAt).to.be.a('string');
  });

  it('keeps the run facts as they were set, a copy', function () {
    const recorder = new RunRecorder();
    const info = {
      ...recorder.report().run,
      lab: 'hybrid',
      osBuilds: { win1: '10.0.20348' },
    };
    recorder.setRun(info);
    info.osBuilds.win1 = 'changed';
    const run = recorder.report().run;
    expect(run.lab).to.equal('hybrid');
    expect(run.osBuilds).to.deep.equal({ win1: '10.0.20348' });
  });

  it('a revised result replaces the first; evidence attaches to a recorded cell only', function () {
    const recorder = new RunRecorder();
    recorder.plan([{ meta: meta('a/b/c') }]);
    recorder.record(passed('a/b/c'));
    recorder.revise({ ...passed('a/b/c'), verdict: 'fail', actual: 'slow' });
    const evidence = { diedAt: 'dropped on lin1', files: ['evidence/a/b/c/path.txt'] };
    recorder.attachEvidence('a/b/c', evidence);
    recorder.attachEvidence('a/b/unknown', evidence);
    const cells = recorder.report().cells;
    expect(cells.map((c) => [c.cell, c.verdict, c.evidence])).to.deep.equal([
      ['a/b/c', 'fail', evidence],
    ]);
  });

  it('reports a recorded cell nobody planned after the planned ones', function () {
    const recorder = new RunRecorder();
    recorder.plan([{ meta: meta('a/b/c') }]);
    recorder.record(passed('x/y/extra'));
    recorder.record(passed('a/b/c'));
    expect(recorder.report().cells.map((c) => c.cell)).to.deep.equal(['a/b/c', 'x/y/extra']);
  });

  it('a run that ended early names that; a skipped cell has no detail', function () {
    const recorder = new RunRecorder();
    recorder.plan([{ meta: meta('a/b/c') }, { meta: meta('a/b/skip'), skip: 'needs windows' }]);
    const [queued, skipped] = recorder.report().cells;
    expect(queued).to.include({
      reason: 'not run: the run ended before this cell',
      detail: 'not run: the run ended before this cell',
    });
    expect(skipped).to.include({ verdict: 'skipped', reason: 'needs windows', detail: '' });
  });

  it("keeps a failed hook's stack", function () {
    const recorder = new RunRecorder();
    const error = new Error('deploy timed out');
    recorder.hookFailed('infrastructure: deploy', error, 12);
    expect(recorder.report().other[0]).to.include({ stack: error.stack, durationMs: 12 });
  });

  it("keeps a failed hook's hint under its message: what the user can do about it", function () {
    const recorder = new RunRecorder();
    recorder.hookFailed(
      'infrastructure: deploy',
      new InfrastructureError('pods not Ready: ErrImagePull', {
        hint: 'a private registry needs IMAGE_PULL_SECRET',
      }),
    );
    expect(recorder.report().other[0]?.message).to.equal(
      'pods not Ready: ErrImagePull\nhint: a private registry needs IMAGE_PULL_SECRET',
    );
  });
});
