import { expect } from 'chai';
import { hasProblems, makeReport, runStatus, unknownRunInfo } from './report.ts';
import type { Totals } from '../../lab/contracts/results-file.ts';

const CLEAN: Totals = {
  cells: 4,
  passed: 2,
  failed: 0,
  expectedFailures: 1,
  unexpectedPasses: 0,
  skipped: 1,
  infraErrors: 0,
  notRun: 0,
  otherTests: 3,
  otherFailures: 0,
};

describe('report model', () => {
  it('a run whose cells all went as expected has no problems', () => {
    expect(hasProblems(CLEAN)).to.equal(false);
    expect(runStatus(CLEAN)).to.equal('ok');
  });

  it('each kind of red alone is a problem, an unexpected pass included', () => {
    for (const red of [
      'failed',
      'unexpectedPasses',
      'infraErrors',
      'otherFailures',
      'notRun',
    ] as const) {
      const totals = { ...CLEAN, [red]: 1 };
      expect(hasProblems(totals), red).to.equal(true);
      expect(runStatus(totals), red).to.equal('problems');
    }
  });

  it('a run without cells is empty, unless something else went wrong', () => {
    const none = { ...CLEAN, cells: 0, passed: 0, expectedFailures: 0, skipped: 0 };
    expect(runStatus(none)).to.equal('empty');
    expect(runStatus({ ...none, otherFailures: 1 })).to.equal('problems');
  });

  it('assembles a report with its totals, and the interruption only when there was one', () => {
    const run = unknownRunInfo(new Date('2026-01-02T03:04:05Z'));
    const plain = makeReport(run, []);
    expect(plain).to.deep.equal({ run, cells: [], other: [], totals: plain.totals });
    expect(plain).to.not.have.property('interrupted');
    expect(plain.totals.cells).to.equal(0);
    expect(makeReport(run, [], [], 'SIGINT').interrupted).to.equal('SIGINT');
  });

  it('names an unknown run after HYBRID_RUN_ID, else after when it started', () => {
    const saved = process.env.HYBRID_RUN_ID;
    try {
      delete process.env.HYBRID_RUN_ID;
      expect(unknownRunInfo(new Date('2026-01-02T03:04:05Z'))).to.deep.equal({
        runId: 'run-2026-01-02T03:04:05.000Z',
        lab: 'unknown',
        provider: 'unknown',
        emulated: false,
        kubernetesVersion: 'unknown',
        cni: 'unknown',
        osBuilds: {},
        profile: 'unknown',
        startedAt: '2026-01-02T03:04:05.000Z',
      });
      process.env.HYBRID_RUN_ID = 'nightly-7';
      expect(unknownRunInfo(new Date()).runId).to.equal('nightly-7');
    } finally {
      if (saved === undefined) delete process.env.HYBRID_RUN_ID;
      else process.env.HYBRID_RUN_ID = saved;
    }
  });
});
