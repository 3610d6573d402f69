import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ResultsFileSchema } from '../../lab/contracts/results-file.ts';
import { UpstreamRunSchema } from '../../lab/contracts/upstream-results.ts';
import { validateJunit } from '../testing/junit-validator.ts';
import { HAIRPIN, matrixReport, POD_SERVICE_UDP, upstreamRun } from '../testing/upstream-sample.ts';
import { writeReport } from '../report/write-report.ts';
import type { CrossCheckEntry } from './upstream-catalogue.ts';
import { writeUpstream } from './upstream-report.ts';

const ENTRIES: CrossCheckEntry[] = [
  { test: POD_SERVICE_UDP, rows: ['pod-to-service-udp/linux-to-linux'], via: 'cluster-ip' },
  { test: HAIRPIN, rows: ['hairpin/linux'] },
];

function folderWithMatrix(broken: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'hybrid-upstream-'));
  writeReport(matrixReport(broken), dir);
  return dir;
}

describe('upstream report', function () {
  it('beside a matrix run of the same lab: the cross-check joins results.json, summary.md and matrix.html', function () {
    const dir = folderWithMatrix(false);
    const written = writeUpstream(upstreamRun('pass'), dir, ENTRIES);
    expect(written.merged).to.equal(true);
    const results = ResultsFileSchema.parse(
      JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')),
    );
    expect(results.upstream?.totals).to.deep.include({
      passed: 2,
      failed: 0,
      expectedFailures: 1,
      skipped: 2,
    });
    expect(results.upstream?.crossCheck?.map((r) => r.agreement)).to.deep.equal(['agree', 'agree']);
    expect(results.cells).to.have.length(3);
    const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(summary).to.match(/^## ✅ hybrid-lab conformance/);
    expect(summary).to.include('## ✅ Upstream e2e.test v1.20.2 on k35');
    expect(summary).to.include(
      '**2 passed · 0 failed · 1 expected failures (lab limits) · 2 skipped (1 left out, 1 by e2e.test) — 5 specs**',
    );
    expect(summary).to.include('### Cross-check: upstream beside the matrix');
    expect(summary).not.to.include('DISAGREE');
    expect(summary).to.include('the stand-in has no such records');
    expect(readFileSync(join(dir, 'matrix.html'), 'utf8')).to.include(
      'Cross-check: upstream beside the matrix',
    );
    expect(
      UpstreamRunSchema.parse(JSON.parse(readFileSync(written.json, 'utf8'))).crossCheck,
    ).to.have.length(2);
  });

  it('a disagreement is loud: banner under the headline, red headline, failing JUnit testcase', async function () {
    const dir = folderWithMatrix(false);
    const written = writeUpstream(upstreamRun('fail'), dir, ENTRIES);
    const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(summary).to.match(/^## ❌ hybrid-lab conformance/);
    const banner = summary.indexOf('1 DISAGREEMENT between upstream e2e.test and the matrix');
    expect(banner).to.be.greaterThan(0).and.lessThan(summary.indexOf('| run |'));
    expect(summary).to.include('upstream FAILED');
    expect(summary).to.include('pod-to-service-udp/linux-to-linux/cp1/cluster-ip');
    expect(readFileSync(join(dir, 'matrix.html'), 'utf8')).to.include('banner-disagree');
    const junit = readFileSync(written.junit, 'utf8');
    expect(junit).to.match(
      /<testcase classname="cross-check" name="[^"]*pod-Service: udp vs pod-to-service-udp\/linux-to-linux"/,
    );
    expect(junit).to.include('type="disagreement"');
    expect(await validateJunit(written.junit)).to.deep.equal({ valid: true, file: written.junit });
  });

  it('both sides red agree: the break shows on both, no disagreement', function () {
    const dir = folderWithMatrix(true);
    const written = writeUpstream(upstreamRun('fail'), dir, ENTRIES);
    expect(written.run.crossCheck?.[0]).to.deep.include({
      upstream: 'fail',
      matrix: 'partial',
      agreement: 'agree',
    });
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).not.to.include('DISAGREEMENT');
  });

  it('JUnit: one testcase per spec under its sig, known limits skipped with their reason, valid against the schema', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-upstream-'));
    const written = writeUpstream(upstreamRun('fail'), dir, ENTRIES);
    expect(written.merged).to.equal(false);
    expect(written.notMerged).to.match(/no results\.json/);
    expect(existsSync(join(dir, 'summary.md'))).to.equal(false);
    const junit = readFileSync(written.junit, 'utf8');
    expect(junit).to.include('<testsuite name="upstream e2e.test v1.20.2"');
    expect(junit).to.match(
      /classname="upstream-e2e\/sig-network" name="\[sig-network\] Networking Granular Checks: Services should function for pod-Service: udp"[^>]*>\s*<failure/,
    );
    expect(junit).to.include(
      'expected failure (limit of the lab): the stand-in has no such records',
    );
    expect(junit).to.include('classname="upstream-e2e/sig-windows"');
    expect(junit).to.include('LoadBalancer &lt;&amp;');
    expect(junit).to.include(
      '<failure message="failed dialing endpoint, did not find expected responses"',
    );
    expect(await validateJunit(written.junit)).to.deep.equal({ valid: true, file: written.junit });
  });

  it('a matrix run of another lab is left alone', function () {
    const dir = folderWithMatrix(false);
    const before = readFileSync(join(dir, 'results.json'), 'utf8');
    const written = writeUpstream({ ...upstreamRun('pass'), lab: 'other' }, dir, ENTRIES);
    expect(written.merged).to.equal(false);
    expect(written.notMerged).to.include('is of lab k35, not other');
    expect(readFileSync(join(dir, 'results.json'), 'utf8')).to.equal(before);
  });

  it('an emulated lab`s skipped run says why in its JUnit', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-upstream-'));
    const run = {
      ...upstreamRun('pass'),
      status: 'skipped' as const,
      reason: 'the lab is emulated',
      tests: [],
    };
    const written = writeUpstream(run, dir, ENTRIES);
    expect(readFileSync(written.junit, 'utf8')).to.match(/<skipped>the lab is emulated<\/skipped>/);
    expect(await validateJunit(written.junit)).to.deep.equal({ valid: true, file: written.junit });
  });
});
