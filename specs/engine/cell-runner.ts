/** Runs cells' probes with bounded concurrency; retries only cells expected to succeed. */
import { unusablePath } from '../model/unusable-paths.ts';
import type { LabDriver, Workloads } from '../model/lab-driver.ts';
import { sendProbeTwice } from '../model/lab-driver.ts';
import { NOT_FORWARDED_MS, type CellPlan, type ProbeSpec } from '../model/cell-plan.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import { judgeReply, verdictOf } from './judge.ts';
import { expectationMeta, settle, type Expectation } from './profile.ts';
import type { SuiteSettings } from './suite-settings.ts';
import {
  Outcome,
  type CellResult,
  type FailedAttempt,
  type FlakyFlag,
} from '../../lab/contracts/results-file.ts';
import type { ProbeReply } from '../model/lab-driver.ts';
import { slowFlags, timingOf, type RequestTiming } from './latency-budget.ts';
import { better, perfFlags } from './perf-budget.ts';
import { slowText } from '../report/cell-text.ts';
import { CHURN_STEPS, type ChurnStep, type Os } from '../../lab/contracts/cells.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { Slots } from './slots.ts';

/**
 * How long after a churn step its cells may take to pass, for drivers that name no bound of their
 * own: kube-proxy's default --iptables-sync-period.
 */
export const CHURN_SETTLE_MS = 30_000;
/** The pause between a churn cell's probes while it has not converged. */
const CHURN_POLL_MS = 1000;

export type RunnerSettings = Pick<SuiteSettings, 'concurrency' | 'timeoutMs' | 'retries'> &
  Partial<Pick<SuiteSettings, 'budget'>>;

/** Checks that pass when nothing answers the probe. */
const UNANSWERED_CHECKS: readonly string[] = ['not-forwarded', 'refused'];

/** A probed cell before the run-wide judgement: its result and what it asked. */
interface Probed {
  result: CellResult;
  spec?: ProbeSpec;
  /** The answered requests' timing, as the probes measured them. */
  requests: RequestTiming[];
}

/**
 * One attempt's judged outcome and the reply it came from (none when the driver threw); `infra`
 * when the lab could not carry the probe at all.
 */
interface Attempt {
  outcome: Outcome;
  detail: string;
  infra?: boolean;
  reply?: ProbeReply;
  durationMs: number;
}

/** The requests an answered reply timed: a sweep's each, else the probe as a whole. */
function requestsOf(reply: ProbeReply | undefined): RequestTiming[] {
  if (reply === undefined) return [];
  if (reply.requests !== undefined) return reply.requests;
  return reply.ms === undefined && reply.connectMs === undefined
    ? []
    : [
        {
          ...(reply.ms === undefined ? {} : { ms: reply.ms }),
          ...(reply.connectMs === undefined ? {} : { connectMs: reply.connectMs }),
        },
      ];
}

/** Told when a cell's probes start and when its result is known (the run's recorder). */
export interface CellObserver {
  started(cell: string): void;
  record(result: CellResult): void;
  /** A recorded result changed once the whole run was judged (a slow or flaky flag). */
  revise?(result: CellResult): void;
}

export class CellRunner {
  readonly #results = new Map<string, Promise<CellResult>>();
  /** The probe of each cell that ran one, for its evidence. */
  readonly #specs = new Map<string, ProbeSpec>();
  readonly #slots: Slots;

  constructor(
    private readonly driver: LabDriver,
    private readonly workloads: Workloads,
    private readonly settings: RunnerSettings,
    private readonly observer?: CellObserver,
  ) {
    this.#slots = new Slots(settings.concurrency);
  }

