/** Runs cells' probes with bounded concurrency; retries only cells expected to succeed. */
import type { LabDriver, Workloads } from '../model/lab-driver.ts';
import { sendProbe } from '../model/lab-driver.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { judgeReply, verdictOf } from './judge.ts';
import type { Expectation } from './profile.ts';
import type { SuiteSettings } from './suite-settings.ts';
import { Outcome, type CellResult } from '../../lab/contracts/results-file.ts';
import { CHURN_STEPS, type ChurnStep, type Os } from '../../lab/contracts/cells.ts';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * How long after a churn step its cells may take to pass, for drivers that name no bound of their
 * own: kube-proxy's default --iptables-sync-period.
 */
export const CHURN_SETTLE_MS = 30_000;
/** The pause between a churn cell's probes while it has not converged. */
const CHURN_POLL_MS = 1000;

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

  /**
   * Starts cells now (bounded by concurrency) so their it() finds the result ready. Churn cells
   * wait for every other cell, then run step by step (see #churn).
   */
  prefetch(cells: readonly { plan: CellPlan; expectation: Expectation }[]): void {
    const plain = cells.filter((c) => c.plan.churn === undefined || c.plan.probe === undefined);
    // Cells that pause between two probes start first: their pause overlaps every other cell.
    const pausing = plain.filter((c) => this.#pauses(c.plan));
    for (const cell of [...pausing, ...plain.filter((c) => !pausing.includes(c))])
      void this.result(cell.plan, cell.expectation).catch(() => undefined);
    const churned = cells.filter((c) => c.plan.churn !== undefined && c.plan.probe !== undefined);
    if (churned.length > 0) this.#churn(churned, plain);
  }

  /**
   * Churn cells, once every plain cell is done (their Services must not change under them): for
   * each churned OS, each step in order is made by the driver and then its cells probe, each
   * until it passes or the driver's churnSettleMs (else CHURN_SETTLE_MS) passed: the dataplane
   * converges within a bound, or the cell fails; with a bound of 0, judged like any other cell.
   * Steps without a selected cell are still made, so a step's state is the same whatever --grep
   * selects.
   */
  #churn(
    cells: readonly { plan: CellPlan; expectation: Expectation }[],
    plain: readonly { plan: CellPlan }[],
  ): void {
    // Each cell's step: resolved (adopting the driver's promise) when the step is being made.
    const started = new Map<string, (step: Promise<string | undefined>) => void>();
    for (const { plan, expectation } of cells) {
      const made = new Promise<string | undefined>((resolve) => {
        started.set(plan.meta.cell, resolve);
      });
      const result = made
        .then((failed) =>
          this.#slot(() =>
            failed === undefined
              ? this.#probe(plan, expectation, this.driver.churnSettleMs ?? CHURN_SETTLE_MS)
              : Promise.resolve(this.#failedStep(plan, expectation, failed)),
          ),
        )
        .then((done) => {
          this.observer?.record(done);
          return done;
        });
      this.#results.set(plan.meta.cell, result);
    }
    const run = async (): Promise<void> => {
      await Promise.allSettled(plain.flatMap((c) => this.#results.get(c.plan.meta.cell) ?? []));
      const oses = [...new Set(cells.map((c) => c.plan.churn!.os))];
      await Promise.all(
        oses.map(async (os) => {
          const of = cells.filter((c) => c.plan.churn!.os === os);
          const last = Math.max(...of.map((c) => CHURN_STEPS.indexOf(c.plan.churn!.step)));
          for (const step of CHURN_STEPS.slice(0, last + 1)) {
            const made = this.#makeStep(os, step);
            const ofStep = of.filter((c) => c.plan.churn!.step === step);
            for (const c of ofStep) started.get(c.plan.meta.cell)!(made);
            await Promise.allSettled(
              ofStep.flatMap((c) => this.#results.get(c.plan.meta.cell) ?? []),
            );
            await made;
          }
        }),
      );
    };
    void run();
  }

  /** Whether the cell's probe is made twice with a pause between (ProbeSpec.again). */
  #pauses(plan: CellPlan): boolean {
    try {
      return plan.probe?.(this.workloads).again !== undefined;
    } catch {
      return false; // its probe fails when it runs, and says why
    }
  }

  /** Has the driver make `step`; resolves with why it could not, or undefined. */
  async #makeStep(os: Os, step: ChurnStep): Promise<string | undefined> {
    if (this.driver.churn === undefined) return 'this driver cannot change the Service endpoints';
    try {
      await this.driver.churn(os, step);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  #failedStep(plan: CellPlan, expectation: Expectation, why: string): CellResult {
    return {
      ...plan.meta,
      expected: expectation.expected,
      ...(expectation.reason === undefined ? {} : { reason: expectation.reason }),
      verdict: verdictOf(expectation.expected, Outcome.Error),
      actual: Outcome.Error,
      detail: `churn step ${plan.churn?.step ?? '?'} on the ${plan.churn?.os ?? '?'} Service failed: ${why}`,
      durationMs: 0,
      attempts: 0,
    };
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

  /** Inside #slot: gives the slot up for `ms`, then takes one again (waiting its turn). */
  async #pause(ms: number): Promise<void> {
    this.#running--;
    this.#queue.shift()?.();
    await delay(ms);
    // Ahead of cells that have not started: the pause is over, the cell goes on.
    if (this.#running >= this.settings.concurrency) {
      await new Promise<void>((resolve) => this.#queue.unshift(resolve));
    }
    this.#running++;
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

  /**
   * Probes a cell: once, or with retries when it is expected to pass; with a `settleMs` above 0,
   * a cell expected to pass is probed again until it does or that long passed.
   */
  async #probe(plan: CellPlan, expectation: Expectation, settleMs?: number): Promise<CellResult> {
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
    const expectsOk = expectation.expected === Outcome.Ok;
    const maxAttempts = expectsOk ? 1 + this.settings.retries : 1;
    // A bound of 0: the data plane has converged when the change returns, the cell is probed like
    // any other.
    const settleUntil =
      expectsOk && settleMs !== undefined && settleMs > 0 ? started + settleMs : undefined;
    let judged = { outcome: Outcome.Error as Outcome, detail: '' };
    let attempts = 0;
    // A settling cell fails only on an attempt that began after the bound: a sweep that started
    // while the rules were still changing proves nothing.
    let attemptStarted = started;
    while (attempts < maxAttempts || (settleUntil !== undefined && attemptStarted < settleUntil)) {
      attempts++;
      attemptStarted = performance.now();
      judged = await this.#attempt(spec);
      if (judged.outcome === Outcome.Ok) break;
      if (settleUntil !== undefined) await delay(CHURN_POLL_MS);
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

  /**
   * One probe (twice with `again`, the slot given up during the pause), judged; a driver that
   * throws (exec API error, crash) gives an Error outcome with its stack.
   */
  async #attempt(spec: ProbeSpec): Promise<{ outcome: Outcome; detail: string }> {
    try {
      const timeoutMs = spec.timeoutMs ?? this.settings.timeoutMs;
      const send = (probe: ProbeSpec) => sendProbe(this.driver, this.workloads, probe, timeoutMs);
      let reply = await send(spec);
      if (spec.again !== undefined && reply.result === 'ok') {
        const first = reply.answers ?? [];
        await this.#pause(spec.again.afterMs);
        const second = await send({ ...spec, request: spec.again.request ?? spec.request });
        const error = second.error === undefined ? {} : { error: `after the pause: ${second.error}` };
        reply = { ...second, ...error, answers: [...first, ...(second.answers ?? [])] };
      }
      return judgeReply(reply, spec.check);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      return { outcome: Outcome.Error, detail: `the probe failed: ${e.stack ?? e.message}` };
    }
  }
}
