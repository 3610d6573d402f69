import { expect } from 'chai';
import Mocha from 'mocha';
import { CELL_META, CELL_RESULT, type CellMeta, type CellResult } from '../engine/results.ts';
import { CellCollector } from './cell-collector.ts';
import { fixtureMeta, fixtureRun } from './fixtures/fixture-cells.ts';
import { clearRunInfo, getRunInfo, setOpenFailure, setRunInfo } from './run-context.ts';

function cellTest(suite: Mocha.Suite, meta: CellMeta): Mocha.Test {
  const test = new Mocha.Test(meta.title, () => undefined);
  Object.assign(test, { [CELL_META]: meta });
  suite.addTest(test);
  return test;
}

function withResult(test: Mocha.Test, patch: Partial<CellResult>): Mocha.Test {
  const meta = (test as unknown as Record<string, CellMeta>)[CELL_META]!;
  const result: CellResult = {
    ...meta,
    verdict: 'pass',
    actual: 'ok',
    detail: '',
    durationMs: 5,
    attempts: 1,
    ...patch,
  };
  return Object.assign(test, { [CELL_RESULT]: result });
}

describe('report: cell collector', function () {
  let root: Mocha.Suite;
  let suite: Mocha.Suite;
  let a: Mocha.Test, b: Mocha.Test, c: Mocha.Test, infra: Mocha.Test;

  beforeEach(function () {
    clearRunInfo();
    root = new Mocha.Suite('', new Mocha.Context());
    root.root = true;
    suite = Mocha.Suite.create(root, 'hybrid matrix');
    a = cellTest(suite, fixtureMeta('pod-to-pod/linux-to-windows', 'cross-node/ip'));
    b = cellTest(suite, fixtureMeta('pod-to-pod/windows-to-linux', 'cross-node/dns'));
    c = cellTest(suite, fixtureMeta('outbound-nat/windows', 'win1/ip', { reason: 'known' }));
    infra = cellTest(suite, fixtureMeta('infrastructure', 'lab-ready'));
  });
  after(clearRunInfo);

  it('reports a lab that could not be opened as the infrastructure testcase even when --grep filtered it out', function () {
    setOpenFailure('no lab to test');
    const col = new CellCollector();
    col.plan(root, { grep: /dns-only-nothing-matches/ });
    const report = col.report();
    expect(report.cells.map((x) => `${x.cell} ${x.verdict} ${x.detail}`)).to.deep.equal([
      'infrastructure/lab-ready infra-error no lab to test',
    ]);
    expect(report.totals.infraErrors).to.equal(1);
  });

  it('reports the engine results in definition order with the published run info', function () {
    setRunInfo(fixtureRun());
    const col = new CellCollector();
    col.plan(root);
    col.failed(
      withResult(b, { verdict: 'fail', actual: 'timeout', detail: 'no answer' }),
      new Error('x'),
    );
    col.passed(withResult(a, {}));
    col.pending(withResult(c, { verdict: 'expected-failure', actual: 'timeout' }));
    col.failed(withResult(infra, { verdict: 'infra-error', actual: 'error' }), new Error('y'));
    const report = col.report();
    expect(report.cells.map((x) => x.verdict)).to.deep.equal([
      'pass',
      'fail',
      'expected-failure',
      'infra-error',
    ]);
    expect(report.run.lab).to.equal('fixture-lab');
    expect(report.run.finishedAt).to.be.a('string');
    expect(getRunInfo()?.finishedAt).to.equal(undefined);
    expect(report.totals).to.include({
      cells: 4,
      passed: 1,
      failed: 1,
      expectedFailures: 1,
      infraErrors: 1,
      notRun: 0,
    });
  });

  it('synthesises results for cells the engine could not judge', function () {
    const col = new CellCollector();
    col.plan(root);
    col.failed(a, new Error('Timeout of 2000ms exceeded'));
    col.pending(c);
    col.failed(infra, new Error('lab not ready'));
    col.passed(b);
    const [ra, rb, rc, ri] = col.report().cells;
    expect(ra).to.include({ verdict: 'fail', actual: 'error' });
    expect(ra?.detail).to.include('Timeout of 2000ms exceeded');
    expect(rb).to.include({ verdict: 'pass', actual: 'ok' });
    expect(rc).to.include({ verdict: 'skipped', detail: 'known' });
    expect(ri).to.include({ verdict: 'infra-error' });
  });

  it('plans only the cells mocha will run under --grep / --invert', function () {
    const only = new CellCollector();
    only.plan(root, { grep: /windows-to-linux/ });
    expect(only.report().cells.map((x) => x.cell)).to.deep.equal([
      'pod-to-pod/windows-to-linux/cross-node/dns',
    ]);
    const inverted = new CellCollector();
    inverted.plan(root, { grep: /windows-to-linux/, invert: true });
    expect(inverted.report().cells).to.have.length(3);
  });

  it('marks planned cells that never ran, naming the interruption and the cell in flight', function () {
    const col = new CellCollector();
    col.plan(root);
    col.passed(withResult(a, {}));
    col.begin(b);
    const report = col.report('SIGINT');
    expect(report.interrupted).to.equal('SIGINT');
    expect(report.cells.map((x) => [x.verdict, x.detail])).to.deep.equal([
      ['pass', ''],
      ['skipped', 'not run: run interrupted by SIGINT while it ran'],
      ['skipped', 'not run: run interrupted by SIGINT'],
      ['skipped', 'not run: run interrupted by SIGINT'],
    ]);
    expect(report.totals).to.include({ skipped: 3, notRun: 3 });
    expect(report.run.lab).to.equal('unknown');
  });

  it('reports failed hooks as infrastructure and the cells they cut off as not run', function () {
    const col = new CellCollector();
    col.plan(root);
    const hook = new Mocha.Hook('"before all" hook: lab ready', () => undefined);
    hook.parent = suite;
    col.failed(hook, new Error('deploy failed'));
    const report = col.report();
    expect(report.other).to.deep.include({
      classname: 'infrastructure',
      title: 'hybrid matrix "before all" hook: lab ready',
      state: 'hook-failed',
      message: 'deploy failed',
      errorType: 'Error',
      stack: report.other[0]?.stack,
      durationMs: 0,
    });
    expect(
      report.cells.every((x) => x.detail === 'not run: a hook failed (see infrastructure)'),
    ).to.equal(true);
    expect(report.totals.otherFailures).to.equal(1);
  });

  it('reports plain tests under their parent suite title', function () {
    const plain = new Mocha.Test('helper works', () => undefined);
    Mocha.Suite.create(suite, 'helpers').addTest(plain);
    const col = new CellCollector();
    col.plan(root);
    col.failed(plain, new Error('nope'));
    expect(col.report().other).to.deep.equal([
      {
        classname: 'hybrid matrix helpers',
        title: 'helper works',
        state: 'failed',
        message: 'nope',
        errorType: 'Error',
        stack: col.report().other[0]?.stack,
        durationMs: 0,
      },
    ]);
  });

  it('finds the cell of a retried test, whose clone lost the metadata', function () {
    const col = new CellCollector();
    col.plan(root);
    const clone = a.clone();
    (clone as unknown as { currentRetry(n: number): void }).currentRetry(1);
    col.passed(clone);
    expect(col.report().cells[0]).to.include({
      cell: 'pod-to-pod/linux-to-windows/cross-node/ip',
      verdict: 'pass',
    });
    expect(col.report().other).to.deep.equal([]);
  });
});
