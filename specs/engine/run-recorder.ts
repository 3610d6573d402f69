/**
 * What a suite run found, kept as it happens: the engine records into it explicitly and the
 * report writers read one Report out of it, whenever the run ends (also by a signal).
 */
import {
  NOT_RUN_PREFIX,
  type CellMeta,
  type CellResult,
  type OtherResult,
  type RunInfo,
} from '../../lab/contracts/results-file.ts';
import { LAB_READY_CELL, makeReport, unknownRunInfo, type Report } from '../model/report.ts';
import { messageWithHint } from '../../lab/errors.ts';

/** A cell the run means to run: its metadata, and why it is skipped when the lab cannot host it. */
export interface PlannedCell {
  meta: CellMeta;
  skip?: string;
}

export class RunRecorder {
  readonly #startedAt = new Date();
  #run: RunInfo | undefined;
  /** Planned cells by id, in definition order. */
  readonly #planned = new Map<string, PlannedCell>();
  readonly #results = new Map<string, CellResult>();
  readonly #other: OtherResult[] = [];
  readonly #inFlight = new Set<string>();
  #openFailure: string | undefined;

  /** The run's facts (lab, provider, emulated, profile, …). */
  setRun(info: RunInfo): void {
    this.#run = { ...info, osBuilds: { ...info.osBuilds } };
  }

  /** The lab could not be opened (or the suite's settings are wrong): the run reports that alone. */
  openFailed(message: string): void {
    this.#openFailure = message;
  }

  /** The cells this run will attempt (those the selection keeps), in definition order. */
  plan(cells: readonly PlannedCell[]): void {
    for (const cell of cells) this.#planned.set(cell.meta.cell, cell);
  }

  /** A cell's probes started. */
  started(cell: string): void {
    if (!this.#results.has(cell)) this.#inFlight.add(cell);
  }

  /** A cell's result; the first one recorded for a cell stands. */
  record(result: CellResult): void {
    this.#inFlight.delete(result.cell);
    if (!this.#results.has(result.cell)) this.#results.set(result.cell, { ...result });
  }

  /** A recorded cell's result after the run-wide judgement (slow, flaky): it replaces the first. */
  revise(result: CellResult): void {
    this.#inFlight.delete(result.cell);
    this.#results.set(result.cell, { ...result });
  }

  /** Adds a recorded cell's path evidence. */
  attachEvidence(cell: string, evidence: NonNullable<CellResult['evidence']>): void {
    const result = this.#results.get(cell);
    if (result !== undefined) this.#results.set(cell, { ...result, evidence });
  }

  /** A hook of the run failed (deploy, cleanup): an infrastructure problem outside the matrix. */
  hookFailed(title: string, error: unknown, durationMs = 0): void {
    const e = error instanceof Error ? error : new Error(String(error));
    this.#other.push({
      classname: 'infrastructure',
      title,
      state: 'hook-failed',
      message: messageWithHint(e),
      errorType: e.name,
      stack: e.stack ?? e.message,
      durationMs,
    });
  }

  /** The report so far; planned cells without a result are skipped with their reason, or not run. */
  report(interrupted?: string): Report {
    const run = { ...(this.#run ?? unknownRunInfo(this.#startedAt)) };
    run.finishedAt ??= new Date().toISOString();
    const hookFailed = this.#other.some((o) => o.state === 'hook-failed');
    const why = interrupted
      ? `run interrupted by ${interrupted}`
      : hookFailed
        ? 'a hook failed (see infrastructure)'
        : 'the run ended before this cell';
    const cells = [...this.#planned.values()].map(
      ({ meta, skip }) =>
        this.#results.get(meta.cell) ??
        (skip !== undefined
          ? unhosted(meta, skip)
          : notRun(meta, this.#inFlight.has(meta.cell) ? `${why} while it ran` : why)),
    );
    for (const [id, result] of this.#results) if (!this.#planned.has(id)) cells.push(result);
    if (this.#openFailure !== undefined) {
      cells.push({
        ...LAB_READY_CELL,
        verdict: 'infra-error',
        actual: 'error',
        detail: this.#openFailure,
        durationMs: 0,
        attempts: 0,
      });
    }
    return makeReport(run, cells, [...this.#other], interrupted);
  }
}

function unhosted(meta: CellMeta, reason: string): CellResult {
  return { ...meta, verdict: 'skipped', reason, detail: '', durationMs: 0, attempts: 0 };
}

function notRun(meta: CellMeta, why: string): CellResult {
  const reason = `${NOT_RUN_PREFIX}${why}`;
  return { ...meta, verdict: 'skipped', reason, detail: reason, durationMs: 0, attempts: 0 };
}