  /**
   * Starts cells now (bounded by concurrency) so their it() finds the result ready. Churn cells
   * wait for every other cell, then run step by step (see #churn).
   */
  prefetch(cells: readonly { plan: CellPlan; expectation: Expectation }[]): void {
    const plain = cells.filter((c) => c.plan.churn === undefined || c.plan.probe === undefined);
    // Cells that pause between two probes start first: their pause overlaps every other cell.
    const pausing = plain.filter((c) => this.#pauses(c.plan));
    const ordered = [...pausing, ...plain.filter((c) => !pausing.includes(c))];
    // Recorded as soon as probed, so an interrupted run still reports them; revised once judged.
    const probed = ordered.map(({ plan, expectation }) =>
      this.#slots
        .run(() => this.#probe(plan, expectation))
        .then((p) => {
          this.observer?.record(p.result);
          return p;
        }),
    );
    // Slow is judged against the whole run: every plain cell's result waits for every other's.
    const judged = Promise.all(probed).then((all) => this.#judgeRun(all));
    for (const { plan } of plain) {
      const result = judged
        .then((byCell) => byCell.get(plan.meta.cell)!)
        .then((done) => {
          this.observer?.revise?.(done);
          return done;
        });
      result.catch(() => undefined);
      this.#results.set(plan.meta.cell, result);
    }
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
          this.#slots.run(() =>
            failed === undefined
              ? this.#probe(plan, expectation, this.driver.churnSettleMs ?? CHURN_SETTLE_MS).then(
                  (p) => p.result,
                )
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

  /** A churn cell (plan.churn set) whose step the driver could not make. */
  #failedStep(plan: CellPlan, expectation: Expectation, why: string): CellResult {
    const { os, step } = plan.churn!;
    return {
      ...plan.meta,
      expected: expectation.expected,
      ...(expectation.reason === undefined ? {} : { reason: expectation.reason }),
      verdict: verdictOf(expectation.expected, Outcome.Error),
      actual: Outcome.Error,
      detail: `churn step ${step} on the ${os} Service failed: ${why}`,
      durationMs: 0,
      attempts: 0,
    };
  }

  /** The result of a cell, probing it if nobody has yet. */
  result(plan: CellPlan, expectation: Expectation): Promise<CellResult> {
    let result = this.#results.get(plan.meta.cell);
    if (result === undefined) {
      result = this.#slots
        .run(() => this.#probe(plan, expectation))
        .then(({ result: done }) => {
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

  /**
   * Probes a cell: once, or with retries when it is expected to pass; with a `settleMs` above 0,
   * a cell expected to pass is probed again until it does or that long passed.
   */
  async #probe(plan: CellPlan, expectation: Expectation, settleMs?: number): Promise<Probed> {
    this.observer?.started(plan.meta.cell);
    const started = performance.now();
    const base = { ...plan.meta, ...expectationMeta(expectation) };
    if (plan.probe === undefined) {
      return {
        result: {
          ...base,
          verdict: 'skipped',
          reason: plan.skip ?? 'not applicable',
          detail: '',
          durationMs: 0,
          attempts: 0,
        },
        requests: [],
      };
    }
    const planned = plan.probe(this.workloads);
    // A path the run found it cannot use says nothing of the data plane.
    const unusable = unusablePath(planned, this.workloads);
    if (unusable !== undefined) {
      const result = { ...base, verdict: 'skipped', reason: unusable, detail: '' } as const;
      return { result: { ...result, durationMs: 0, attempts: 0 }, requests: [] };
    }
    // A documented limitation that times out: an answer, were there one, would take milliseconds.
    const spec =
      expectation.expected === Outcome.Timeout && planned.timeoutMs === undefined
        ? { ...planned, timeoutMs: Math.min(NOT_FORWARDED_MS, this.settings.timeoutMs) }
        : planned;
    this.#specs.set(plan.meta.cell, spec);
    const expectsOk = expectation.expected === Outcome.Ok;
    // Either way of a fact the lab does not say is an answer: no retry hopes for the other.
    const accepted = (outcome: Outcome): boolean =>
      outcome === Outcome.Ok || (expectation.otherwise ?? []).some((e) => e.expected === outcome);
    const maxAttempts = expectsOk ? 1 + this.settings.retries : 1;
    // A bound of 0: the data plane has converged when the change returns, the cell is probed like
    // any other.
    const settleUntil =
      expectsOk && settleMs !== undefined && settleMs > 0 ? started + settleMs : undefined;
    let judged: Attempt = { outcome: Outcome.Error, detail: '', durationMs: 0 };
    const failed: FailedAttempt[] = [];
    let attempts = 0;
    // A settling cell fails only on an attempt that began after the bound: a sweep that started
    // while the rules were still changing proves nothing.
    let attemptStarted = started;
    while (attempts < maxAttempts || (settleUntil !== undefined && attemptStarted < settleUntil)) {
      attempts++;
      attemptStarted = performance.now();
      judged = await this.#attempt(spec);
      if (accepted(judged.outcome)) break;
      failed.push({
        outcome: judged.outcome,
        detail: judged.detail,
        durationMs: judged.durationMs,
      });
      if (judged.infra === true) break;
      if (settleUntil !== undefined) await delay(CHURN_POLL_MS);
    }
    // The last attempt is the verdict's; the ones before it are what a retry hid.
    if (!accepted(judged.outcome)) failed.pop();
    // A check passed by nothing answering timed a wait or a reset, no request: no timing.
    const answered = judged.outcome === Outcome.Ok && !UNANSWERED_CHECKS.includes(spec.check.kind);
    const requests = answered ? requestsOf(judged.reply) : [];
    const timing = timingOf(requests);
    const { verdict, seen, ...met } = settle(expectation, judged.outcome);
    const result: CellResult = {
      ...plan.meta,
      ...(judged.infra === true ? base : met),
      verdict: judged.infra === true ? 'infra-error' : verdict,
      actual: judged.outcome,
      detail: `${spec.from} → ${targetOf(spec)}: ${judged.detail}${seen === undefined || judged.infra === true ? '' : ` (${seen})`}`,
      durationMs: Math.round(performance.now() - started),
      attempts,
      ...(timing === undefined ? {} : { timing }),
      ...(failed.length === 0 ? {} : { failedAttempts: failed }),
      ...(judged.reply?.perf === undefined ? {} : { perf: judged.reply.perf }),
    };
    return { result: this.#flaky(result, settleUntil !== undefined), spec, requests };
  }

  /**
   * A cell that passed after failed attempts is flaky when they were more than the allowed
   * fraction (a settling churn cell's attempts before convergence are not failures).
   */
  #flaky(result: CellResult, settling: boolean): CellResult {
    const failed = result.failedAttempts ?? [];
    const fraction = failed.length / Math.max(1, result.attempts);
    const budget = this.settings.budget;
    if (settling || result.verdict !== 'pass' || failed.length === 0) return result;
    if (fraction <= (budget?.flakyFraction ?? 0)) return result;
    const flaky: FlakyFlag = {
      failed: failed.length,
      attempts: result.attempts,
      fraction: Math.round(fraction * 1000) / 1000,
      what: 'attempts',
    };
    const flags = { ...result.flags, flaky };
    const first = failed[0]!;
    const text = `flaky: ${failed.length} of ${result.attempts} attempts failed (first: ${first.outcome}: ${first.detail})`;
    if (budget?.flaky !== 'fail') return { ...result, flags };
    return {
      ...result,
      flags,
      verdict: 'fail',
      actual: first.outcome,
      detail: `${text}; ${result.detail}`,
    };
  }

  /**
   * The run-wide judgement of the plain cells: a cell slow against its peers is measured again
   * (`confirmations` more probes, one at a time) and stays slow only when the median of all its
   * requests still is, so one late sample on a busy machine flags nothing.
   */
  async #judgeRun(probed: readonly Probed[]): Promise<Map<string, CellResult>> {
    const byCell = new Map(probed.map((p) => [p.result.cell, p]));
    const budget = this.settings.budget;
    if (budget !== undefined && probed.some((p) => p.result.perf !== undefined)) {
      await this.#judgePerf(byCell);
    } else if (budget !== undefined) {
      const results = () => [...byCell.values()].map((p) => p.result);
      const suspects = slowFlags(results(), budget);
      for (const cell of suspects.keys()) {
        const suspect = byCell.get(cell)!;
        if (suspect.spec === undefined) continue;
        const requests = [...suspect.requests];
        const failed = [...(suspect.result.failedAttempts ?? [])];
        for (let i = 0; i < budget.confirmations; i++) {
          const again = await this.#slots.run(() => this.#attempt(suspect.spec!));
          if (again.outcome === Outcome.Ok) requests.push(...requestsOf(again.reply));
          else
            failed.push({
              outcome: again.outcome,
              detail: again.detail,
              durationMs: again.durationMs,
            });
        }
        const timing = timingOf(requests);
        const result = {
          ...suspect.result,
          attempts: suspect.result.attempts + budget.confirmations,
          ...(timing === undefined ? {} : { timing }),
          ...(failed.length === 0 ? {} : { failedAttempts: failed }),
        };
        byCell.set(cell, { ...suspect, requests, result: this.#flaky(result, false) });
      }
      const slow = slowFlags(results(), budget);
      for (const [cell, flag] of slow) {
        if (!suspects.has(cell)) continue; // never measured again: one sample is not a finding
        const { result } = byCell.get(cell)!;
        const flagged = { ...result, flags: { ...result.flags, slow: flag } };
        byCell.get(cell)!.result =
          budget.slow === 'fail'
            ? {
                ...flagged,
                verdict: verdictOf(result.expected, Outcome.Slow),
                actual: Outcome.Slow,
                detail: `${slowText(flag)}; ${result.detail}`,
              }
            : flagged;
      }
    }
    return new Map([...byCell].map(([cell, p]) => [cell, p.result]));
  }

  /**
   * Perf cells against the run's own figures (perf-budget.ts): a flagged one is measured once
   * more and keeps the better of its two runs, so it stays flagged only when both were bad.
   */
  async #judgePerf(byCell: Map<string, Probed>): Promise<void> {
    const budget = this.settings.budget!;
    const results = () => [...byCell.values()].map((p) => p.result);
    const suspects = perfFlags(results(), budget.perf);
    for (const cell of suspects.keys()) {
      const suspect = byCell.get(cell)!;
      const again = await this.#slots.run(() => this.#attempt(suspect.spec!));
      const first = suspect.result.perf!;
      const perf = again.reply?.perf === undefined ? first : better(first, again.reply.perf);
      suspect.result = { ...suspect.result, perf, attempts: suspect.result.attempts + 1 };
    }
    for (const [cell, flags] of perfFlags(results(), budget.perf)) {
      if (!suspects.has(cell)) continue; // never measured again: one run is not a finding
      const probed = byCell.get(cell)!;
      const result = { ...probed.result, flags: { ...probed.result.flags, ...flags } };
      const failsOn =
        flags.slow !== undefined && budget.slow === 'fail'
          ? { outcome: Outcome.Slow, text: slowText(flags.slow) }
          : flags.flaky !== undefined && budget.flaky === 'fail'
            ? {
                outcome: Outcome.Flaky,
                text: `flaky: ${flags.flaky.failed} of ${flags.flaky.attempts} ${flags.flaky.what} lost`,
              }
            : undefined;
      probed.result =
        failsOn === undefined
          ? result
          : {
              ...result,
              verdict: verdictOf(result.expected, failsOn.outcome),
              actual: failsOn.outcome,
              detail: `${failsOn.text}; ${result.detail}`,
            };
    }
  }

  /**
   * One probe (twice with `again`, the slot given up during the pause), judged; a driver that
   * throws (exec API error, crash) gives an Error outcome with its stack, one that finds the lab
   * unfit for the probe (InfrastructureError) an infrastructure error.
   */
  async #attempt(spec: ProbeSpec): Promise<Attempt> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const timeoutMs = spec.timeoutMs ?? this.settings.timeoutMs;
      const reply = await sendProbeTwice(this.driver, this.workloads, spec, timeoutMs, (ms) =>
        this.#slots.pause(ms),
      );
      return { ...judgeReply(reply, spec.check), reply, durationMs: took() };
    } catch (error) {
      if (error instanceof InfrastructureError) {
        const hint = error.hint === undefined ? '' : ` (${error.hint})`;
        return {
          outcome: Outcome.Error,
          detail: `${error.message}${hint}`,
          infra: true,
          durationMs: took(),
        };
      }
      const e = error instanceof Error ? error : new Error(String(error));
      return {
        outcome: Outcome.Error,
        detail: `the probe failed: ${e.stack ?? e.message}`,
        durationMs: took(),
      };
    }
  }
}

/** What a cell's detail names as its target. */
function targetOf(spec: ProbeSpec): string {
  const request = spec.request;
  if ('url' in request) return request.url;
  if ('base' in request) return request.base;
  if ('name' in request) return request.name;
  return 'port' in request ? `${request.host}:${request.port}` : request.host;
}
