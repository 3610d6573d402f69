/**
 * `npm run mutation`: Stryker over the judging core (stryker.config.json, docs/mutation-testing.md).
 *
 *   npm run mutation                   re-tests only the mutants whose code or tests changed since
 *                                      the last run with this scope, config and lockfile
 *   npm run mutation -- --full         re-tests every mutant (the nightly job)
 *   npm run mutation -- --scope ci     only the files of the `ci` scope (mutation-args.ts)
 *   npm run mutation -- --scope ci --changed
 *                                      only what the change (CI_BASE..HEAD, default HEAD^..HEAD)
 *                                      touched of the scope, every mutant of it, no state: CI
 *
 * The incremental state lives outside the work tree, in HL_MUTATION_CACHE (default
 * /var/cache/hybrid-lab/mutation) under a hash of the scope, the config and the lockfile: another
 * scope, config or Stryker starts afresh. Exits 1 when the score is under thresholds.break, when a mutant
 * survived that stryker-equivalent.json does not list, or when an entry there matches no survivor.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabError } from '../../lab/errors.ts';
import { isMain, runMain } from '../tools/run-main.ts';
import { compareEquivalents, readEquivalents } from './equivalents.ts';
import { changedMutate, parseDiff } from './changed-scope.ts';
import {
  mutatedBy,
  parseMutationArgs,
  SCOPES,
  scopeArgs,
  type Scope,
  type ScopeName,
} from './mutation-args.ts';
import { readReport, scoresByFolder, undetectedMutants } from './mutation-report.ts';
import {
  reviewOk,
  summaryLines,
  summaryMarkdown,
  type MutationReview,
} from './mutation-summary.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = 'stryker.config.json';
const EQUIVALENTS = 'stryker-equivalent.json';
const REPORT = 'test-results/mutation/mutation.json';
const SUMMARY = 'test-results/mutation/summary.md';
const HTML = 'test-results/mutation/index.html';
const STRYKER = 'node_modules/@stryker-mutator/core/bin/stryker.js';
/** The config of a `--changed` run, written from CONFIG (under the git-ignored results). */
const CHANGED_CONFIG = 'test-results/mutation/changed.stryker.json';

/** Where the incremental state of a scope of `root`'s config and lockfile lives under `cacheRoot`. */
export function incrementalFile(root: string, cacheRoot: string, scope: ScopeName): string {
  const hash = createHash('sha256').update(JSON.stringify({ scope, files: SCOPES[scope] }));
  for (const file of [CONFIG, 'package-lock.json']) hash.update(readFileSync(join(root, file)));
  return join(cacheRoot, hash.digest('hex').slice(0, 16), 'stryker-incremental.json');
}

/**
 * What the run of `scope` found: per-folder scores, and each survivor checked against the
 * equivalents list. An entry is stale only in a file the scope mutates whole. `mutated`: the
 * `--mutate` entries of a `--changed` run.
 */
export function reviewReport(
  root: string,
  scope: ScopeName,
  mutated?: readonly string[],
): MutationReview {
  const report = readReport(join(root, REPORT));
  const undetected = undetectedMutants(report);
  const s: Scope | null = SCOPES[scope];
  const whole =
    mutated !== undefined
      ? mutated.filter((m) => !m.includes(':'))
      : s === null
        ? Object.keys(report.files)
        : s.mutate.filter((m) => typeof m === 'string');
  const { unlisted, stale } = compareEquivalents(
    undetected,
    readEquivalents(join(root, EQUIVALENTS)),
    new Set(whole),
  );
  const config = JSON.parse(readFileSync(join(root, CONFIG), 'utf8')) as {
    thresholds?: { break?: number | null };
  };
  // A run of what a change touched (`mutated`) has no score threshold: every survivor is listed.
  const breakAt = mutated !== undefined ? null : (config.thresholds?.break ?? null);
  return { scores: scoresByFolder(report), undetected, unlisted, stale, breakAt };
}

/** The change CI judges: HEAD against CI_BASE (default HEAD's first parent). */
function changeBase(): string {
  return process.env.CI_BASE ?? 'HEAD^';
}

function git(args: string[]): string {
  const run = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0)
    throw new LabError(`git ${args.join(' ')} failed: ${run.stderr.trim()}`, {
      hint: '--changed needs the checkout with its history; CI_BASE names the base commit',
    });
  return run.stdout;
}

