/**
 * Mocha reporter for the conformance suite: mocha's `spec` output on the console, and
 * junit_01.xml, summary.md, matrix.html and results.json in $RESULTS_DIR (default test-results/),
 * also when the run is interrupted by SIGINT or SIGTERM.
 *
 *   mocha --import=tsx --reporter ./specs/report/hybrid-reporter.ts specs/...
 */
import Mocha from 'mocha';
import { CellCollector, type TestFilter } from './cell-collector.ts';
import { runStatus } from './report-model.ts';
import { resultsDir, writeReport } from './write-report.ts';

const {
  EVENT_RUN_BEGIN,
  EVENT_RUN_END,
  EVENT_TEST_BEGIN,
  EVENT_TEST_FAIL,
  EVENT_TEST_PASS,
  EVENT_TEST_PENDING,
} = Mocha.Runner.constants;

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Spec console output plus the hybrid-lab result files. */
export default class HybridReporter extends Mocha.reporters.Spec {
  readonly #collector = new CellCollector();
  readonly #dir = resultsDir();
  #written = false;
  #writeFailed = false;
  #empty = false;
  #infraError = false;

  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const c = this.#collector;
    runner.once(EVENT_RUN_BEGIN, () => {
      c.plan(runner.suite, runnerFilter(runner));
    });
    runner.on(EVENT_TEST_BEGIN, (test) => {
      c.begin(test);
    });
    runner.on(EVENT_TEST_PASS, (test) => {
      c.passed(test);
    });
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      c.failed(test, err);
    });
    runner.on(EVENT_TEST_PENDING, (test) => {
      c.pending(test);
    });
    // Registered after Spec's own listener, so the file list follows mocha's epilogue.
    runner.once(EVENT_RUN_END, () => {
      this.#write();
      this.#releaseSignals();
    });
    for (const signal of SIGNALS) process.on(signal, this.#onSignal);
  }

  /** Mocha's completion hook: a run whose results could not be written, that ran no cell, or whose lab was not ready, does not pass. */
  override done(failures: number, fn?: (failures: number) => void): void {
    const failed = this.#writeFailed || this.#empty || this.#infraError;
    fn?.(failed ? Math.max(failures, 1) : failures);
  }

  readonly #onSignal = (signal: NodeJS.Signals): void => {
    this.#write(signal);
    this.#releaseSignals();
    // Re-raise for the default exit, unless someone else (the engine's lab cleanup) owns the signal.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  #releaseSignals(): void {
    for (const signal of SIGNALS) process.off(signal, this.#onSignal);
  }

  #write(interrupted?: string): void {
    if (this.#written) return;
    this.#written = true;
    try {
      const report = this.#collector.report(interrupted);
      const files = writeReport(report, this.#dir);
      this.#infraError = report.totals.infraErrors > 0;
      if (runStatus(report.totals) === 'empty') {
        this.#empty = true;
        process.stderr.write(
          'hybrid-lab: no matrix cell ran; a conformance run that tests nothing fails\n',
        );
      }
      const what = interrupted ? `interrupted by ${interrupted}; partial results` : 'results';
      process.stdout.write(`  hybrid-lab ${what}: ${Object.values(files).join(', ')}\n\n`);
    } catch (err) {
      this.#writeFailed = true;
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stderr.write(`hybrid-lab: could not write results to ${this.#dir}: ${message}\n`);
    }
  }
}

// mocha keeps --grep/--invert on private fields; planning must match what it will actually run.
function runnerFilter(runner: Mocha.Runner): TestFilter {
  const { _grep: grep, _invert: invert } = runner as unknown as {
    _grep?: unknown;
    _invert?: unknown;
  };
  return { ...(grep instanceof RegExp ? { grep } : {}), invert: invert === true };
}
