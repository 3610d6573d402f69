import { expect } from 'chai';
import type { Verdict } from './verdicts.ts';
import {
  upstreamHasProblems,
  upstreamRowOf,
  upstreamTotals,
  type CrossCheckRow,
  type UpstreamRun,
  type UpstreamTest,
  type UpstreamTotals,
} from './upstream-results.ts';

const test = (name: string, verdict: Verdict): UpstreamTest => ({
  name,
  verdict,
  selected: true,
  durationMs: 1000,
});

const noProblem: UpstreamTotals = {
  tests: 3,
  passed: 2,
  failed: 0,
  expectedFailures: 1,
  unexpectedPasses: 0,
  skipped: 0,
  infraErrors: 0,
};

const crossCheck = (agreement: CrossCheckRow['agreement']): CrossCheckRow => ({
  test: '[sig-network] Services should serve a basic endpoint from pods',
  upstream: 'pass',
  rows: ['pod-to-service/linux-to-linux'],
  matrix: agreement === 'disagree' ? 'fail' : 'pass',
  cells: [],
  agreement,
});

function run(extra: Partial<UpstreamRun> = {}): UpstreamRun {
  return {
    engine: 'e2e.test v1.20.2',
    lab: 'k35',
    status: 'ran',
    focus: '\\[sig-network\\]',
    skip: '\\[Slow\\]',
    startedAt: '2026-11-27T14:00:00.000Z',
    totals: noProblem,
    tests: [],
    ...extra,
  };
}

describe('upstream results', () => {
  it('counts the tests by verdict', () => {
    const tests = [
      test('a', 'pass'),
      test('b', 'pass'),
      test('c', 'pass'),
      test('d', 'fail'),
      test('e', 'fail'),
      test('f', 'expected-failure'),
      test('g', 'unexpected-pass'),
      test('h', 'skipped'),
      test('i', 'skipped'),
      test('j', 'skipped'),
      test('k', 'skipped'),
      test('l', 'infra-error'),
    ];
    expect(upstreamTotals(tests)).to.deep.equal({
      tests: 12,
      passed: 3,
      failed: 2,
      expectedFailures: 1,
      unexpectedPasses: 1,
      skipped: 4,
      infraErrors: 1,
    });
  });

  it('finds no problem in a run that ran, with passes, an expected failure and agreeing cross-checks', () => {
    expect(upstreamHasProblems(run())).to.equal(false);
    expect(upstreamHasProblems(run({ crossCheck: [crossCheck('agree')] }))).to.equal(false);
    expect(upstreamHasProblems(run({ crossCheck: [crossCheck('not-comparable')] }))).to.equal(
      false,
    );
  });

  it('finds a problem in a run that broke, even with nothing counted red', () => {
    expect(upstreamHasProblems(run({ status: 'infra-error' }))).to.equal(true);
  });

  it('finds a problem in each red count alone: a failure, an unexpected pass, an infrastructure error', () => {
    expect(upstreamHasProblems(run({ totals: { ...noProblem, failed: 1 } }))).to.equal(true);
    expect(upstreamHasProblems(run({ totals: { ...noProblem, unexpectedPasses: 1 } }))).to.equal(
      true,
    );
    expect(upstreamHasProblems(run({ totals: { ...noProblem, infraErrors: 1 } }))).to.equal(true);
  });

  it('finds a problem in one disagreeing cross-check among agreeing ones', () => {
    expect(
      upstreamHasProblems(run({ crossCheck: [crossCheck('agree'), crossCheck('disagree')] })),
    ).to.equal(true);
  });

  it("rows an upstream spec by the sig its name starts with, and one without under 'other'", () => {
    expect(
      upstreamRowOf('[sig-network] Services should serve a basic endpoint from pods'),
    ).to.equal('upstream-e2e/sig-network');
    expect(
      upstreamRowOf('[sig-api-machinery] Watchers should observe an object deletion'),
    ).to.equal('upstream-e2e/sig-api-machinery');
    expect(upstreamRowOf('Networking should provide Internet connection [sig-network]')).to.equal(
      'upstream-e2e/other',
    );
    expect(upstreamRowOf('[Conformance] a spec of no sig')).to.equal('upstream-e2e/other');
  });
});
