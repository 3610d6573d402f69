/** Runs the conformance suite as a child process exactly as users do, and reads its results.json. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandRunner } from '../../lab/exec/command-runner.ts';
import type { CellResult, RunInfo } from '../../lab/contracts/results-file.ts';
import type { OtherResult, Totals } from '../../lab/contracts/results-file.ts';
import { RESULT_FILES } from '../report/write-report.ts';

/** The repository root, where `.mocharc.suite.json` lives. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What `npm test` runs. tsx is loaded by node itself, not by mocha's config: with a node flag in
 * its config mocha re-spawns itself and a SIGTERM to it would orphan the run instead of letting
 * the run write its results and remove its workloads.
 */
export const SUITE_COMMAND = [
  'node',
  '--import',
  'tsx',
  'node_modules/mocha/bin/mocha.js',
  '--config',
  '.mocharc.suite.json',
] as const;

export interface SuiteRun {
  resultsDir: string;
  exitCode: number;
  timedOut: boolean;
  durationMs: number;
  run?: RunInfo;
  cells: CellResult[];
  totals?: Totals;
  /** Why the run cannot be judged cell by cell (a hook failed, cells never ran, no results). */
  broken?: string;
}

export interface SuiteOptions {
  /** Lab name and `.lab` folder the suite attaches to (no name: KUBECONFIG's cluster in `env`). */
  lab?: string;
  labHome: string;
  /** Kills a run that takes longer (a hang is a failure, not a wait). */
  timeoutMs: number;
  /** Extra environment (PROBE_TIMEOUT_MS, CONCURRENCY, ...). */
  env?: Record<string, string>;
  /** Only the cells whose full title this matches (mocha's --grep). */
  grep?: string;
}

interface ResultsJson {
  run: RunInfo;
  cells: CellResult[];
  totals: Totals;
  other: OtherResult[];
  interrupted?: string;
}

function brokenReason(results: ResultsJson, exitCode: number): string | undefined {
  const hooks = results.other.filter((o) => o.state === 'hook-failed');
  if (hooks.length > 0)
    return `hook failed: ${hooks.map((h) => `${h.title}: ${h.message ?? ''}`).join('; ')}`;
  if (results.interrupted !== undefined) return `interrupted by ${results.interrupted}`;
  if (results.totals.notRun > 0) return `${results.totals.notRun} cells never ran`;
  if (results.cells.length === 0) return `no cells ran (exit ${exitCode})`;
  return undefined;
}

/** Runs the suite with RESULTS_DIR=`resultsDir` and the strict profile; keeps its output in suite.log. */
export async function runSuite(
  runner: CommandRunner,
  resultsDir: string,
  options: SuiteOptions,
): Promise<SuiteRun> {
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });
  const [file, ...command] = SUITE_COMMAND;
  const args = options.grep === undefined ? command : [...command, '--grep', options.grep];
  const result = await runner.run(file, args, {
    cwd: REPO_ROOT,
    check: false,
    timeoutMs: options.timeoutMs,
    env: {
      // The self-test judges verdicts; path evidence would only add a traced retry per red cell.
      EVIDENCE: 'off',
      ...options.env,
      LAB: options.lab, // undefined: unset
      LAB_HOME: options.labHome,
      RESULTS_DIR: resultsDir,
      PROFILE: 'strict',
      FORCE_COLOR: '0',
    },
  });
  writeFileSync(join(resultsDir, 'suite.log'), `${result.stdout}${result.stderr}`);
  const base = {
    resultsDir,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
  };
  const file_ = join(resultsDir, RESULT_FILES.json);
  if (result.timedOut)
    return {
      ...base,
      cells: [],
      broken: `the suite ran longer than ${options.timeoutMs} ms and was killed`,
    };
  if (!existsSync(file_))
    return {
      ...base,
      cells: [],
      broken: `the suite wrote no ${RESULT_FILES.json} (exit ${result.exitCode})`,
    };
  const results = JSON.parse(readFileSync(file_, 'utf8')) as ResultsJson;
  const broken = brokenReason(results, result.exitCode);
  return {
    ...base,
    run: results.run,
    cells: results.cells,
    totals: results.totals,
    ...(broken === undefined ? {} : { broken }),
  };
}
