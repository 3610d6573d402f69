// The history (lab/) reads results.json without importing the suite (specs/): this keeps the two in step.
import { expect } from 'chai';
import { recordFromResults } from '../lab/history/results-input.ts';
import { sampleReport } from '../specs/testing/sample-report.ts';
import { renderResultsJson } from '../specs/report/write-report.ts';

describe('results.json → history record (contract with the suite reporter)', () => {
  for (const emulated of [true, false]) {
    it(`reads every cell of a ${emulated ? 'emulated' : 'real'} run the reporter writes`, () => {
      const report = sampleReport(emulated);
      const record = recordFromResults(JSON.parse(renderResultsJson(report)), 'results.json');
      expect(record.emulated).to.equal(emulated);
      expect(record.runId).to.equal(report.run.runId);
      expect(record.cells.map((c) => [c.cell, c.verdict])).to.deep.equal(
        report.cells.map((c) => [c.cell, c.verdict]),
      );
      // The sample has failures and unexpected passes: the run must read as failed.
      expect(report.totals.failed + report.totals.unexpectedPasses).to.be.greaterThan(0);
      expect(record.status).to.equal('failed');
      const failing = record.cells.filter((c) => c.verdict === 'fail').map((c) => c.detail);
      expect(failing).to.have.length(report.totals.failed);
      expect(failing.every((d) => d !== undefined && d.length > 0)).to.be.true;
    });
  }
});
