/**
 * The conformance suite as mocha tests: one it() per matrix cell, all probed in parallel up
 * front. Results go into a RunRecorder; the report is written once, when the run ends —
 * normally, by a signal, or with nothing selected.
 */
import type { CellResult, RunInfo } from '../../lab/contracts/results-file.ts';
import { checkDisruptionNodes } from './disruption/over-time-settings.ts';
import { OverTimeRun } from './disruption/over-time-run.ts';
import { expandWithLeftOut } from '../matrix/left-out-cells.ts';
import { MATRIX, type MatrixRow } from '../matrix/rows.ts';
import { PERF_MATRIX } from '../matrix/perf-cells.ts';
import { parseCellId } from '../../lab/contracts/cells.ts';
import type { LabDriver, LabInfo, Workloads } from '../model/lab-driver.ts';
import type { CellPlan } from '../model/cell-plan.ts';
import { LAB_READY_CELL, runStatus, unknownRunInfo, type Report } from '../model/report.ts';
import { podNames } from '../model/workload-names.ts';
import { resultsDir, writeReport } from '../report/write-report.ts';
import { CellRunner } from './cell-runner.ts';
import { withDeadline } from './deadline.ts';
import {
  collectEvidence,
  evidenceBudgetMs,
  evidenceCells,
  evidenceNotAsked,
  removeEvidence,
} from './evidence.ts';
import { expectationFor, expectationMeta } from './profile.ts';
import { RunRecorder } from './run-recorder.ts';
import { estimateLine } from './run-estimate.ts';
import { meshForCluster } from '../matrix/mesh.ts';
import type { SuiteSettings } from './suite-settings.ts';
import { messageWithHint } from '../../lab/errors.ts';

/** What a cell that gave no result within its limit records: a failure that says so. */
function noResultWithin(limit: number) {
  return {
    verdict: 'fail' as const,
    actual: 'error' as const,
    detail: `no result within ${limit} ms`,
    durationMs: limit,
    attempts: 0,
  };
}

