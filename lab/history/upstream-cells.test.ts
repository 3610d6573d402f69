import { expect } from 'chai';
import type { UpstreamRun } from '../contracts/upstream-results.ts';
import { resultsDocument } from '../testing/history-records.ts';
import { recordFromResults } from './results-input.ts';
import { upstreamCells } from './upstream-cells.ts';

const UDP =
  '[sig-network] Networking Granular Checks: Services should function for pod-Service: udp';

function upstream(udp: 'pass' | 'fail', agreement: 'agree' | 'disagree'): UpstreamRun {
  const tests = [
    {
      name: UDP,
      verdict: udp,
      selected: true,
      durationMs: 1,
      ...(udp === 'fail' ? { message: 'no answer' } : {}),
    },
    {
      name: '[sig-network] Ingress API should support creating',
      verdict: 'skipped' as const,
      selected: false,
      reason: 'not in the default focus',
      durationMs: 0,
    },
    {
      name: '[sig-windows] Services should work',
      verdict: 'skipped' as const,
      selected: true,
      reason: 'skipped by e2e.test: windows',
      durationMs: 0,
    },
  ];
  return {
    engine: 'e2e.test v1.20.2',
    lab: 'hybrid',
    status: 'ran',
    focus: 'x',
    skip: '',
    startedAt: '2026-11-22T02:00:00Z',
    tests,
    totals: {
      tests: 3,
      passed: udp === 'pass' ? 1 : 0,
      failed: udp === 'fail' ? 1 : 0,
      expectedFailures: 0,
      unexpectedPasses: 0,
      skipped: 2,
      infraErrors: 0,
    },
    crossCheck: [
      {
        test: UDP,
        upstream: udp,
        rows: ['pod-to-service-udp/linux-to-linux'],
        matrix: 'pass',
        cells:
          agreement === 'disagree' ? ['pod-to-service-udp/linux-to-linux/lin1/cluster-ip'] : [],
        agreement,
      },
    ],
  };
}

describe('history: upstream e2e.test like cells', () => {
  it('tracks each spec the run chose under upstream-e2e/<sig>, and each cross-check', () => {
    const cells = upstreamCells(upstream('fail', 'disagree'), (t) => t);
    expect(cells.map((c) => [c.cell, c.row, c.verdict, c.detail])).to.deep.equal([
      [`upstream-e2e/${UDP}`, 'upstream-e2e/sig-network', 'fail', 'no answer'],
      [
        'upstream-e2e/[sig-windows] Services should work',
        'upstream-e2e/sig-windows',
        'skipped',
        'skipped by e2e.test: windows',
      ],
      [
        `cross-check/${UDP}`,
        'cross-check',
        'fail',
        'upstream fail, matrix pass: pod-to-service-udp/linux-to-linux/lin1/cluster-ip',
      ],
    ]);
  });

  it('a record of a run whose upstream part failed or disagreed is a failed run; all green passes', () => {
    const ok = { cell: 'pod-to-pod/linux-to-linux/cross-node/ip', verdict: 'pass' as const };
    const red = recordFromResults(
      resultsDocument([ok], { upstream: upstream('fail', 'agree') }),
      'r.json',
    );
    expect(red.status).to.equal('failed');
    expect(red.cells.map((c) => c.cell)).to.include(`upstream-e2e/${UDP}`);
    const disagree = recordFromResults(
      resultsDocument([ok], { upstream: upstream('pass', 'disagree') }),
      'r.json',
    );
    expect(disagree.status).to.equal('failed');
    const green = recordFromResults(
      resultsDocument([ok], { upstream: upstream('pass', 'agree') }),
      'r.json',
    );
    expect(green.status).to.equal('passed');
  });

  it('a skipped upstream run (an emulated lab) adds no cells', () => {
    expect(
      upstreamCells({ ...upstream('pass', 'agree'), status: 'skipped' }, (t) => t),
    ).to.deep.equal([]);
  });
});
