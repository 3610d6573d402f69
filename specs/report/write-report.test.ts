import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { sampleReport } from '../testing/sample-report.ts';
import { renderResultsJson, resultsDir, writeReport } from './write-report.ts';

describe('report: writeReport', function () {
  it('writes the four result files, and nothing else, into the directory', function () {
    const dir = join(mkdtempSync(join(tmpdir(), 'hybrid-write-')), 'nested');
    const files = writeReport(sampleReport(true), dir);
    expect(readdirSync(dir).sort()).to.deep.equal([
      'junit_01.xml',
      'matrix.html',
      'results.json',
      'summary.md',
    ]);
    expect(files.junit).to.equal(join(dir, 'junit_01.xml'));
  });

  it('takes the directory from RESULTS_DIR, else test-results/', function () {
    expect(resultsDir({ RESULTS_DIR: '/tmp/out' })).to.equal('/tmp/out');
    expect(resultsDir({})).to.equal(resolve('test-results'));
    expect(resultsDir({ RESULTS_DIR: '' })).to.equal(resolve('test-results'));
  });

  it('renders results.json as { run, cells, totals } (plus other tests)', function () {
    const report = sampleReport(true);
    const json = JSON.parse(renderResultsJson(report)) as Record<string, unknown>;
    expect(Object.keys(json)).to.deep.equal(['run', 'cells', 'totals', 'other']);
    expect(json.run).to.deep.equal(report.run);
    expect(json.cells).to.deep.equal(JSON.parse(JSON.stringify(report.cells)));
    expect(json.totals).to.deep.include({ cells: 64, passed: 53, failed: 3, unexpectedPasses: 1 });
    expect((json.run as { emulated: boolean }).emulated).to.equal(true);
  });

  it('labels every output of an emulated run as emulated', function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-emulated-'));
    const files = writeReport(sampleReport(true), dir);
    expect(readFileSync(files.junit, 'utf8')).to.include('hybrid-lab conformance (EMULATED)');
    expect(readFileSync(files.summary, 'utf8')).to.include('EMULATED dataplane');
    expect(readFileSync(files.html, 'utf8')).to.include('EMULATED dataplane');
    expect(readFileSync(files.json, 'utf8')).to.include('"emulated": true');
  });
});
