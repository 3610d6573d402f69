/**
 * The over-time part of a run (docs/disruption.md), after the matrix: long-lived connections opened at
 * the start and asked again after their idle time, the stateful UDP swap and the twin Services,
 * then the disruption phase. Results go to the run's recorder as each cell is known; the mocha
 * test of a cell waits for its result.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { OSES } from '../../../lab/contracts/cells.ts';
import {
  disruptionSequence,
  disruptionSubjects,
  parseDisruptionCellId,
} from '../../../lab/contracts/disruptions.ts';
import type { CellMeta, CellResult } from '../../../lab/contracts/results-file.ts';
import type { CellPlan } from '../../model/cell-plan.ts';
import type { LabDriver, Workloads } from '../../model/lab-driver.ts';
import type { OverTimeWorkloads } from '../../model/over-time-driver.ts';
import { expectationFor, type Expectation } from '../profile.ts';
import { Slots } from '../slots.ts';
import type { SuiteSettings } from '../suite-settings.ts';
import { errorResult, judgedResult, messageOf, skippedResult } from './cell-results.ts';
import { disruptionCells, type DisruptionCell } from './disruption-cells.ts';
import { runDisruptionPhase } from './disruption-phase.ts';
import { checkHeld, openHeld, type Opened } from './held-checks.ts';
import { NO_OVER_TIME, type OverTimeContext } from './over-time-context.ts';
import { expandOverTimeCells, type HeldCell, type OverTimeCell } from './over-time-cells.ts';
import { OVER_TIME_ROWS } from './over-time-rows.ts';
import { recoveryBound } from './recovery-bounds.ts';
import { runTwinSteps } from './twin-steps.ts';
import { runUdpSwap } from './udp-swap.ts';

/** A cell as the recorder plans it and mocha names it. */
export interface PlannedOverTimeCell {
  meta: CellMeta;
  skip?: string;
}

interface Pending {
  promise: Promise<CellResult>;
  resolve: (result: CellResult) => void;
}

export interface OverTimeOptions {
  settings: SuiteSettings;
  driver: LabDriver;
  /** The matrix's cells (all of them, selected or not): the phase probes some again. */
  matrix: readonly CellPlan[];
  /** Whether mocha runs the cell of this title. */
  selected: (title: string) => boolean;
  /** Told of each result as it is known (the run's recorder). */
  record: (result: CellResult) => void;
}

export class OverTimeRun {
  readonly planned: PlannedOverTimeCell[];
  readonly #cells: OverTimeCell[];
  readonly #disruption: DisruptionCell[];
  readonly #pending = new Map<string, Pending>();
  /** Cells whose result is known (the first one stands). */
  readonly #known = new Set<string>();
  readonly #opened = new Map<string, Opened>();
  readonly #ctx: OverTimeContext;
  #workloads: Workloads | undefined;
  #finished: Promise<void> | undefined;