/** The scope's files and tests: its own lists, or for `core` the config's globs over the checkout. */
function scopeLists(scope: ScopeName): { mutate: Scope['mutate']; tests: readonly string[] } {
  const s: Scope | null = SCOPES[scope];
  if (s !== null) return s;
  const config = JSON.parse(readFileSync(join(ROOT, CONFIG), 'utf8')) as {
    mutate: string[];
    mochaEsm: { spec: string[]; ignore: string[] };
  };
  const files = git(['ls-files']).split('\n');
  const specs = [...config.mochaEsm.spec, ...config.mochaEsm.ignore.map((i) => `!${i}`)];
  return {
    mutate: files.filter((f) => mutatedBy(config.mutate, f)),
    tests: files.filter((f) => mutatedBy(specs, f)),
  };
}

/** `--mutate` entries of the part of `scope` the change touched, or [] when it touched none. */
function changedEntries(scope: ScopeName, base: string): string[] {
  const { mutate, tests } = scopeLists(scope);
  const files = [
    ...new Set([...mutate.map((m) => (typeof m === 'string' ? m : m.file)), ...tests]),
  ];
  const diff = git(['diff', '-U0', '--no-color', '--no-renames', base, '--', ...files]);
  const read = (file: string) =>
    existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : undefined;
  return changedMutate(mutate, tests, parseDiff(diff), read);
}

function main(argv: string[]): void {
  const { scope, full, changed } = parseMutationArgs(argv);
  if (!existsSync(join(ROOT, STRYKER))) {
    throw new LabError(`Stryker is not installed (${STRYKER})`, { hint: 'run npm ci' });
  }
  const args = ['--import', 'tsx', STRYKER, 'run', CONFIG];
  let mutated: string[] | undefined;
  if (changed) {
    const base = changeBase();
    mutated = changedEntries(scope, base);
    if (mutated.length === 0) {
      process.stdout.write(
        `mutation: scope ${scope}: the change ${base}..HEAD touches none of its code or tests; nothing to mutate\n`,
      );
      return;
    }
    process.stdout.write(
      `mutation: scope ${scope}, what ${base}..HEAD touched, every mutant of it, no state kept: ${mutated.join(', ')}\n`,
    );
    // No state (the result is the change's alone) and no score threshold: on a part this small
    // one listed equivalent mutant would sink the score; every survivor must be listed instead.
    const config = JSON.parse(readFileSync(join(ROOT, CONFIG), 'utf8')) as Record<string, unknown>;
    mkdirSync(join(ROOT, CHANGED_CONFIG, '..'), { recursive: true });
    writeFileSync(
      join(ROOT, CHANGED_CONFIG),
      JSON.stringify({
        ...config,
        incremental: false,
        thresholds: { high: 99, low: 95, break: null },
      }),
    );
    args[3] = CHANGED_CONFIG;
    args.push('--mutate', mutated.join(','));
    const tests = SCOPES[scope]?.tests;
    if (tests !== undefined) args.push('--testFiles', tests.join(','));
  } else {
    const cacheRoot = process.env.HL_MUTATION_CACHE ?? '/var/cache/hybrid-lab/mutation';
    const state = incrementalFile(ROOT, cacheRoot, scope);
    try {
      mkdirSync(join(state, '..'), { recursive: true });
    } catch (error) {
      throw new LabError(
        `cannot keep the incremental state in ${cacheRoot}: ${(error as Error).message}`,
        { hint: 'set HL_MUTATION_CACHE to a folder you can write' },
      );
    }
    const how = full ? 'every mutant' : 'incremental';
    process.stdout.write(`mutation: scope ${scope}, ${how}, state ${state}\n`);
    args.push('--incrementalFile', state);
    args.push(...scopeArgs(scope, (file) => readFileSync(join(ROOT, file), 'utf8')));
    if (full) args.push('--force');
  }
  const started = Date.now();
  const stryker = spawnSync(process.execPath, args, {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  const report = join(ROOT, REPORT);
  if (!existsSync(report) || statSync(report).mtimeMs < started) {
    throw new LabError(
      `Stryker wrote no report (exit ${stryker.status ?? stryker.signal}, ${seconds} s)`,
    );
  }
  const review = reviewReport(ROOT, scope, mutated);
  writeFileSync(join(ROOT, SUMMARY), summaryMarkdown(review, EQUIVALENTS));
  const lines = summaryLines(review, EQUIVALENTS);
  process.stdout.write(
    `${lines.join('\n')}\nmutation: scope ${scope}, ${seconds} s, report ${HTML}\n`,
  );
  if (stryker.status !== 0)
    process.stderr.write(
      `mutation: Stryker exited ${stryker.status ?? stryker.signal}: under thresholds.break or failed\n`,
    );
  if (stryker.status !== 0 || !reviewOk(review)) process.exitCode = 1;
}

if (isMain(import.meta.url)) await runMain('mutation', main);
