/**
 * A Stryker test runner for this project's mocha 12 (ESM, TypeScript through tsx). No published
 * @stryker-mutator/mocha-runner loads mocha 12: they require mocha's CLI internals by names mocha
 * 12 renamed to .cjs, and the 10.x line needs Node 22. This one uses only mocha's documented
 * Mocha class. Tests load once (ESM cannot unload); each mutant run activates the mutant in this
 * process and, through __STRYKER_ACTIVE_MUTANT__, in every process a test starts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Mocha from 'mocha';
import {
  INSTRUMENTER_CONSTANTS,
  type MutantCoverage,
  type StrykerOptions,
} from '@stryker-mutator/api/core';
import type { Logger } from '@stryker-mutator/api/logging';
import { PluginKind, commonTokens, declareClassPlugin, tokens } from '@stryker-mutator/api/plugin';
import {
  DryRunStatus,
  determineHitLimitReached,
  toMutantRunResult,
  type DryRunOptions,
  type DryRunResult,
  type MutantRunOptions,
  type MutantRunResult,
  type TestRunner,
} from '@stryker-mutator/api/test-runner';
import { addUnder, attributeSuites } from './coverage-keys.ts';
import { ENV_KEY, RunEvents, setEnv, type Instrumentation } from './run-events.ts';
import { specFiles } from './spec-files.ts';

/** What `mochaEsm` in stryker.config.json may say. */
interface MochaEsmOptions {
  /** Test files, as globs relative to the project (`*` within a folder, `**` across). */
  spec: string[];
  /** Files the globs match that must not run (they need a lab, or take minutes). */
  ignore?: string[];
  /** A regular expression of the full titles of tests not to run: each spawns a whole suite. */
  exclude?: string;
  /** Each test's own timeout, as .mocharc.unit.json gives it. */
  timeoutMs?: number;
  /**
   * Runs of a failing test before it counts as failed: a test that checks how long something took
   * can miss its bound on a loaded machine, and one such failure aborts Stryker's initial run.
   */
  retries?: number;
}

const CHILD_HOOK = fileURLToPath(new URL('./child-coverage.mjs', import.meta.url));
const ENV_DIR = 'HL_MUTATION_COVERAGE_DIR';

export class MochaEsmRunner implements TestRunner {
  static inject = tokens(commonTokens.logger, commonTokens.options);
  readonly #options: MochaEsmOptions;
  /** Stryker's `testFiles` (a scope's own tests, `--testFiles`): when set, they replace `spec`. */
  readonly #testFiles: readonly string[];
  readonly #ns: Instrumentation;
  readonly #tmp = mkdtempSync(join(tmpdir(), 'hl-mutation-'));
  #mocha: Mocha | undefined;
  #loaded = false;
  readonly #events: RunEvents;

  constructor(
    private readonly log: Logger,
    options: StrykerOptions,
  ) {
    this.#options = (options as { mochaEsm?: MochaEsmOptions }).mochaEsm ?? { spec: [] };
    this.#testFiles = options.testFiles;
    const g = globalThis as Record<string, Instrumentation | undefined>;
    this.#ns = g[INSTRUMENTER_CONSTANTS.NAMESPACE] ??= {};
    this.#events = new RunEvents(this.#ns);
  }

  capabilities() {
    return { reloadEnvironment: false };
  }

