/** A small report whose cells carry timings and flags: flaky, slow, retried and failed. */
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { makeReport, type Report } from '../model/report.ts';
import { HOSTILE, smallReport } from './small-report.ts';

const timing = {
  samples: 4,
  totalP50Ms: 2.1,
  totalMaxMs: 3.4,
  connectP50Ms: 0.3,
  connectMaxMs: 0.5,
};

/** smallReport(false) plus a flaky pass, a slow failure and a cell that failed every retry. */
export function flaggedReport(): Report {
  const base = smallReport(false);
  const [pass, fail] = base.cells as [CellResult, CellResult];
  const flaky: CellResult = {
    ...pass,
    cell: 'pod-to-pod/windows-to-linux/cross-node/win2/lin1/ip',
    title: 'pod-to-pod windows-to-linux win2-to-lin1 cross-node via ip',
    attempts: 2,
    timing,
    failedAttempts: [
      { outcome: 'timeout', detail: `no answer within 3000 ms ${HOSTILE}`, durationMs: 3001 },
    ],
    flags: { flaky: { failed: 1, attempts: 2, fraction: 0.5, what: 'attempts' } },
  };
  const slow: CellResult = {
    ...pass,
    cell: 'pod-to-pod/windows-to-linux/cross-node/win1/lin2/ip',
    title: 'pod-to-pod windows-to-linux win1-to-lin2 cross-node via ip',
    verdict: 'fail',
    actual: 'slow',
    attempts: 4,
    timing: { samples: 4, totalP50Ms: 912, totalMaxMs: 1030 },
    flags: {
      slow: {
        measure: 'total-p50',
        unit: 'ms',
        value: 912,
        baseline: 2.1,
        ratio: 434.3,
        basis: 'median of 9 pod-to-pod/windows-to-linux cross-node cells via ip',
      },
    },
    detail: 'slow: total-p50 912 ms is 434.3× the baseline 2.1 ms',
  };
  const retried: CellResult = {
    ...fail,
    failedAttempts: [
      { outcome: 'wrong-source-ip', detail: 'target saw 10.244.2.1', durationMs: 4 },
      { outcome: 'wrong-source-ip', detail: 'target saw 10.244.2.1', durationMs: 5 },
    ],
  };
  const cells = [flaky, slow, retried, ...base.cells.filter((c) => c !== fail)];
  return makeReport(base.run, cells, base.other);
}
