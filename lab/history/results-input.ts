/**
 * Reads a suite's results.json (lab/contracts/results-file.ts, the schema its writer checks
 * against too) into a history record; a bad field is named by its path.
 */
import { readFileSync } from 'node:fs';
import { ResultsFileSchema, type ResultsFile } from '../contracts/results-file.ts';
import { formatIssues } from '../spec/format-issues.ts';
import { HistoryError } from './history-error.ts';
import { upstreamCells } from './upstream-cells.ts';
import {
  RECORD_FORMAT,
  outcomeOf,
  type RecordedCell,
  type RunRecord,
  type RunStatus,
} from './run-record.ts';

/** Failure details kept per cell: enough to recognise the symptom, small enough for a JSON line. */
export const DETAIL_MAX = 300;

/** Series names become file names in the store. */
const PRESET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type Results = ResultsFile;

export interface RecordOptions {
  /** The series to file the run under; default: the run's lab name. */
  preset?: string;
  /** Where the run's artifacts can be found. */
  link?: string;
  now?: Date;
}

/** Reads and checks `file`; throws HistoryError naming the file and the bad field. */
export function readResultsFile(file: string, options: RecordOptions = {}): RunRecord {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HistoryError(`cannot read results file ${file}: ${(error as Error).message}`, {
      cause: error,
      hint: 'pass the results.json the suite wrote (test-results/ or $ARTIFACTS)',
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new HistoryError(`results file ${file} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return recordFromResults(data, file, options);
}

/** Turns parsed results.json data into a store record; `source` names it in errors. */
export function recordFromResults(
  data: unknown,
  source: string,
  options: RecordOptions = {},
): RunRecord {
  const parsed = ResultsFileSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues).map(
      (i) => `  ${i.path === '' ? '(document)' : i.path}: ${i.message}`,
    );
    throw new HistoryError(
      `results file ${source} is not a hybrid-lab results.json:\n${lines.join('\n')}`,
    );
  }
  const results = parsed.data;
  checkConsistent(results, source);
  const preset = options.preset ?? results.run.lab;
  if (!PRESET_NAME.test(preset)) {
    throw new HistoryError(
      `preset name ${JSON.stringify(preset)} (from ${options.preset === undefined ? `run.lab of ${source}` : '--preset'}) cannot name a history series`,
      { hint: 'use letters, digits, ".", "_" and "-", at most 63 characters' },
    );
  }
  const { run } = results;
  return {
    format: RECORD_FORMAT,
    preset,
    runId: run.runId,
    lab: run.lab,
    provider: run.provider,
    emulated: run.emulated,
    profile: run.profile,
    startedAt: run.startedAt,
    ...(run.finishedAt === undefined ? {} : { finishedAt: run.finishedAt }),
    status: runStatus(results),
    ...(results.interrupted === undefined ? {} : { interrupted: results.interrupted }),
    ...(options.link === undefined ? {} : { link: options.link }),
    addedAt: (options.now ?? new Date()).toISOString(),
    ...(run.mesh === undefined ? {} : { mesh: run.mesh }),
    cells: [...results.cells.map(recordCell), ...upstreamCells(results.upstream, shorten)],
  };
}

function checkConsistent(results: Results, source: string): void {
  if (results.totals.cells !== results.cells.length) {
    throw new HistoryError(
      `results file ${source}: totals.cells is ${results.totals.cells} but cells has ${results.cells.length} entries`,
      { hint: 'the file is truncated or was edited; take the one the suite wrote' },
    );
  }
  const seen = new Set<string>();
  results.cells.forEach((c, i) => {
    if (seen.has(c.cell)) {
      throw new HistoryError(
        `results file ${source}: cells[${i}].cell: duplicate cell id "${c.cell}"`,
      );
    }
    seen.add(c.cell);
  });
}

function recordCell(cell: Results['cells'][number]): RecordedCell {
  const { cell: id, row, title, verdict, expected, actual, detail, timing, flags } = cell;
  const keep = detail !== '' && verdict !== 'pass';
  const flagged = (['slow', 'flaky'] as const).filter((f) => flags?.[f] !== undefined);
  return {
    cell: id,
    row,
    title,
    verdict,
    expected,
    ...(actual === undefined ? {} : { actual }),
    ...(keep ? { detail: shorten(detail) } : {}),
    ...(timing === undefined ? {} : { p50Ms: timing.totalP50Ms, maxMs: timing.totalMaxMs }),
    ...(flagged.length === 0 ? {} : { flags: flagged }),
  };
}

// Control characters (ANSI colour from probe output) never reach the store.
// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

function shorten(text: string): string {
  const clean = text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
  return clean.length <= DETAIL_MAX ? clean : `${clean.slice(0, DETAIL_MAX - 1)}…`;
}

/** Failures win; then infrastructure trouble (no cells, lab not ready, a failed hook); then an interruption. */
function runStatus(results: Results): RunStatus {
  const outcomes = [...results.cells, ...upstreamCells(results.upstream, (t) => t)].map((c) =>
    outcomeOf(c.verdict),
  );
  const { other } = results;
  if (outcomes.includes('fail') || other.some((o) => o.state === 'failed')) return 'failed';
  if (
    results.cells.length === 0 ||
    outcomes.includes('infra') ||
    other.some((o) => o.state === 'hook-failed')
  ) {
    return 'infra';
  }
  return results.interrupted === undefined ? 'passed' : 'interrupted';
}
