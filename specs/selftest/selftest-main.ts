/**
 * `npm run selftest [-- --lab NAME] [--fault ID ...] [--nodes ends|all|alternate] [--witness KIND,...]`: the tester
 * tests itself on a lab that is up (docs/faults.md). Writes selftest.md and selftest.json into
 * $RESULTS_DIR (default test-results/).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LabError } from '../../lab/errors.ts';
import { ExecaRunner } from '../../lab/exec/execa-runner.ts';
import { openFaultSession } from '../../lab/faults/open-fault-session.ts';
import { WITNESSES, type Witness } from '../../lab/faults/fault-definition.ts';
import { SELFTEST_NODE_CHOICES, type SelftestNodeChoice } from '../../lab/faults/fault-targets.ts';
import { fileLogger } from '../../lab/log/logger.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { DEFAULT_PROBE_TIMEOUT_MS } from '../engine/suite-settings.ts';
import { resultsDir } from '../report/write-report.ts';
import { runSelftest } from './selftest-runner.ts';
import { writeSelftest } from './selftest-report.ts';
import { SELFTEST_ARGS } from './selftest-args.ts';
import { runSuite } from './suite-process.ts';
import { changedFaults, type SliceChoice } from './selftest-slice.ts';
import { defaultPlan, faultFingerprints, FINGERPRINTS_FILE } from './fault-fingerprints.ts';

/** A suite run that takes longer is killed and counts as broken: a hang is a failure. */
const SUITE_TIMEOUT_MS = 15 * 60_000;

const say = (line: string) =>
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} selftest: ${line}\n`);

function nodeChoice(value: string | undefined): SelftestNodeChoice {
  if (value === undefined) return 'ends';
  if ((SELFTEST_NODE_CHOICES as readonly string[]).includes(value))
    return value as SelftestNodeChoice;
  throw new LabError(`--nodes must be one of ${SELFTEST_NODE_CHOICES.join(', ')}, got '${value}'`);
}

function witnesses(values: readonly string[] | undefined): Witness[] | undefined {
  const named = values?.flatMap((w) => w.split(',')).filter((w) => w !== '');
  for (const w of named ?? [])
    if (!(WITNESSES as readonly string[]).includes(w))
      throw new LabError(`--witness must name some of ${WITNESSES.join(', ')}, got '${w}'`);
  return named as Witness[] | undefined;
}

const USAGE =
  'usage: npm run selftest -- [--lab NAME] [--fault ID,...] [--nodes ends|all|alternate] [--witness KIND,...] [--slice]';

/**
 * CI's share from git: the change is HEAD against CI_BASE (default HEAD's first parent); its
 * faults are those whose fingerprint differs from the one the base's fingerprint file holds.
 */
async function sliceFromGit(runner: ExecaRunner): Promise<SliceChoice> {
  const git = (args: string[]) => runner.run('git', args, { check: false });
  const count = await git(['rev-list', '--first-parent', '--count', 'HEAD']);
  const commitNumber = Number(count.stdout.trim());
  if (count.exitCode !== 0 || !Number.isInteger(commitNumber))
    throw new LabError(`--slice: git rev-list --count HEAD failed: ${count.stderr.trim()}`, {
      hint: "--slice needs the checkout's history (not a shallow clone of depth 1)",
    });
  const base = process.env.CI_BASE ?? 'HEAD^';
  const shown = await git(['show', `${base}:${FINGERPRINTS_FILE}`]);
  const head = faultFingerprints(defaultPlan());
  if (shown.exitCode !== 0) {
    say(`slice: ${base} has no ${FINGERPRINTS_FILE}; every fault counts as changed`);
    return { changed: new Set(Object.keys(head)), commitNumber };
  }
  const changed = changedFaults(JSON.parse(shown.stdout) as Record<string, string>, head);
  say(`slice: change ${base}..HEAD, commit number ${commitNumber}`);
  return { changed, commitNumber };
}

/** The command line, or a LabError with the usage (node's own error names the option). */
function commandLine() {
  try {
    return parseArgs(SELFTEST_ARGS).values;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw error;
    throw new LabError((error as Error).message, { hint: USAGE });
  }
}

async function main(): Promise<number> {
  const values = commandLine();
  const nodes = nodeChoice(values.nodes);
  const witnessed = witnesses(values.witness);
  const labHome = resolve(process.env.LAB_HOME ?? '.lab');
  const store = new LabStore(labHome);
  const lab = store.resolveName(values.lab);
  const dir = resultsDir();
  const runsDir = join(dir, 'selftest');
  const log = fileLogger(join(runsDir, 'selftest.log'), { lab, component: 'selftest' });
  const runner = new ExecaRunner(log.child({ component: 'runner' }));
  const session = await openFaultSession(store, lab);
  const faults = values.fault?.flatMap((f) => f.split(',')).filter((f) => f !== '');
  const report = await runSelftest({
    session,
    runsDir,
    ...(faults === undefined ? {} : { faults }),
    ...(witnessed === undefined ? {} : { witnesses: witnessed }),
    nodes,
    say,
    ...(values.slice === true ? { slice: await sliceFromGit(runner) } : {}),
    // One probe attempt: the connect timeout plus what a probe needs to start and answer.
    attemptLimitMs: Number(process.env.PROBE_TIMEOUT_MS ?? DEFAULT_PROBE_TIMEOUT_MS) + 2000,
    suite: (resultsDir, grep, env) =>
      runSuite(runner, resultsDir, {
        lab,
        labHome,
        timeoutMs: SUITE_TIMEOUT_MS,
        ...(grep === undefined ? {} : { grep }),
        ...(env === undefined ? {} : { env }),
      }),
  });
  const files = writeSelftest(report, dir);
  const t = report.totals;
  process.stdout.write(
    `self-test of lab ${lab}${report.emulated ? ' (EMULATED)' : ''}: ${report.ok ? 'PASS' : 'FAIL'}; ` +
      `${t.exact}/${t.exact + t.problems} faults exact, ${t.missedCells} missed, ${t.falseAlarms} false alarms, ` +
      `${t.wrongOutcomes} wrong outcomes, red cells green after ${t.healedGreen}/${t.judged} heals, ` +
      (report.final === undefined
        ? ''
        : `whole suite ${report.final.green ? 'green' : 'NOT GREEN'} at the end, `) +
      `${(report.durationMs / 1000).toFixed(1)} s\n  ${files.markdown}\n  ${files.json}\n`,
  );
  return report.ok ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof LabError)) throw error;
  process.stderr.write(`error: ${error.message}\n`);
  if (error.hint !== undefined) process.stderr.write(`hint: ${error.hint}\n`);
  process.exitCode = 1;
}
