/** Runs cells' probes with bounded concurrency; retries only cells expected to succeed. */
import type { LabDriver, Workloads } from '../model/lab-driver.ts';
import { sendProbe } from '../model/lab-driver.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { judgeReply, verdictOf } from './judge.ts';
import type { Expectation } from './profile.ts';
import type { SuiteSettings } from './suite-settings.ts';
import { Outcome, type CellResult } from '../../lab/contracts/results-file.ts';

export type RunnerSettings = Pick<SuiteSettings, 'concurrency' | 'timeoutMs' | 'retries'>;

/** Told when a cell's probes start and when its result is known (the run's recorder). */
export interface CellObserver {
  started(cell: string): void;
  record(result: CellResult): void;
}

export class CellRunner {
  readonly #results = new Map<string, Promise<CellResult>>();
  /** The probe of each cell that ran one, for its evidence. */
  readonly #specs = new Map<string, ProbeSpec>();
  readonly #queue: (() => void)[] = [];
  #running = 0;

  constructor(
    private readonly driver: LabDriver,
    private readonly workloads: Workloads,
    private readonly settings: RunnerSettings,
    private readonly observer?: CellObserver,
  ) {}

  /** Starts cells now (bounded by concurrency) so their it() finds the result ready. */
  prefetch(cells: readonly { plan: CellPlan; expectation: Expectation }[]): void {
    for (const cell of cells) void this.result(cell.plan, cell.expectation).catch(() => undefined);
  }

  /** The result of a cell, probing it if nobody has yet. */
  result(plan: CellPlan, expectation: Expectation): Promise<CellResult> {
    let result = this.#results.get(plan.meta.cell);
    if (result === undefined) {
      result = this.#slot(() => this.#probe(plan, expectation)).then((done) => {
        this.observer?.record(done);
        return done;
      });
      this.#results.set(plan.meta.cell, result);
    }
    return result;
  }

  /** Every cell that ran a probe, with its result, in the order they started. */
  async probed(): Promise<{ result: CellResult; spec: ProbeSpec }[]> {
    const done = await Promise.all(
      [...this.#results.entries()].map(async ([cell, result]) => ({
        result: await result,
        spec: this.#specs.get(cell),
      })),
    );
    return done.flatMap(({ result, spec }) => (spec === undefined ? [] : [{ result, spec }]));
  }

  async #slot<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.settings.concurrency) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    }
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      this.#queue.shift()?.();
    }
  }

  async #probe(plan: CellPlan, expectation: Expectation): Promise<CellResult> {
    this.observer?.started(plan.meta.cell);
    const started = performance.now();
    const base = {
      ...plan.meta,
      expected: expectation.expected,
      ...(expectation.reason === undefined ? {} : { reason: expectation.reason }),
    };
    if (plan.probe === undefined) {
      return {
        ...base,
        verdict: 'skipped',
        reason: plan.skip ?? 'not applicable',
        detail: '',
        durationMs: 0,
        attempts: 0,
      };
    }
    const spec = plan.probe(this.workloads);
    this.#specs.set(plan.meta.cell, spec);
    const maxAttempts = expectation.expected === Outcome.Ok ? 1 + this.settings.retries : 1;
    let judged = { outcome: Outcome.Error as Outcome, detail: '' };
    let attempts = 0;
    while (attempts < maxAttempts) {
      attempts++;
      judged = await this.#attempt(spec);
      if (judged.outcome === Outcome.Ok) break;
    }
    const target =
      'url' in spec.request
        ? spec.request.url
        : 'base' in spec.request
          ? spec.request.base
          : 'name' in spec.request
            ? spec.request.name
            : 'port' in spec.request
              ? `${spec.request.host}:${spec.request.port}`
              : spec.request.host;
    return {
      ...base,
      verdict: verdictOf(expectation.expected, judged.outcome),
      actual: judged.outcome,
      detail: `${spec.from} → ${target}: ${judged.detail}`,
      durationMs: Math.round(performance.now() - started),
      attempts,
    };
  }

  /** One probe, judged; a driver that throws (exec API error, crash) gives an Error outcome with its stack. */
  async #attempt(spec: ProbeSpec): Promise<{ outcome: Outcome; detail: string }> {
    try {
      const reply = await sendProbe(this.driver, this.workloads, spec, this.settings.timeoutMs);
      return judgeReply(reply, spec.check);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      return { outcome: Outcome.Error, detail: `the probe failed: ${e.stack ?? e.message}` };
    }
  }
}
