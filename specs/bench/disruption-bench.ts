/**
 * Time to green per disruption action and OS, from a suite run with the disruption phase on:
 * the figures `npm run bench` records (`disruption` in bench.json).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { labDown, labUp } from '../../lab/lifecycle/lab-lifecycle.ts';
import { quietProgress } from '../../lab/log/progress.ts';
import { validateSpec } from '../../lab/spec/load-spec.ts';
import { expandShorthand } from '../../lab/spec/shorthand.ts';
import type { LabStore } from '../../lab/state/lab-store.ts';
import { join } from 'node:path';
import { parseDisruptionCellId } from '../../lab/contracts/disruptions.ts';
import { ResultsFileSchema, type ResultsFile } from '../../lab/contracts/results-file.ts';
import { SUITE_COMMAND } from '../selftest/suite-process.ts';
import { median } from './lifecycle-bench.ts';

export interface TimeToGreen {
  /** Disruption cells of this action on nodes of this OS that ran (not skipped). */
  cells: number;
  /** Of them, green within their bound. */
  green: number;
  p50Ms?: number;
  maxMs?: number;
  boundMs: number;
}

/**
 * Per action, per OS of the disrupted node (`cluster` for the DNS pods moved): how many cells
 * came back and how fast. `osOf` names a node's OS.
 */
export function timeToGreen(
  results: ResultsFile,
  osOf: (node: string) => string | undefined,
): Record<string, Record<string, TimeToGreen>> {
  const figures: Record<string, Record<string, { row: TimeToGreen; times: number[] }>> = {};
  for (const cell of results.cells) {
    const disruption = parseDisruptionCellId(cell.cell);
    const recovery = cell.recovery;
    if (disruption === undefined || recovery === undefined || cell.verdict === 'skipped') continue;
    const os = osOf(disruption.subject) ?? disruption.subject;
    const byOs = (figures[disruption.action] ??= {});
    const entry = (byOs[os] ??= {
      row: { cells: 0, green: 0, boundMs: recovery.boundMs },
      times: [],
    });
    entry.row.cells++;
    if (cell.verdict === 'pass' && recovery.timeToGreenMs !== undefined) {
      entry.row.green++;
      entry.times.push(recovery.timeToGreenMs);
    }
  }
  return Object.fromEntries(
    Object.entries(figures).map(([action, byOs]) => [
      action,
      Object.fromEntries(
        Object.entries(byOs).map(([os, { row, times }]) => [
          os,
          times.length === 0 ? row : { ...row, p50Ms: median(times), maxMs: Math.max(...times) },
        ]),
      ),
    ]),
  );
}

export interface DisruptionRun {
  lab: string;
  emulated: boolean;
  /** The suite's settings of the run (DISRUPTION_NODES, …). */
  settings: Record<string, string>;
  wallMs: number;
  exitCode: number | null;
  cells: number;
  passed: number;
  timeToGreen: Record<string, Record<string, TimeToGreen>>;
}

/** Runs the suite with the disruption phase on `lab` (`--grep disruption`) and reads its figures. */
export function benchDisruptions(
  env: NodeJS.ProcessEnv,
  lab: string,
  resultsDir: string,
  settings: Record<string, string>,
  osOf: (node: string) => string | undefined,
): DisruptionRun {
  mkdirSync(resultsDir, { recursive: true });
  const [command, ...args] = SUITE_COMMAND;
  const started = performance.now();
  const run = spawnSync(command, [...args, '--grep', 'disruption'], {
    env: {
      ...env,
      LAB: lab,
      RESULTS_DIR: resultsDir,
      DISRUPTIONS: 'on',
      EVIDENCE: 'off',
      ...settings,
    },
    encoding: 'utf8',
  });
  const wallMs = Math.round(performance.now() - started);
  const results = ResultsFileSchema.parse(
    JSON.parse(readFileSync(join(resultsDir, 'results.json'), 'utf8')),
  );
  return {
    lab,
    emulated: results.run.emulated,
    settings,
    wallMs,
    exitCode: run.status,
    cells: results.cells.length,
    passed: results.cells.filter((c) => c.verdict === 'pass').length,
    timeToGreen: timeToGreen(results, osOf),
  };
}

/**
 * The figures of the emulated default topology (the ends of each OS) and, where the artifact
 * cache is built, of the real lab (a middle Linux worker, lin1): each lab brought up under its
 * own name, disrupted, and brought down.
 */
export async function disruptionFigures(
  store: LabStore,
  env: NodeJS.ProcessEnv,
  work: string,
  say: (line: string) => void,
): Promise<{ emulated: DisruptionRun; real: DisruptionRun | { skipped: string } }> {
  const emulatedSpec = { ...expandShorthand('k8s-netns-1-2-2'), name: 'benchdisr' };
  const emulated = await onLab(store, emulatedSpec, 'benchdisr', (osOf) => {
    say('disruption phase on the emulated default topology (the ends of each OS)');
    return benchDisruptions(
      env,
      'benchdisr',
      join(work, 'disruption-emulated'),
      { DISRUPTION_NODES: 'ends' },
      osOf,
    );
  });
  const preset = parse(readFileSync('lab/presets/netns-kubeadm.yaml', 'utf8')) as Record<
    string,
    unknown
  > & {
    artifacts: { dir: string };
  };
  if (!existsSync(join(preset.artifacts.dir, 'recipe.json')))
    return { emulated, real: { skipped: `no artifact cache at ${preset.artifacts.dir}` } };
  const real = await onLab(store, { ...preset, name: 'benchdisrk' }, 'benchdisrk', (osOf) => {
    say('disruption phase on the real lab (netns-kubeadm), every action on lin1');
    return benchDisruptions(
      env,
      'benchdisrk',
      join(work, 'disruption-real'),
      { DISRUPTION_NODES: 'lin1' },
      osOf,
    );
  });
  return { emulated, real };
}

/** Brings a lab of `data` up as `name`, runs `measure` on it, and brings it down on every path. */
async function onLab<T>(
  store: LabStore,
  data: Record<string, unknown>,
  name: string,
  measure: (osOf: (node: string) => string | undefined) => T,
): Promise<T> {
  const spec = validateSpec(data, name);
  const { lab } = await labUp(
    { spec, source: name, text: JSON.stringify(data) },
    { store, progress: quietProgress },
  );
  try {
    return measure((node) => lab.plan.nodes.find((n) => n.name === node)?.os);
  } finally {
    await labDown(name, { store, progress: quietProgress });
  }
}
