/** Turns mocha test events into cell results; knows which cells were planned but never ran. */
import type Mocha from 'mocha';
import {
  CELL_META,
  CELL_RESULT,
  LAB_READY_CELL,
  type CellMeta,
  type CellResult,
  type Verdict,
} from '../engine/results.ts';
import { getOpenFailure, getRunInfo } from './run-context.ts';
import {
  NOT_RUN_PREFIX,
  makeReport,
  unknownRunInfo,
  type OtherResult,
  type Report,
} from './report-model.ts';

/** The test filter mocha applies while running (`--grep`, `--invert`). */
export interface TestFilter {
  grep?: RegExp;
  invert?: boolean;
}

/** A mocha runnable as the collector sees it: a test or a hook. */
export type Runnable = Mocha.Runnable;

/** Collects one CellResult per cell, in definition order, plus plain tests and failed hooks. */
export class CellCollector {
  readonly #startedAt = new Date();
  /** Planned cells by cell id, in definition order. */
  readonly #planned = new Map<string, CellMeta>();
  readonly #results = new Map<string, CellResult>();
  readonly #other = new Map<string, OtherResult>();
  #running: CellMeta | undefined;

  /** Record every cell the run will attempt: all tests under `root` with cell metadata that pass the filter. */
  plan(root: Mocha.Suite, filter: TestFilter = {}): void {
    const visit = (suite: Mocha.Suite): void => {
      for (const test of suite.tests) {
        const meta = cellMeta(test);
        if (meta && matches(test, filter)) this.#planned.set(meta.cell, meta);
      }
      suite.suites.forEach(visit);
    };
    visit(root);
  }

  /** A test started (so an interruption can say which cell was in flight). */
  begin(test: Runnable): void {
    this.#running = cellMeta(test);
  }

  /** A test passed. */
  passed(test: Runnable): void {
    this.#settle(test, 'pass', undefined);
  }

  /** A test or hook failed. */
  failed(test: Runnable, err: unknown): void {
    if ((test as { type?: string }).type !== 'test') {
      const e = asError(err);
      this.#other.set(`hook:${test.fullTitle()}`, {
        classname: 'infrastructure',
        title: test.fullTitle() || test.title,
        state: 'hook-failed',
        message: e.message,
        errorType: e.name,
        stack: e.stack ?? e.message,
        durationMs: test.duration ?? 0,
      });
      return;
    }
    this.#settle(test, 'fail', err);
  }

  /** A test was skipped (`this.skip()`, `it.skip`), including expected failures. */
  pending(test: Runnable): void {
    this.#settle(test, 'skipped', undefined);
  }

  /** The report so far; planned cells without a result are marked not run. */
  report(interrupted?: string): Report {
    const run = { ...(getRunInfo() ?? unknownRunInfo(this.#startedAt)) };
    run.finishedAt ??= new Date().toISOString();
    const hookFailed = [...this.#other.values()].some((o) => o.state === 'hook-failed');
    const why = interrupted
      ? `run interrupted by ${interrupted}`
      : hookFailed
        ? 'a hook failed (see infrastructure)'
        : 'the run ended before this cell (--bail or abort)';
    const cells: CellResult[] = [];
    for (const [id, meta] of this.#planned) {
      const inFlight = interrupted !== undefined && this.#running?.cell === id;
      cells.push(this.#results.get(id) ?? notRun(meta, inFlight ? `${why} while it ran` : why));
    }
    for (const [id, result] of this.#results) if (!this.#planned.has(id)) cells.push(result);
    const openFailure = getOpenFailure();
    // --grep may have filtered out the infrastructure test; the run must still say why it tested nothing.
    if (openFailure !== undefined && !cells.some((c) => c.cell === LAB_READY_CELL.cell)) {
      cells.push({
        ...LAB_READY_CELL,
        verdict: 'infra-error',
        actual: 'error',
        detail: openFailure,
        durationMs: 0,
        attempts: 0,
      });
    }
    return makeReport(run, cells, [...this.#other.values()], interrupted);
  }

  #settle(test: Runnable, state: 'pass' | 'fail' | 'skipped', err: unknown): void {
    if (this.#running && this.#running === cellMeta(test)) this.#running = undefined;
    const meta = cellMeta(test) ?? (isRetry(test) ? this.#plannedByTitle(test) : undefined);
    if (!meta) {
      this.#other.set(`test:${test.fullTitle()}`, plainResult(test, state, err));
      return;
    }
    const engine = (test as unknown as Record<string, unknown>)[CELL_RESULT] as
      CellResult | undefined;
    this.#results.set(meta.cell, engine ? { ...engine } : synthesize(meta, test, state, err));
  }

  // mocha's retries clone the test without our properties; find the cell by its title.
  #plannedByTitle(test: Runnable): CellMeta | undefined {
    return [...this.#planned.values()].find((m) => m.title === test.title);
  }
}

/** The cell metadata the engine hung on a mocha test, if any. */
export function cellMeta(test: Runnable): CellMeta | undefined {
  const meta = (test as unknown as Record<string, unknown>)[CELL_META];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const m = meta as Partial<CellMeta>;
  return typeof m.cell === 'string' && typeof m.row === 'string' ? (meta as CellMeta) : undefined;
}

function isRetry(test: Runnable): boolean {
  return ((test as unknown as { currentRetry?: () => number }).currentRetry?.() ?? 0) > 0;
}

function matches(test: Mocha.Test, filter: TestFilter): boolean {
  if (!filter.grep) return true;
  filter.grep.lastIndex = 0;
  const hit = filter.grep.test(test.fullTitle());
  return filter.invert ? !hit : hit;
}

function notRun(meta: CellMeta, why: string): CellResult {
  const reason = `${NOT_RUN_PREFIX}${why}`;
  return { ...meta, verdict: 'skipped', reason, detail: reason, durationMs: 0, attempts: 0 };
}

// The engine sets CELL_RESULT on every cell it runs; this covers timeouts and engine crashes.
function synthesize(
  meta: CellMeta,
  test: Runnable,
  state: 'pass' | 'fail' | 'skipped',
  err: unknown,
): CellResult {
  const base = { ...meta, durationMs: test.duration ?? 0, attempts: state === 'skipped' ? 0 : 1 };
  if (state === 'pass') return { ...base, verdict: 'pass', actual: 'ok', detail: '' };
  if (state === 'skipped') {
    return { ...base, verdict: 'skipped', detail: meta.reason ?? 'skipped without a result' };
  }
  const verdict: Verdict = meta.row === 'infrastructure' ? 'infra-error' : 'fail';
  const e = asError(err);
  return { ...base, verdict, actual: 'error', detail: e.stack ?? e.message };
}

function plainResult(
  test: Runnable,
  state: 'pass' | 'fail' | 'skipped',
  err: unknown,
): OtherResult {
  const result: OtherResult = {
    classname: test.parent?.fullTitle() || 'root',
    title: test.title,
    state: state === 'pass' ? 'passed' : state === 'fail' ? 'failed' : 'pending',
    durationMs: test.duration ?? 0,
  };
  if (state === 'fail') {
    const e = asError(err);
    Object.assign(result, { message: e.message, errorType: e.name, stack: e.stack ?? e.message });
  }
  return result;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
