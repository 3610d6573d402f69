/**
 * `npm run bench:mesh`: the matrix on a 20-node emulated lab with a full mesh and with
 * MESH=ring — cells and wall time of each, and the cells of both at 5, 12 and 20 nodes (expanded,
 * not run). Figures go to test-results/bench-mesh.json. Needs root (netns); its lab has a name of
 * its own under its own LAB_HOME.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { labDown, labUp } from '../../lab/lifecycle/lab-lifecycle.ts';
import { quietProgress } from '../../lab/log/progress.ts';
import { validateSpec } from '../../lab/spec/load-spec.ts';
import { expandShorthand } from '../../lab/spec/shorthand.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { SUITE_COMMAND } from '../selftest/suite-process.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { FULL_MESH } from '../matrix/mesh.ts';
import { MATRIX } from '../matrix/rows.ts';
import type { SuiteNode } from '../model/lab-driver.ts';

const home = mkdtempSync(join(tmpdir(), 'hl-bench-mesh-'));
const env = { ...process.env, LAB_HOME: join(home, '.lab'), CI: 'true' };
const store = new LabStore(env.LAB_HOME);
const say = (line: string) => process.stderr.write(`bench:mesh: ${line}\n`);
const ring = { mode: 'ring' as const, peers: 1, rotation: 0 };

/** The matrix's cells on a lab of 1 control plane, `linux` Linux and `windows` Windows workers. */
function cellsOn(linux: number, windows: number) {
  const nodes: SuiteNode[] = [
    { name: 'cp1', os: 'linux', role: 'control-plane', ip: '' },
    ...Array.from({ length: linux }, (_, i): SuiteNode => ({
      name: `lin${i + 1}`,
      os: 'linux',
      role: 'worker',
      ip: '',
    })),
    ...Array.from({ length: windows }, (_, i): SuiteNode => ({
      name: `win${i + 1}`,
      os: 'windows',
      role: 'worker',
      ip: '',
    })),
  ];
  return {
    nodes: nodes.length,
    full: expandCells(MATRIX, nodes, FULL_MESH).length,
    ring: expandCells(MATRIX, nodes, ring).length,
  };
}

/** One suite run on the bench lab with `mesh`; every cell must pass (a red matrix is no timing). */
function suiteRun(mesh: 'full' | 'ring') {
  const results = join(home, `results-${mesh}`);
  mkdirSync(results, { recursive: true });
  const started = performance.now();
  const [command, ...args] = SUITE_COMMAND;
  const run = spawnSync(command, args, {
    env: {
      ...env,
      LAB: 'benchmesh',
      MESH: mesh,
      MESH_ROTATION: '0',
      RESULTS_DIR: results,
      EVIDENCE: 'off',
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = Math.round(performance.now() - started);
  const report = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8')) as {
    cells: { verdict: string }[];
  };
  const passed = report.cells.filter((c) => c.verdict === 'pass').length;
  const skipped = report.cells.filter((c) => c.verdict === 'skipped').length;
  if (run.status !== 0)
    throw new Error(`the matrix with MESH=${mesh} was not green: ${run.stdout.slice(-2000)}`);
  return {
    mesh,
    cells: report.cells.length,
    passed,
    skipped,
    wallMs,
    loadAverage: Number(loadavg()[0]!.toFixed(1)),
  };
}

say('a 20-node emulated lab: 1 control plane, 10 Linux and 9 Windows workers');
const spec = { ...expandShorthand('k8s-netns-1-10-9'), name: 'benchmesh' };
const upStarted = performance.now();
await labUp(
  { spec: validateSpec(spec, 'bench'), source: 'bench', text: '' },
  { store, progress: quietProgress },
);
const labUpMs = Math.round(performance.now() - upStarted);
let runs;
try {
  say('the matrix with a full mesh');
  const full = suiteRun('full');
  say(`full: ${full.cells} cells in ${full.wallMs} ms; now MESH=ring`);
  const ringRun = suiteRun('ring');
  runs = {
    full,
    ring: ringRun,
    fullOverRing: {
      cells: Number((full.cells / ringRun.cells).toFixed(2)),
      wall: Number((full.wallMs / ringRun.wallMs).toFixed(2)),
    },
  };
} finally {
  await labDown('benchmesh', { store, progress: quietProgress });
}
const figures = {
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, node: process.version },
  emulated: true,
  labUpMs,
  twentyNodes: runs,
  cellsByNodes: [cellsOn(2, 2), cellsOn(6, 5), cellsOn(10, 9)],
};
mkdirSync('test-results', { recursive: true });
const out = process.env.BENCH_MESH_FILE ?? 'test-results/bench-mesh.json';
writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
say(
  `full ${runs.full.cells} cells in ${runs.full.wallMs} ms, ring ${runs.ring.cells} cells in ${runs.ring.wallMs} ms; written to ${out}`,
);
