/**
 * The self-test (docs/faults.md): for each catalogue fault, break → run the suite → compare the failing
 * cells with the catalogue → heal → run the cells it turned red again, which must pass. The whole
 * suite runs before the first fault and after the last, and must be green both times: a heal that
 * broke another cell shows there at the latest (and as false alarms of the next fault before).
 */
import { join } from 'node:path';
import { FAULT_CATALOGUE, findFault } from '../../lab/faults/fault-catalogue.ts';
import type { FaultDefinition, Witness } from '../../lab/faults/fault-definition.ts';
import { breakFault, healFaults, planFault } from '../../lab/faults/fault-engine.ts';
import { FaultError } from '../../lab/faults/fault-error.ts';
import type { FaultSession } from '../../lab/faults/fault-session.ts';
import {
  notApplicable,
  selftestNodes,
  type SelftestNodeChoice,
} from '../../lab/faults/fault-targets.ts';
import { detect } from './detection.ts';
import { isRed } from '../../lab/contracts/results-file.ts';
import { LAB_READY_CELL } from '../model/report.ts';
import {
  isGreen,
  selftestTotals,
  type FaultRun,
  type SelftestReport,
  type SuiteSummary,
} from './selftest-model.ts';
import type { SuiteRun } from './suite-process.ts';
import { ROTATION_TURNS, sliceRuns, type SliceChoice } from './selftest-slice.ts';

export interface SelftestOptions {
  session: FaultSession;
  /**
   * Runs the suite once, results into `dir`; with `grep`, only the cells whose title it matches;
   * with `env`, these settings on top (the over-time rows, the disruption phase, SUITE=perf).
   */
  suite(dir: string, grep?: string, env?: Record<string, string>): Promise<SuiteRun>;
  /** Where each suite run's results go (`<dir>/<nn>-<label>/`). */
  runsDir: string;
  /** Only these faults (default: the whole catalogue). */
  faults?: readonly string[];
  /** Only the faults these suites witness (default: every kind); the others are named as left out. */
  witnesses?: readonly Witness[];
  /** Which nodes of each OS a node fault runs on (default `ends`: the first and the last). */
  nodes?: SelftestNodeChoice;
  /** Progress lines. */
  say?: (line: string) => void;
  /** A failing probe attempt slower than this means a fault made the suite hang (default 5 s). */
  attemptLimitMs?: number;
  /** Only CI's share of the runs (selftest-slice.ts): the changed faults and this turn's. */
  slice?: SliceChoice;
}

/** Runs the suite (or the cells `grep` selects) once the lab has settled from the previous run. */
async function suiteRun(
  options: SelftestOptions,
  dir: string,
  grep: string | undefined,
  env: Record<string, string>,
): Promise<SuiteRun> {
  await options.session.settle?.();
  return options.suite(dir, grep, env);
}

/**
 * The settings a fault's suite runs need: the over-time rows, and for a fault the disruption
 * phase shows, that phase on `nodes` (the fault's own; all planned ones for the baseline).
 */
export function suiteEnv(
  faults: readonly FaultDefinition[],
  nodes: readonly string[],
): Record<string, string> {
  const needs = new Set(faults.map((f) => f.witness));
  if (needs.has('disruptions') && nodes.length > 0) {
    const on = [...new Set(nodes)].join(',');
    return { OVER_TIME: 'on', DISRUPTIONS: 'on', DISRUPTION_NODES: on };
  }
  // Explicitly off otherwise: a DISRUPTIONS in the caller's environment must not change a run.
  const overTime = needs.has('over-time') || needs.has('disruptions') ? 'on' : 'off';
  return { OVER_TIME: overTime, DISRUPTIONS: 'off' };
}

/** The settings that run the suite whose cells witness `fault` on `nodes` (its own). */
export function witnessEnv(
  fault: FaultDefinition,
  nodes: readonly string[],
): Record<string, string> {
  const env = suiteEnv([fault], nodes);
  return fault.witness === 'perf' ? { ...env, SUITE: 'perf' } : env;
}

/** A mocha --grep that selects exactly these cell titles (a full title ends with its cell's). */
export function titlesGrep(titles: readonly string[]): string {
  const escaped = titles.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return ` (?:${escaped.join('|')})$`;
}

