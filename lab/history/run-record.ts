/** One line of the history store: what a run of the suite found, reduced to what a trend needs. */
import { z } from 'zod';
import { VERDICTS, isoDate, type Verdict } from '../contracts/results-file.ts';

/** Bumped whenever a store line's shape changes, so an old line is never misread. */
export const RECORD_FORMAT = 1;

/** How a cell counts in a trend. */
export type CellOutcome =
  /** Passed. */
  | 'pass'
  /** Failed the run: a failure, or a pass the profile did not expect. */
  | 'fail'
  /** The lab was not ready: says nothing about the network path, not counted. */
  | 'infra'
  /** A failure the profile expects (known limitation): not counted. */
  | 'expected'
  /** Skipped or never ran: not counted. */
  | 'skipped';

const OUTCOME: Record<Verdict, CellOutcome> = {
  pass: 'pass',
  fail: 'fail',
  'unexpected-pass': 'fail',
  'infra-error': 'infra',
  'expected-failure': 'expected',
  skipped: 'skipped',
};

/** How a verdict counts in a trend. */
export function outcomeOf(verdict: Verdict): CellOutcome {
  return OUTCOME[verdict];
}

/** True for outcomes that say something about the cell: they make up its pass rate. */
export function counted(outcome: CellOutcome | undefined): outcome is 'pass' | 'fail' {
  return outcome === 'pass' || outcome === 'fail';
}

/** How a whole run ended, as the runs table shows it. */
export type RunStatus = 'passed' | 'failed' | 'infra' | 'interrupted';

export const RecordedCellSchema = z.object({
  cell: z.string().min(1),
  row: z.string(),
  title: z.string(),
  verdict: z.enum(VERDICTS),
  expected: z.string().optional(),
  actual: z.string().optional(),
  /** The evidence, shortened; kept only for cells that did not pass. */
  detail: z.string().optional(),
  /** Its requests' p50 and max that night (ms), as the probes measured them. */
  p50Ms: z.number().min(0).optional(),
  maxMs: z.number().min(0).optional(),
  /** How well, not only whether: flagged slow or flaky that night (whatever it did to the verdict). */
  flags: z.array(z.enum(['slow', 'flaky'])).optional(),
});
export type RecordedCell = z.infer<typeof RecordedCellSchema>;

export const RunRecordSchema = z.object({
  format: z.literal(RECORD_FORMAT),
  /** The series this run belongs to: `--preset`, else the lab's name. */
  preset: z.string().min(1),
  runId: z.string().min(1),
  lab: z.string(),
  provider: z.string(),
  /** True when the dataplane was emulated; every trend output says so. */
  emulated: z.boolean(),
  profile: z.string(),
  startedAt: isoDate,
  finishedAt: isoDate.optional(),
  status: z.enum(['passed', 'failed', 'infra', 'interrupted']),
  interrupted: z.string().optional(),
  /** Where the run's artifacts are (CI job URL). */
  link: z.string().optional(),
  addedAt: isoDate,
  /** Which cross-node pairs the run's cells covered (results.json's run.mesh). */
  mesh: z
    .object({ mode: z.enum(['full', 'ring']), peers: z.number().int(), rotation: z.number().int() })
    .optional(),
  cells: z.array(RecordedCellSchema),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;