export interface MatrixSuiteOptions {
  /** The run's settings; an error here is the run's one infrastructure testcase. */
  settings: () => SuiteSettings;
  /** The lab to test, with the run's settings; an error here is the run's one infrastructure testcase. */
  openDriver: (settings: SuiteSettings) => Promise<LabDriver>;
  /** The lab as planned, for the results of a run whose lab cannot be opened. */
  describeLab?: () => LabInfo | undefined;
  /** Where the results go; default $RESULTS_DIR, else test-results/. */
  resultsDir?: string;
  rows?: readonly MatrixRow[];
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** How long an interrupted run may spend removing its workloads before it dies of the signal. */
const INTERRUPT_CLEANUP_MS = 60_000;

/** Defines the suite's mocha tests; call it at the top level of a spec file. */
export async function defineMatrixSuite(options: MatrixSuiteOptions): Promise<void> {
  const recorder = new RunRecorder();
  const report = new ReportOnce(recorder, options.resultsDir ?? resultsDir());
  let settings: SuiteSettings | undefined;
  let driver: LabDriver | undefined;
  let openError: unknown;
  try {
    settings = options.settings();
    driver = await options.openDriver(settings);
    checkDisruptionNodes(settings.overTime.nodes, driver.nodes);
  } catch (error) {
    openError = error;
    recorder.openFailed(messageWithHint(error));
    process.stderr.write(`hybrid-lab: ${messageWithHint(error)}\n`);
  }
  const info = driver?.info ?? options.describeLab?.();
  const suiteTitle =
    info === undefined
      ? 'hybrid matrix'
      : `hybrid matrix on ${info.lab} (${info.provider}${info.emulated ? ', EMULATED' : ''})`;
  // A cluster the harness did not make, above a few nodes, is a ring unless MESH=full asks.
  const run =
    settings === undefined || driver === undefined
      ? settings
      : {
          ...settings,
          mesh: meshForCluster(settings.mesh, settings.meshAsked === true, {
            provider: driver.info.provider,
            nodes: driver.nodes.length,
          }),
        };
  const rows = options.rows ?? (run?.suite === 'perf' ? PERF_MATRIX : MATRIX);
  const matrix =
    driver === undefined || run === undefined
      ? []
      : // Cells that need a node the run leaves out are skipped naming it (left-out-cells.ts).
        expandWithLeftOut(
          rows,
          driver.nodes,
          driver.leftOut ?? [],
          run.mesh,
          run.perf,
          driver.info,
        ).map((plan) => perfHosted(plan, driver));
  const cells =
    driver === undefined || run === undefined
      ? []
      : matrix
          .map((plan) => ({
            plan,
            expectation: expectationFor(run.profile, plan.meta.cell, driver.info),
          }))
          .filter((c) => run.selection.matches(`${suiteTitle} ${c.plan.meta.title}`));
  // Long-lived, stateful and disruption cells (specs/engine/disruption), when the run asks for them.
  const overTime =
    driver !== undefined && run !== undefined && run.overTime.enabled
      ? new OverTimeRun({
          settings: run,
          driver,
          matrix,
          selected: (title) => run.selection.matches(`${suiteTitle} ${title}`),
          record: (result) => {
            recorder.record(result);
          },
        })
      : undefined;
  // Emulated labs probe in milliseconds: the estimate, measured on real Kubernetes, is for real clusters.
  if (run !== undefined && cells.length > 0 && driver?.info.emulated === false) {
    const probed = cells.filter((c) => c.plan.probe !== undefined).length;
    const ring =
      run.mesh.mode !== settings?.mesh.mode
        ? '; above 8 nodes a ring by default, MESH=full for the whole mesh'
        : '';
    console.log(`  hybrid-lab: ${estimateLine(probed, run.mesh, run.concurrency)}${ring}`);
  }
  recorder.plan([
    ...cells.map(({ plan, expectation }) => ({
      meta: { ...plan.meta, ...expectationMeta(expectation) },
      ...(plan.skip === undefined ? {} : { skip: plan.skip }),
    })),
    ...(overTime?.planned ?? []),
  ]);
  if (info !== undefined) recorder.setRun(runInfo(info, run));
  let runner: CellRunner | undefined;

  // Interrupted (Ctrl-C, a CI timeout's SIGTERM): the results first, then the run's workloads
  // are removed (bounded), then the process dies of the signal.
  for (const signal of SIGNALS) {
    const onSignal = (): void => {
      report.write(signal);
      const die = (): void => {
        const left = driver?.pending() ?? [];
        if (left.length > 0) {
          process.stderr.write(
            `hybrid-lab: interrupted by ${signal}; left behind: ${left.join('; ')}\n`,
          );
        }
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      };
      const bounded = new Promise((resolve) => setTimeout(resolve, INTERRUPT_CLEANUP_MS).unref());
      void Promise.race([driver?.cleanup(), bounded]).then(die, die);
    };
    process.on(signal, onSignal);
  }
  // The one place a run that ends on its own writes its results, whatever mocha ran.
  process.once('exit', () => {
    report.write();
  });

  describe(suiteTitle, function () {
    before('infrastructure: lab ready and workloads deployed', async function () {
      if (driver === undefined || run === undefined) return;
      // Our own deadline ends the hook, not mocha's timeout: mocha would go on to the cleanup
      // while the deploy went on and its cells then probed what the cleanup removed, reported
      // as network failures instead of this one.
      // The images' pulls have their own bound, before the deploy's.
      const pullMs = driver.imagePullTimeoutMs ?? 0;
      const deadlineMs = run.deployTimeoutMs + pullMs;
      this.timeout(deadlineMs + 60_000);
      try {
        const ready = driver
          .checkReady()
          .then(() => driver.deploy(run.runId, podNames(driver.nodes)));
        ready.catch(() => undefined); // settled after the deadline: nobody waits for it
        const workloads = await withDeadline<Workloads | undefined>(
          ready,
          deadlineMs,
          () => undefined,
        );
        if (workloads === undefined)
          throw new Error(
            `the lab was not ready with the workloads deployed within ${run.deployTimeoutMs} ms (DEPLOY_TIMEOUT_MS)${pullMs === 0 ? '' : ` after ${pullMs} ms for the images (PREPULL_TIMEOUT_MS)`}`,
          );
        runner = new CellRunner(driver, workloads, run, recorder);
        await overTime?.open(workloads);
        runner.prefetch(cells);
        const prefetched = runner;
        overTime?.start(
          Promise.allSettled(cells.map((c) => prefetched.result(c.plan, c.expectation))),
        );
      } catch (error) {
        recorder.hookFailed('infrastructure: lab ready and workloads deployed', error);
        // Mocha prints the message; what the user can do about it comes only with the hint.
        const hint = (error as { hint?: unknown }).hint;
        if (typeof hint === 'string') process.stderr.write(`hybrid-lab: hint: ${hint}\n`);
        throw error;
      }
    });

    // A failing after hook makes mocha skip the ones after it (the cleanup): this one never fails,
    // and each cell's collection is bounded so that the hook's own timeout is never reached.
    after('path evidence of failing cells', async function () {
      const dir = options.resultsDir ?? resultsDir();
      try {
        removeEvidence(dir);
        if (driver === undefined || run === undefined || runner === undefined) return;
        const cells = evidenceCells(await runner.probed(), run.evidence);
        if (cells.length === 0 || driver.pathEvidence === undefined) return;
        const notAsked = evidenceNotAsked(run.evidence, driver.evidenceOptIn);
        if (notAsked !== undefined) {
          console.log(`    path evidence of ${cells.length} cell(s) not collected: ${notAsked}`);
          return;
        }
        this.timeout(evidenceBudgetMs(cells, run.timeoutMs) + 30_000);
        const started = performance.now();
        const collected = await collectEvidence(driver, cells, dir, run.timeoutMs);
        for (const [cell, evidence] of collected) recorder.attachEvidence(cell, evidence);
        console.log(
          `    path evidence of ${collected.size} cell(s) in ${Math.round(performance.now() - started)} ms: ${dir}/evidence/`,
        );
      } catch (error) {
        console.warn(`    path evidence not collected: ${(error as Error).message}`);
      }
    });

    after('remove the run namespace', async function () {
      this.timeout(run?.deployTimeoutMs ?? 120_000);
      try {
        await overTime?.close();
        await driver?.cleanup();
      } catch (error) {
        recorder.hookFailed('remove the run namespace', error);
        throw error;
      }
    });

    if (driver === undefined) {
      it(LAB_READY_CELL.title, function () {
        throw openError;
      });
    }

    for (const { plan, expectation } of cells) {
      it(plan.meta.title, async function () {
        const limit = run!.timeoutMs * (run!.retries + 2) * Math.max(1, cells.length) + 10_000;
        this.timeout(limit + 5000);
        const result = await withDeadline(runner!.result(plan, expectation), limit, () => ({
          ...plan.meta,
          ...expectationMeta(expectation),
          ...noResultWithin(limit),
        }));
        recorder.record(result);
        settle(this, result, run!);
      });
    }

    for (const { meta } of overTime?.planned ?? []) {
      it(meta.title, async function () {
        const limit = overTime!.budgetMs();
        this.timeout(limit + 5000);
        const result = await withDeadline(overTime!.result(meta.cell), limit, () => ({
          ...meta,
          ...noResultWithin(limit),
        }));
        recorder.record(result);
        settle(this, result, run!);
      });
    }
  });
}

/** Ends a cell's mocha test as its verdict says: passed, skipped (with reason), or failed. */
function settle(test: Mocha.Context, result: CellResult, run: SuiteSettings): void {
  switch (result.verdict) {
    case 'pass':
      return;
    case 'skipped':
    case 'expected-failure':
      test.skip();
      return;
    case 'unexpected-pass':
      if (run.profile.unexpectedPass === 'warn') {
        console.warn(
          `    UNEXPECTED PASS: ${result.title} — ${result.reason ?? ''}; update profile ${run.profile.name}`,
        );
        return;
      }
      throw new Error(
        `unexpected pass: ${result.title} works now but profile ${run.profile.name} expects ${result.expected}; update the profile`,
      );
    case 'fail':
    case 'infra-error':
      throw new Error(
        `expected ${result.expected}, got ${result.actual ?? 'nothing'}: ${result.detail}`,
      );
  }
}

/** A perf cell the driver cannot measure is skipped with its reason. */
function perfHosted(plan: CellPlan, driver: LabDriver): CellPlan {
  const key = parseCellId(plan.meta.cell);
  if (key?.kind !== 'perf' || plan.probe === undefined) return plan;
  const why = driver.perfUnsupported?.(key);
  if (why === undefined) return plan;
  return { meta: plan.meta, ...(plan.churn === undefined ? {} : { churn: plan.churn }), skip: why };
}

function runInfo(info: LabInfo, settings: SuiteSettings | undefined): RunInfo {
  const startedAt = new Date();
  return {
    ...unknownRunInfo(startedAt),
    ...info,
    ...(settings === undefined
      ? {}
      : {
          runId: settings.runId,
          profile: settings.profile.name,
          unexpectedPass: settings.profile.unexpectedPass,
          suite: settings.suite,
          mesh: settings.mesh,
        }),
    startedAt: startedAt.toISOString(),
  };
}

/**
 * Writes the recorder's report once (junit_01.xml, summary.md, matrix.html, results.json). A run
 * whose results could not be written, that ran no cell, or whose lab was not ready, exits 1 even
 * where mocha counted no failure (a --grep that filtered out the infrastructure testcase).
 */
class ReportOnce {
  #written = false;

  constructor(
    private readonly recorder: RunRecorder,
    private readonly dir: string,
  ) {}

  write(interrupted?: string): void {
    if (this.#written) return;
    this.#written = true;
    let failed: string | undefined;
    try {
      const report: Report = this.recorder.report(interrupted);
      const files = writeReport(report, this.dir);
      const what = interrupted ? `interrupted by ${interrupted}; partial results` : 'results';
      process.stdout.write(`  hybrid-lab ${what}: ${Object.values(files).join(', ')}\n\n`);
      if (runStatus(report.totals) === 'empty') {
        failed = 'no matrix cell ran; a conformance run that tests nothing fails';
      } else if (report.totals.infraErrors > 0) {
        failed = 'the suite could not run on this lab (see the infrastructure testcase)';
      }
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failed = `could not write results to ${this.dir}: ${message}`;
    }
    if (failed !== undefined && interrupted === undefined) {
      process.stderr.write(`hybrid-lab: ${failed}\n`);
      // Inside an 'exit' listener this ends the process at once with 1, before mocha's own
      // listener could set its failure count (0 when it ran no test).
      process.exit(1);
    }
  }
}
