import { expect } from 'chai';
import { sampleReport } from '../testing/sample-report.ts';
import { makeReport } from '../model/report.ts';
import { runFacts } from './run-facts.ts';
import { RunInfoSchema } from '../../lab/contracts/results-file.ts';
import { renderJunit } from './junit-writer.ts';
import { renderSummary } from './summary-writer.ts';
import { renderMatrixHtml } from './matrix-html-writer.ts';

describe('report: the run facts every report shows', function () {
  const base = sampleReport(false);
  const run = {
    ...base.run,
    clusterDns: 'CoreDNS 1.11.1',
    windowsDsr: false,
    outboundNat: 'report' as const,
  };
  const report = makeReport(run, base.cells);

  it('lists the facts the run states, in order, and leaves out those it does not', function () {
    expect(runFacts(run).map((f) => [f.key, f.label])).to.deep.equal([
      ['cluster-dns', 'cluster DNS'],
      ['windows-dsr', 'windows DSR'],
      ['outbound-nat', 'outbound NAT'],
    ]);
    const bare = { ...base.run };
    delete bare.clusterDns;
    delete bare.windowsDsr;
    delete bare.outboundNat;
    expect(runFacts(bare)).to.deep.equal([]);
    expect(runFacts({ ...bare, outboundNat: 'node' })[0]!.value).to.match(/^node \(/);
    expect(runFacts({ ...bare, outboundNat: 'preserve' })[0]!.value).to.match(/^preserve \(/);
  });

  it('JUnit, the summary and matrix.html each carry every fact', function () {
    const junit = renderJunit(report);
    const summary = renderSummary(report);
    const html = renderMatrixHtml(report);
    for (const fact of runFacts(run)) {
      expect(junit, fact.key).to.contain(`<property name="${fact.key}" value="${fact.value}"`);
      expect(summary, fact.label).to.contain(`| ${fact.label} | ${fact.value} |`);
      expect(html, fact.label).to.contain(fact.label);
    }
    expect(html).to.contain('report (not assumed: each cell names the address the far end saw)');
  });

  it('every field of a run is either one of these facts or one the writers show their own way', function () {
    // What the writers show in their own place: the headline, the EMULATED banner, the mesh line,
    // the per-node OS rows, the lab's own facts (fact.*), the profile and times.
    const ownWay = [
      'runId',
      'lab',
      'provider',
      'emulated',
      'kubernetesVersion',
      'cni',
      'facts',
      'osBuilds',
      'profile',
      'unexpectedPass',
      'startedAt',
      'finishedAt',
      'suite',
      'mesh',
    ];
    const asFacts = ['clusterDns', 'windowsDsr', 'outboundNat'];
    expect(runFacts(run)).to.have.length(asFacts.length);
    expect(Object.keys(RunInfoSchema.shape).sort()).to.deep.equal([...ownWay, ...asFacts].sort());
  });
});