function summary(run: SuiteRun): SuiteSummary {
  const failing = run.cells.filter((c) => isRed(c.verdict));
  const attempts = failing.map((c) => Math.round(c.durationMs / Math.max(1, c.attempts)));
  return {
    resultsDir: run.resultsDir,
    durationMs: run.durationMs,
    exitCode: run.exitCode,
    failing: failing.map((c) => c.cell),
    ...(attempts.length === 0 ? {} : { slowestFailingAttemptMs: Math.max(...attempts) }),
    ...(run.broken === undefined ? {} : { broken: run.broken }),
  };
}

const message = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** A heal failed: the lab is in an unknown state and no further fault can be judged. */
class FatalHealError extends Error {
  constructor(readonly run: FaultRun) {
    super(run.reason);
  }
}

async function runFault(
  options: SelftestOptions,
  fault: FaultDefinition,
  node: string | undefined,
  index: number,
): Promise<FaultRun> {
  const { session, say = () => undefined } = options;
  const started = performance.now();
  const base = { fault: fault.id, summary: fault.summary, nodes: [] as string[] };
  const elapsed = () => Math.round(performance.now() - started);
  const why = notApplicable(fault, session.plan, { cluster: session.cluster !== undefined });
  if (why !== undefined) return { ...base, status: 'not-applicable', reason: why, durationMs: 0 };
  const planned = planFault(session, fault.id, node);
  const run: FaultRun = {
    ...base,
    nodes: planned.nodes,
    impact: planned.impact,
    status: 'error',
    durationMs: 0,
  };
  const label = `${String(index).padStart(2, '0')}-${fault.id}${node === undefined ? '' : `-${node}`}`;
  const env = witnessEnv(fault, planned.nodes);
  let failure: unknown;
  // What must pass again after the heal: the red cells' titles, or every cell when the run broke.
  let recheck: string[] | 'all' = 'all';
  say(`break ${fault.id}${planned.nodes.length > 0 ? ` on ${planned.nodes.join(',')}` : ''}`);
  try {
    await breakFault(session, fault.id, node);
    const broken = await suiteRun(options, join(options.runsDir, label), undefined, env);
    run.broken = summary(broken);
    if (broken.broken === undefined) {
      run.detection = detect(planned.impact, broken.cells);
      const red = broken.cells.filter((c) => isRed(c.verdict));
      // A red cell that is not a matrix cell (the lab-ready one): the whole suite again.
      recheck = red.some((c) => c.cell === LAB_READY_CELL.cell) ? 'all' : red.map((c) => c.title);
    } else
      failure = new FaultError(
        `the suite did not run through with ${fault.id} applied: ${broken.broken}`,
      );
  } catch (error) {
    failure = error;
  }
  try {
    await healFaults(session);
  } catch (error) {
    run.reason = `heal failed: ${message(error)}${failure === undefined ? '' : `; before that: ${message(failure)}`}`;
    run.durationMs = elapsed();
    throw new FatalHealError(run);
  }
  if (recheck.length > 0) {
    const grep = recheck === 'all' ? undefined : titlesGrep(recheck);
    say(`healed ${fault.id}; running ${grep === undefined ? 'the suite' : 'its red cells'} again`);
    run.healed = summary(
      await suiteRun(options, join(options.runsDir, `${label}-healed`), grep, env),
    );
  }
  run.durationMs = elapsed();
  if (failure !== undefined) return { ...run, status: 'error', reason: message(failure) };
  const counts = run.detection!.counts;
  const green = run.healed === undefined || isGreen(run.healed);
  const clean = counts.missed + counts.falseAlarms + counts.wrongOutcome === 0;
  const limit = options.attemptLimitMs ?? 5000;
  const slowest = run.broken?.slowestFailingAttemptMs ?? 0;
  if (slowest > limit) {
    const reason = `a failing probe attempt took ${slowest} ms, over the ${limit} ms a probe may take: the fault made the suite hang`;
    return { ...run, status: 'problems', reason };
  }
  if (counts.mustFail === 0 && clean && green)
    return { ...run, status: 'not-exercised', reason: 'no cell of this suite run must fail' };
  return { ...run, status: clean && green ? 'exact' : 'problems' };
}

