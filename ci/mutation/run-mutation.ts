/**
 * `npm run mutation`: Stryker over the judging core (stryker.config.json, docs/mutation-testing.md).
 *
 *   npm run mutation                   re-tests only the mutants whose code or tests changed since
 *                                      the last run with this scope, config and lockfile
 *   npm run mutation -- --full         re-tests every mutant (the nightly job)
 *   npm run mutation -- --scope ci     only the files of the `ci` scope (mutation-args.ts; CI)
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
import {
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

/** Where the incremental state of a scope of `root`'s config and lockfile lives under `cacheRoot`. */
export function incrementalFile(root: string, cacheRoot: string, scope: ScopeName): string {
  const hash = createHash('sha256').update(JSON.stringify({ scope, files: SCOPES[scope] }));
  for (const file of [CONFIG, 'package-lock.json']) hash.update(readFileSync(join(root, file)));
  return join(cacheRoot, hash.digest('hex').slice(0, 16), 'stryker-incremental.json');
}

/**
 * What the run of `scope` found: per-folder scores, and each survivor checked against the
 * equivalents list. An entry is stale only in a file the scope mutates whole.
 */
export function reviewReport(root: string, scope: ScopeName): MutationReview {
  const report = readReport(join(root, REPORT));
  const undetected = undetectedMutants(report);
  const s: Scope | null = SCOPES[scope];
  const whole =
    s === null ? Object.keys(report.files) : s.mutate.filter((m) => typeof m === 'string');
  const { unlisted, stale } = compareEquivalents(
    undetected,
    readEquivalents(join(root, EQUIVALENTS)),
    new Set(whole),
  );
  const config = JSON.parse(readFileSync(join(root, CONFIG), 'utf8')) as {
    thresholds?: { break?: number | null };
  };
  const breakAt = config.thresholds?.break ?? null;
  return { scores: scoresByFolder(report), undetected, unlisted, stale, breakAt };
}

function main(argv: string[]): void {
  const { scope, full } = parseMutationArgs(argv);
  if (!existsSync(join(ROOT, STRYKER))) {
    throw new LabError(`Stryker is not installed (${STRYKER})`, { hint: 'run npm ci' });
  }
  const cacheRoot = process.env.HL_MUTATION_CACHE ?? '/var/cache/hybrid-lab/mutation';
  const state = incrementalFile(ROOT, cacheRoot, scope);
  try {
    mkdirSync(join(state, '..'), { recursive: true });
  } catch (error) {
    throw new LabError(
      `cannot keep the incremental state in ${cacheRoot}: ${(error as Error).message}`,
      {
        hint: 'set HL_MUTATION_CACHE to a folder you can write',
      },
    );
  }
  const how = full ? 'every mutant' : 'incremental';
  process.stdout.write(`mutation: scope ${scope}, ${how}, state ${state}\n`);
  const started = Date.now();
  const args = ['--import', 'tsx', STRYKER, 'run', CONFIG, '--incrementalFile', state];
  args.push(...scopeArgs(scope, (file) => readFileSync(join(ROOT, file), 'utf8')));
  if (full) args.push('--force');
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
  const review = reviewReport(ROOT, scope);
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