  init(): Promise<void> {
    // Every temporary file of the tests (and of the processes they start) in one folder, removed at dispose.
    process.env.TMPDIR = this.#tmp;
    const spec = this.#testFiles.length > 0 ? this.#testFiles : this.#options.spec;
    const files = specFiles(process.cwd(), spec, this.#options.ignore ?? []);
    if (files.length === 0) throw new Error(`the test files match no file: ${spec.join(' ')}`);
    this.log.debug(`mochaEsm: ${files.length} test files`);
    const mocha = new Mocha({
      timeout: this.#options.timeoutMs ?? 60_000,
      retries: this.#options.retries ?? 0,
    });
    mocha.cleanReferencesAfterRun(false);
    for (const file of files) mocha.addFile(file);
    const listen = (events: Mocha.Runner) => {
      this.#events.listen(events);
    };
    mocha.reporter(
      class extends Mocha.reporters.Base {
        constructor(events: Mocha.Runner) {
          super(events);
          listen(events);
        }
      },
    );
    this.#mocha = mocha;
    return Promise.resolve();
  }

  async dryRun({ coverageAnalysis, disableBail }: DryRunOptions): Promise<DryRunResult> {
    this.#events.collecting = coverageAnalysis === 'perTest';
    if (this.#events.collecting) {
      process.env[ENV_DIR] = mkdtempSync(join(this.#tmp, 'coverage-'));
      const preload = `--import=${CHILD_HOOK}`;
      const now = process.env.NODE_OPTIONS ?? '';
      if (!now.includes(preload)) process.env.NODE_OPTIONS = `${now} ${preload}`.trim();
    }
    this.#select(undefined);
    try {
      const result = await this.#run(disableBail, undefined);
      if (result.status !== DryRunStatus.Complete || coverageAnalysis === 'off') return result;
      const coverage = this.#ns.mutantCoverage ?? { static: {}, perTest: {} };
      if (coverageAnalysis === 'all') return { ...result, mutantCoverage: coverage };
      this.#readChildren(coverage, process.env[ENV_DIR] ?? '');
      return { ...result, mutantCoverage: attributeSuites(coverage, this.#events.testsUnder) };
    } finally {
      this.#events.collecting = false;
      this.#ns.currentTestId = undefined;
      setEnv(ENV_DIR, undefined);
      setEnv(ENV_KEY, undefined);
    }
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const { activeMutant, testFilter, disableBail, hitLimit, mutantActivation } = options;
    this.#ns.hitLimit = hitLimit;
    this.#ns.hitCount = hitLimit === undefined ? undefined : 0;
    this.#select(testFilter);
    setEnv(INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE, activeMutant.id);
    try {
      return toMutantRunResult(await this.#run(disableBail, activeMutant.id, mutantActivation));
    } finally {
      setEnv(INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE, undefined);
    }
  }

  dispose(): Promise<void> {
    try {
      this.#mocha?.dispose();
    } catch (error) {
      // Stryker disposes a runner it timed out while its tests still run: the process ends anyway.
      if ((error as { code?: string }).code !== 'ERR_MOCHA_INSTANCE_ALREADY_RUNNING') throw error;
    }
    rmSync(this.#tmp, { recursive: true, force: true });
    return Promise.resolve();
  }

  /** Runs the tests of `filter` (full titles), or every test but the excluded ones. */
  #select(filter: readonly string[] | undefined): void {
    const mocha = this.#mocha!;
    const exclude = this.#options.exclude;
    if (filter !== undefined) {
      const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      mocha.grep(new RegExp(filter.map((t) => `^${escape(t)}$`).join('|')));
      mocha.options.invert = false;
    } else {
      mocha.grep(exclude === undefined ? /.*/ : new RegExp(exclude));
      mocha.options.invert = exclude !== undefined;
    }
  }

  async #run(
    disableBail: boolean,
    mutant: string | undefined,
    activation?: MutantRunOptions['mutantActivation'],
  ): Promise<DryRunResult> {
    const mocha = this.#mocha!;
    try {
      if (!this.#loaded) {
        // A static mutant is in code that runs as its module loads: active before the import.
        this.#ns.activeMutant = activation === 'static' ? mutant : undefined;
        await mocha.loadFilesAsync();
        this.#loaded = true;
      }
      bail(mocha.suite, !disableBail);
      this.#ns.activeMutant = mutant;
      this.#events.tests = [];
      await new Promise<void>((resolve) => {
        mocha.run(() => {
          resolve();
        });
      });
      const timedOut = determineHitLimitReached(this.#ns.hitCount, this.#ns.hitLimit);
      return timedOut ?? { status: DryRunStatus.Complete, tests: this.#events.tests };
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      return { status: DryRunStatus.Error, errorMessage: message };
    }
  }

  /** Adds what the processes the tests started reached, each under the key it was started with. */
  #readChildren(coverage: MutantCoverage, dir: string): void {
    for (const name of readdirSync(dir)) {
      const { key, hits } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
        key: string;
        hits: Record<string, number>;
      };
      addUnder(coverage, key, hits);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function bail(suite: Mocha.Suite, on: boolean): void {
  suite.bail(on);
  for (const child of suite.suites) bail(child, on);
}

export const strykerPlugins = [
  declareClassPlugin(PluginKind.TestRunner, 'mocha-esm', MochaEsmRunner),
];

/** Lets Stryker check `mochaEsm` in the config like its own options. */
export const strykerValidationSchema = {
  $schema: 'http://json-schema.org/draft-07/schema',
  type: 'object',
  properties: {
    mochaEsm: {
      type: 'object',
      additionalProperties: false,
      required: ['spec'],
      properties: {
        spec: { type: 'array', items: { type: 'string' }, minItems: 1 },
        ignore: { type: 'array', items: { type: 'string' } },
        timeoutMs: { type: 'integer', minimum: 1 },
        retries: { type: 'integer', minimum: 0 },
        exclude: { type: 'string', minLength: 1 },
      },
    },
  },
};