/** Runs the whole self-test; the lab must be up, green and carry no applied fault. */
export async function runSelftest(options: SelftestOptions): Promise<SelftestReport> {
  const { session, say = () => undefined } = options;
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const applied = session.records.read();
  if (applied.length > 0) {
    throw new FaultError(
      `lab ${session.plan.name} has faults applied: ${applied.map((a) => a.fault).join(', ')}`,
      {
        hint: '`lab heal` first; the self-test starts from a green lab',
      },
    );
  }
  const chosen = (options.faults ?? FAULT_CATALOGUE.map((f) => f.id)).map((id) => findFault(id));
  const witness = (f: FaultDefinition) => f.witness ?? 'matrix';
  const witnessed = (f: FaultDefinition) => options.witnesses?.includes(witness(f)) ?? true;
  const faults = chosen.filter(witnessed);
  const leftOut = chosen.filter((f) => !witnessed(f)).map((f) => `${f.id} (${witness(f)})`);
  if (leftOut.length > 0)
    say(`left out, witnessed by other suites than --witness names: ${leftOut.join(', ')}`);
  const plan = session.plan;
  const cluster = { cluster: session.cluster !== undefined };
  const all = faults.flatMap((fault) =>
    notApplicable(fault, plan, cluster) === undefined
      ? selftestNodes(fault, plan, options.nodes ?? 'ends', FAULT_CATALOGUE.indexOf(fault)).map(
          (node) => ({ fault, node }),
        )
      : [{ fault, node: undefined }],
  );
  const slice = options.slice === undefined ? undefined : sliceRuns(all, options.slice);
  const planned = slice?.runs ?? all;
  if (slice !== undefined)
    say(
      `slice: turn ${slice.turn + 1} of ${ROTATION_TURNS}, ${planned.length} of ${all.length} runs; ` +
        `changed since the merge base: ${slice.changed.join(', ') || 'none'}; the other runs are other turns' and the nightly's`,
    );
  // The baseline and the final run carry the over-time rows and phases the faults' runs will.
  const applicable = planned.filter((p) => notApplicable(p.fault, plan, cluster) === undefined);
  const wholeEnv = suiteEnv(
    applicable.map((p) => p.fault),
    applicable.flatMap((p) =>
      p.fault.witness === 'disruptions' && p.node !== undefined ? [p.node] : [],
    ),
  );
  say('baseline: the suite on the healthy lab');
  const baselineRun = await suiteRun(
    options,
    join(options.runsDir, '00-baseline'),
    undefined,
    wholeEnv,
  );
  const first = summary(baselineRun);
  const baseline = { ...first, green: isGreen(first) };
  const runs: FaultRun[] = [];
  let stopped: string | undefined;
  for (const [i, { fault, node }] of planned.entries()) {
    const base = {
      fault: fault.id,
      summary: fault.summary,
      nodes: node === undefined ? [] : [node],
      durationMs: 0,
    };
    if (!baseline.green) {
      runs.push({ ...base, status: 'not-run', reason: 'the lab was not green before any fault' });
      continue;
    }
    if (stopped !== undefined) {
      runs.push({ ...base, status: 'not-run', reason: stopped });
      continue;
    }
    try {
      const run = await runFault(options, fault, node, i + 1);
      const on = node === undefined ? '' : ` on ${node}`;
      say(`${fault.id}${on}: ${run.status}${run.reason === undefined ? '' : ` (${run.reason})`}`);
      runs.push(run);
    } catch (error) {
      if (!(error instanceof FatalHealError)) throw error;
      runs.push({ ...error.run, status: 'error' });
      stopped = `the heal of ${fault.id} failed; the lab is in an unknown state`;
    }
  }
  let final: (SuiteSummary & { green: boolean }) | undefined;
  if (baseline.green && stopped === undefined && runs.some((r) => r.broken !== undefined)) {
    say('the suite on the lab after every heal');
    const last = summary(
      await suiteRun(
        options,
        join(options.runsDir, `${String(planned.length + 1).padStart(2, '0')}-final`),
        undefined,
        wholeEnv,
      ),
    );
    final = { ...last, green: isGreen(last) };
  }
  const totals = selftestTotals(runs);
  const run = baselineRun.run;
  return {
    lab: session.plan.name,
    provider: session.plan.provider,
    emulated: session.plan.emulated,
    cni: run?.cni ?? `${session.plan.cni.plugin}/${session.plan.cni.backend}`,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    baseline,
    faults: runs,
    ...(slice === undefined
      ? {}
      : {
          slice: {
            turn: slice.turn + 1,
            turns: ROTATION_TURNS,
            changed: slice.changed,
            leftOut: slice.leftOut.map(
              (r) => `${r.fault.id}${r.node === undefined ? '' : ` on ${r.node}`}`,
            ),
          },
        }),
    ...(final === undefined ? {} : { final }),
    totals,
    ok:
      baseline.green &&
      totals.problems + totals.errors + totals.notRun === 0 &&
      (final === undefined || final.green),
  };
}
