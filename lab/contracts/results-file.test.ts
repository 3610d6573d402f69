import { expect } from 'chai';
import {
  NOT_RUN_PREFIX,
  RunInfoSchema,
  VERDICTS,
  computeTotals,
  isRed,
  type CellResult,
  type OtherResult,
  type Verdict,
} from './results-file.ts';

const end = { os: 'linux' as const, node: 'lin1', label: 'linux pod' };
const cell = (verdict: Verdict, detail = ''): CellResult => ({
  row: 'pod-to-pod/linux-to-linux',
  cell: `pod-to-pod/linux-to-linux/${verdict}`,
  title: verdict,
  source: end,
  target: end,
  via: 'ip',
  placement: 'cross-node',
  expected: 'ok',
  verdict,
  detail,
  durationMs: 0,
  attempts: 1,
});
const other = (state: OtherResult['state']): OtherResult => ({
  classname: 'infrastructure',
  title: state,
  state,
  durationMs: 0,
});

describe('results.json contract', () => {
  it('calls a verdict red when it needs a look: a failure, an unexpected pass, an infra error', () => {
    expect(VERDICTS.filter(isRed)).to.deep.equal(['fail', 'unexpected-pass', 'infra-error']);
  });

  it('counts each verdict once, and the cells an interruption cut off as not run', () => {
    const cells = [
      ...VERDICTS.map((v) => cell(v)),
      cell('pass'),
      cell('skipped', `${NOT_RUN_PREFIX}run interrupted by SIGTERM`),
      // Flags count apart from verdicts: a slow pass and a flaky failure are still a pass and a failure.
      {
        ...cell('pass'),
        flags: {
          slow: {
            measure: 'total-p50',
            unit: 'ms',
            value: 900,
            baseline: 9,
            ratio: 100,
            basis: 'x',
          },
        },
      },
      {
        ...cell('fail'),
        flags: { flaky: { failed: 1, attempts: 2, fraction: 0.5, what: 'attempts' } },
      },
    ];
    const others = (['passed', 'failed', 'pending', 'hook-failed', 'not-run'] as const).map(other);
    expect(computeTotals(cells, others)).to.deep.equal({
      cells: 10,
      passed: 3,
      failed: 2,
      expectedFailures: 1,
      unexpectedPasses: 1,
      skipped: 2,
      infraErrors: 1,
      notRun: 1,
      otherTests: 5,
      otherFailures: 2,
      slow: 1,
      flaky: 1,
    });
  });

  it('a skip whose detail only mentions not running is not cut off', () => {
    const totals = computeTotals([cell('skipped', `lab: ${NOT_RUN_PREFIX}x`)], []);
    expect(totals).to.include({ skipped: 1, notRun: 0 });
  });

  it('only a skip is cut off: a failure whose detail starts like one is a failure', () => {
    const totals = computeTotals([cell('fail', `${NOT_RUN_PREFIX}x`)], []);
    expect(totals).to.include({ failed: 1, notRun: 0 });
  });

  it('refuses a run whose start is no date, naming the field', () => {
    const run = {
      runId: 'r',
      lab: 'hybrid',
      provider: 'netns',
      emulated: true,
      kubernetesVersion: '1.20.2',
      cni: 'flannel',
      osBuilds: {},
      profile: 'default',
      startedAt: '2026-01-02T03:04:05Z',
    };
    expect(RunInfoSchema.safeParse(run).success).to.be.true;
    const bad = RunInfoSchema.safeParse({ ...run, startedAt: 'yesterday' });
    expect(bad.success).to.be.false;
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).to.deep.equal([
      ['startedAt', 'expected an ISO date'],
    ]);
  });
});