  constructor(private readonly options: OverTimeOptions) {
    const { settings, driver } = options;
    const all = expandOverTimeCells(OVER_TIME_ROWS, driver.nodes);
    const held = all.filter((c): c is HeldCell => c.family === 'long-lived');
    const subjects = disruptionSubjects(driver.nodes, settings.overTime.nodes);
    const sequence = disruptionSequence(subjects, settings.overTime.actions);
    this.#cells = all.filter((c) => options.selected(c.meta.title));
    this.#disruption = disruptionCells(sequence, options.matrix, held).filter((c) =>
      options.selected(c.meta.title),
    );
    const slots = new Slots(settings.concurrency);
    this.#ctx = {
      driver,
      overTime: driver.overTime,
      settings,
      slots,
      workloads: () => {
        if (this.#workloads === undefined) throw new Error('nothing is deployed');
        return this.#workloads;
      },
      refresh: async () => {
        this.#workloads = (await driver.overTime?.refresh()) ?? this.#workloads;
        return this.#ctx.workloads();
      },
      expectation: (cell) => this.#expectation(cell),
      done: (result) => {
        this.#done(result);
      },
      say: (line) => {
        console.log(`    ${line}`);
      },
    };
    this.planned = [...this.#cells, ...this.#disruption].map((c) => ({
      meta: { ...c.meta, ...this.#expectation(c.meta.cell) },
      ...(c.skip === undefined ? {} : { skip: c.skip }),
    }));
    for (const { meta } of this.planned) {
      let resolve!: (result: CellResult) => void;
      const promise = new Promise<CellResult>((r) => {
        resolve = r;
      });
      this.#pending.set(meta.cell, { promise, resolve });
    }
    for (const c of [...this.#cells, ...this.#disruption])
      if (c.skip !== undefined) this.#done(skippedResult(c.meta, c.skip));
    if (driver.overTime === undefined)
      for (const c of [...this.#cells, ...this.#disruption])
        this.#done(skippedResult(c.meta, NO_OVER_TIME));
  }

  /** The profile's expectation; a disruption cell has its original cell's. */
  #expectation(cell: string): Expectation {
    const original = parseDisruptionCellId(cell)?.original ?? cell;
    return expectationFor(this.options.settings.profile, original, this.options.driver.info);
  }

  #done(result: CellResult): void {
    const pending = this.#pending.get(result.cell);
    if (pending === undefined || this.#known.has(result.cell)) return;
    this.#known.add(result.cell);
    this.options.record(result);
    pending.resolve(result);
  }

  /** The result of a planned cell, once known. */
  result(cell: string): Promise<CellResult> {
    return (
      this.#pending.get(cell)?.promise ??
      Promise.reject(new Error(`${cell} is no over-time cell of this run`))
    );
  }

  /** How long the last result may take: every part's bounds, with room for slow actions. */
  budgetMs(): number {
    const { settings, driver } = this.options;
    const subjects = disruptionSubjects(driver.nodes, settings.overTime.nodes);
    const steps = disruptionSequence(subjects, settings.overTime.actions);
    const perStep = steps.reduce(
      (sum, s) => sum + recoveryBound(settings.profile, s.action, 'linux').boundMs * 3 + 300_000,
      0,
    );
    return 20 * 60_000 + settings.overTime.idleMs + perStep;
  }

  /** Opens the long-lived connections (right after the workloads are deployed). */
  async open(workloads: Workloads): Promise<void> {
    this.#workloads = workloads;
    const overTime = this.options.driver.overTime;
    if (overTime === undefined) return;
    const cells = this.#cells.filter(
      (c): c is HeldCell => c.family === 'long-lived' && c.skip === undefined,
    );
    await Promise.all(
      cells.map((cell) =>
        this.#ctx.slots.run(async () => {
          const got = await openHeld(
            overTime.held,
            workloads,
            cell,
            this.options.settings.timeoutMs,
          ).catch((error: unknown) => ({
            failed: { outcome: 'error' as const, detail: messageOf(error) },
          }));
          if ('skip' in got) this.#done(skippedResult(cell.meta, got.skip));
          else if ('failed' in got)
            this.#done(
              judgedResult(cell.meta, this.#expectation(cell.meta.cell), got.failed, {
                durationMs: 0,
                attempts: 1,
              }),
            );
          else this.#opened.set(cell.meta.cell, got);
        }),
      ),
    );
  }

  /** Runs everything else once `matrixDone` settled; a part that throws fails its open cells. */
  start(matrixDone: Promise<unknown>): void {
    this.#finished = this.#run(matrixDone).catch((error: unknown) => {
      for (const cell of [...this.#pending.keys()].filter((c) => !this.#known.has(c))) {
        const planned = this.planned.find((p) => p.meta.cell === cell);
        if (planned !== undefined)
          this.#done(
            errorResult(
              planned.meta,
              this.#expectation(cell),
              `the over-time run failed: ${messageOf(error)}`,
            ),
          );
      }
    });
  }

  async #run(matrixDone: Promise<unknown>): Promise<void> {
    await matrixDone;
    const ctx = this.#ctx;
    const overTime = ctx.overTime;
    if (overTime === undefined) return;
    const stateful = this.#cells.filter((c) => c.family !== 'long-lived' && c.skip === undefined);
    if (stateful.length > 0) {
      let deployed: OverTimeWorkloads | undefined;
      try {
        deployed = await overTime.deploy(ctx.workloads());
      } catch (error) {
        for (const c of stateful)
          ctx.done(
            errorResult(
              c.meta,
              ctx.expectation(c.meta.cell),
              `deploying the over-time Services failed: ${messageOf(error)}`,
            ),
          );
      }
      if (deployed !== undefined) {
        const of = <F extends OverTimeCell['family']>(family: F) =>
          stateful.filter((c): c is Extract<OverTimeCell, { family: F }> => c.family === family);
        await Promise.all(
          OSES.map((os) =>
            runUdpSwap(
              ctx,
              os,
              of('udp-conntrack').filter((c) => c.os === os),
              deployed,
            ),
          ),
        );
        await Promise.all(
          OSES.map((os) =>
            runTwinSteps(
              ctx,
              os,
              of('twin-services').filter((c) => c.os === os),
            ),
          ),
        );
      }
    }
    await this.#checkLongLived();
    const { settings, driver } = this.options;
    const sequence = disruptionSequence(
      disruptionSubjects(driver.nodes, settings.overTime.nodes),
      settings.overTime.actions,
    );
    await runDisruptionPhase(ctx, sequence, this.#disruption, driver.nodes);
  }

  /** Asks every held connection again once the idle time passed since the last one opened. */
  async #checkLongLived(): Promise<void> {
    const held = this.options.driver.overTime?.held;
    if (held === undefined || this.#opened.size === 0) return;
    const lastOpened = Math.max(...[...this.#opened.values()].map((o) => o.openedAt));
    const wait = lastOpened + this.options.settings.overTime.idleMs - performance.now();
    if (wait > 0) {
      this.#ctx.say(
        `long-lived connections: idle ${Math.round(wait / 1000)} s more before they must answer`,
      );
      await delay(wait);
    }
    await Promise.all(
      [...this.#opened.entries()].map(([cell, opened]) =>
        this.#ctx.slots.run(async () => {
          const asked = performance.now();
          const judged = await checkHeld(held, opened, this.options.settings.timeoutMs);
          const planned = this.planned.find((p) => p.meta.cell === cell)!;
          this.#done(
            judgedResult(planned.meta, this.#expectation(cell), judged, {
              durationMs: performance.now() - asked,
              attempts: 1,
            }),
          );
          await held.close(opened.id);
          this.#opened.delete(cell);
        }),
      ),
    );
  }

  /** Waits for the run to end and closes what is still held (before the workloads go). */
  async close(): Promise<void> {
    const held = this.options.driver.overTime?.held;
    if (held !== undefined)
      await Promise.all(
        [...this.#opened.values()].map((o) => held.close(o.id).catch(() => undefined)),
      );
    this.#opened.clear();
  }

  /** Settles once every part ran (for the cleanup hook: nothing may still act on the lab). */
  finished(): Promise<void> {
    return this.#finished ?? Promise.resolve();
  }
}
