/**
 * The history store: a folder of JSON-lines files, one per preset (`<preset>.jsonl`), one line per
 * run. Plain files, so a CI job can keep them in a cache or commit them to a branch.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatIssues } from '../spec/format-issues.ts';
import { HistoryError } from './history-error.ts';
import { RunRecordSchema, type RunRecord } from './run-record.ts';

const SUFFIX = '.jsonl';

export type AddResult = 'added' | 'already-recorded';

export class HistoryStore {
  /** `dir` is the store's folder; it is created on the first add. */
  constructor(readonly dir: string) {}

  /** The JSON-lines file of one preset. */
  fileOf(preset: string): string {
    return join(this.dir, `${preset}${SUFFIX}`);
  }

  /** Appends the run unless its preset already holds a run with the same id (re-adding is harmless). */
  add(record: RunRecord): AddResult {
    const known = this.readPreset(record.preset);
    if (known.some((r) => r.runId === record.runId)) return 'already-recorded';
    mkdirSync(this.dir, { recursive: true });
    // One write of one line: an interrupted job leaves either the whole line or none of it.
    appendFileSync(this.fileOf(record.preset), `${JSON.stringify(record)}\n`);
    return 'added';
  }

  /** Every preset with a file in the store, sorted. */
  presets(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith(SUFFIX))
      .map((f) => f.slice(0, -SUFFIX.length))
      .sort();
  }

  /** Every run of every preset. */
  readAll(): RunRecord[] {
    return this.presets().flatMap((p) => this.readPreset(p));
  }

  /** The runs of one preset in file order; a damaged line is an error naming file and line. */
  readPreset(preset: string): RunRecord[] {
    const file = this.fileOf(preset);
    if (!existsSync(file)) return [];
    const records: RunRecord[] = [];
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (line.trim() === '') return;
        records.push(parseLine(line, `${file}:${index + 1}`, preset));
      });
    return records;
  }
}

function parseLine(line: string, where: string, preset: string): RunRecord {
  const hint = 'remove or repair that line; every other run stays usable';
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch (error) {
    throw new HistoryError(`history line ${where} is not JSON: ${(error as Error).message}`, {
      cause: error,
      hint,
    });
  }
  const parsed = RunRecordSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    const issues = formatIssues(parsed.error.issues)
      .map((i) => `  ${i.path === '' ? '(line)' : i.path}: ${i.message}`)
      .join('\n');
    throw new HistoryError(`history line ${where} is not a run record:\n${issues}`, { hint });
  }
  if (parsed.data.preset !== preset) {
    throw new HistoryError(
      `history line ${where} belongs to preset "${parsed.data.preset}", not "${preset}"`,
      { hint },
    );
  }
  return parsed.data;
}
