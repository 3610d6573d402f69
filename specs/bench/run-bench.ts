/**
 * `npm run bench`: lab up/down times (3, 5 and 12 nodes), the CLI as users type it, the matrix
 * parallel vs serial, and a probe vs a bare TCP connect. Figures go to test-results/bench.json.
 * Needs root (netns); runs its labs under their own names and LAB_HOME.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { benchLifecycle, median, timeCommand } from './lifecycle-bench.ts';
import { breakFault, healFaults } from '../../lab/faults/fault-engine.ts';
import { openFaultSession } from '../../lab/faults/open-fault-session.ts';
import { labDown, labUp } from '../../lab/lifecycle/lab-lifecycle.ts';
import { quietProgress } from '../../lab/log/progress.ts';
import { validateSpec } from '../../lab/spec/load-spec.ts';
import { SUITE_COMMAND } from '../selftest/suite-process.ts';
import { expandShorthand } from '../../lab/spec/shorthand.ts';
import { LabStore } from '../../lab/state/lab-store.ts';

const REPS = Number(process.env.BENCH_REPS ?? 3);
/**
 * Faults under which the matrix waits: dns-stopped (the server's port is closed, so lookups fail
 * at once on an ICMP port unreachable until the kernel's ICMP rate limit holds those back, and then
 * wait), and windows-endpoints-blackholed (packets to the Windows pods are dropped: every probe to
 * them waits out its deadline).
 */
const WAITING_FAULTS = ['dns-stopped', 'windows-endpoints-blackholed'] as const;
const home = mkdtempSync(join(tmpdir(), 'hl-bench-'));
const env = { ...process.env, LAB_HOME: join(home, '.lab'), CI: 'true' };
const store = new LabStore(env.LAB_HOME);
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

say(`lab up/down, ${REPS} repetitions each`);
const small = await benchLifecycle(store, 'bench3', 'k8s-netns-1-1-1', REPS);
const standard = await benchLifecycle(store, 'bench5', 'k8s-netns-1-2-2', REPS);
const large = await benchLifecycle(store, 'bench12', 'k8s-netns-1-6-5', REPS);

say('CLI as typed: npm run lab:up / lab:down on the default topology');
// The default preset itself, renamed so a user's own `hybrid` lab on this machine is left alone.
const specFile = join(home, 'default.yaml');
const preset = parse(readFileSync('lab/presets/hybrid.yaml', 'utf8')) as Record<string, unknown>;
writeFileSync(specFile, stringify({ ...preset, name: 'benchcli' }));
const cliUp = timeCommand(['npm', 'run', '--silent', 'lab:up', '--', '--spec', specFile], env);
const cliDown = timeCommand(['npm', 'run', '--silent', 'lab:down', '--', '--lab', 'benchcli'], env);
if (cliUp.exitCode !== 0 || cliDown.exitCode !== 0)
  throw new Error(`lab:up / lab:down exited ${cliUp.exitCode} / ${cliDown.exitCode}: no figure`);

say('matrix parallel vs serial on the default topology');
const suiteSpec = { ...expandShorthand('k8s-netns-1-2-2'), name: 'benchsuite' };
const { lab } = await labUp(
  { spec: validateSpec(suiteSpec, 'bench'), source: 'bench', text: '' },
  { store, progress: quietProgress },
);
/**
 * One suite run on the bench lab; `green` demands no red cell (a red matrix is no timing of it:
 * a documented limitation, an expected failure, is as it should be); `grep` selects part of it.
 */
function suiteRun(
  concurrency: number,
  label: string,
  green = true,
  evidence = 'off',
  grep: string[] = [],
) {
  const results = join(home, `results-${label}-c${concurrency}`);
  mkdirSync(results, { recursive: true });
  const started = performance.now();
  const [command, ...args] = SUITE_COMMAND;
  const run = spawnSync(command, [...args, ...grep], {
    env: {
      ...env,
      LAB: 'benchsuite',
      CONCURRENCY: String(concurrency),
      RESULTS_DIR: results,
      EVIDENCE: evidence,
    },
    encoding: 'utf8',
  });
  const wallMs = Math.round(performance.now() - started);
  const report = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8')) as {
    cells: { verdict: string; durationMs: number }[];
  };
  const passed = report.cells.filter((c) => c.verdict === 'pass').length;
  const asExpected = report.cells.filter((c) => c.verdict === 'expected-failure').length;
  if (green && (run.status !== 0 || passed + asExpected !== report.cells.length))
    throw new Error(
      `the matrix at concurrency ${concurrency} was not green: ${run.stdout.slice(-2000)}`,
    );
  const probeMs = report.cells.reduce((sum, c) => sum + c.durationMs, 0);
  return {
    concurrency,
    wallMs,
    cells: report.cells.length,
    passed,
    expectedFailures: asExpected,
    exitCode: run.status,
    sumOfCellMs: probeMs,
    ...evidenceFigures(run.stdout),
  };
}

/** What the suite said of its path evidence: `path evidence of N cell(s) in M ms`. */
function evidenceFigures(stdout: string) {
  const said = /path evidence of (\d+) cell\(s\) in (\d+) ms/.exec(stdout);
  return said === null ? {} : { evidence: { cells: Number(said[1]), ms: Number(said[2]) } };
}
// Green runs as users run them (EVIDENCE=failed): with nothing failing, evidence costs nothing.
const parallel = suiteRun(8, 'green', true, 'failed');
const serial = suiteRun(1, 'green', true, 'failed');
// Every cell but churn's (which waits for every other cell, then changes its Services step by step).
const parallelNoChurn = suiteRun(8, 'green-no-churn', true, 'failed', [
  '--grep',
  'churn',
  '--invert',
]);

// A green emulated lab's probes wait for nothing: they are CPU-bound and two cores bound the
// speed-up. Where probes wait, as on a broken network or a real cluster's exec round trips,
// concurrency shows: the same matrix under faults that make probes time out.
const faults = await openFaultSession(store, 'benchsuite');
const waiting = [];
for (const fault of WAITING_FAULTS) {
  say(`matrix parallel vs serial with ${fault} (probes wait for timeouts)`);
  await breakFault(faults, fault);
  const waitingParallel = suiteRun(8, `waiting-${fault}`, false);
  const waitingSerial = suiteRun(1, `waiting-${fault}`, false);
  // The same red run again with path evidence of (at most 10) failing cells.
  const withEvidence = suiteRun(8, `evidence-${fault}`, false, 'failed');
  await healFaults(faults);
  waiting.push({
    fault,
    parallel: waitingParallel,
    serial: waitingSerial,
    serialOverParallel: Number((waitingSerial.wallMs / waitingParallel.wallMs).toFixed(2)),
    withEvidence,
  });
}

say('probe vs bare TCP connect inside one pod namespace');
const { cluster } = lab;
if (cluster === undefined) throw new Error('the bench lab has no emulated cluster');
const target = await cluster.createPod({
  name: 'bench-b',
  namespace: 'bench',
  node: 'win1',
  labels: { app: 'bench' },
});
await cluster.createPod({
  name: 'bench-a',
  namespace: 'bench',
  node: 'lin1',
  labels: { app: 'bench' },
});
/** Median of 21 runs of `once` (odd: the middle one, unrounded), in ms with one decimal. */
const time21 = async (once: () => Promise<void>) => {
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return Number(median(times).toFixed(1));
};
const probeOnce = async () => {
  const reply = await cluster.probe('bench-a', 'bench', ['tcp', target, '8080'], {
    timeoutMs: 10_000,
  });
  if (reply.result !== 'ok') throw new Error(`bench probe failed: ${JSON.stringify(reply)}`);
};
const execOnce = (argv: string[]) => async () => {
  const result = await cluster.exec('bench-a', 'bench', argv, { timeoutMs: 10_000 });
  if (result.exitCode !== 0) throw new Error(`bench exec failed: ${result.stderr}`);
};
// The first probe of a pod starts its prober; the suite's later probes find it running.
const firstStarted = performance.now();
await probeOnce();
const firstProbeMs = Math.round(performance.now() - firstStarted);
const probeMs = await time21(probeOnce);
const processProbeMs = await time21(
  execOnce(['node', resolve('lab/cluster/workload/probe.mjs'), 'tcp', target, '8080']),
);
const bareMs = await time21(execOnce(['bash', '-c', `exec 3<>/dev/tcp/${target}/8080`]));
await labDown('benchsuite', { store, progress: quietProgress });

/**
 * The real lab: Kubernetes 1.20.2 on namespace nodes (netns-kubeadm preset, renamed), up and
 * down as typed, when the artifact cache is built; its suite run too. Not emulated.
 */
function realLabFigures() {
  const preset = parse(readFileSync('lab/presets/netns-kubeadm.yaml', 'utf8')) as {
    artifacts: { dir: string };
  };
  if (!existsSync(join(preset.artifacts.dir, 'recipe.json'))) {
    say(`no artifact cache at ${preset.artifacts.dir}: the real lab is not timed`);
    return { skipped: `no artifact cache at ${preset.artifacts.dir}` };
  }
  const file = join(home, 'kubeadm.yaml');
  writeFileSync(file, stringify({ ...preset, name: 'benchkubeadm' }));
  const ups: number[] = [];
  const downs: number[] = [];
  let suite: ReturnType<typeof timeCommand> | undefined;
  for (let i = 0; i < Math.min(REPS, 2); i++) {
    const up = timeCommand(['npm', 'run', '--silent', 'lab:up', '--', '--spec', file], env);
    if (up.exitCode !== 0) throw new Error(`real lab up exited ${up.exitCode}: no figure`);
    ups.push(up.ms);
    if (i === 0) {
      suite = timeCommand(['npm', 'test'], {
        ...env,
        LAB: 'benchkubeadm',
        RESULTS_DIR: join(home, 'results-kubeadm'),
      });
      if (suite.exitCode !== 0)
        throw new Error(`the suite on the real lab exited ${suite.exitCode}`);
    }
    const down = timeCommand(
      ['npm', 'run', '--silent', 'lab:down', '--', '--lab', 'benchkubeadm'],
      env,
    );
    if (down.exitCode !== 0) throw new Error(`real lab down exited ${down.exitCode}: no figure`);
    downs.push(down.ms);
  }
  return {
    what: 'netns-kubeadm: Kubernetes 1.20.2 from Debian source, cp1 + lin1 + lin2 on namespace nodes',
    emulated: false,
    labUpMs: ups,
    labDownMs: downs,
    medianUpMs: median(ups),
    medianDownMs: median(downs),
    suiteMs: suite?.ms,
  };
}
say('the real lab (netns-kubeadm): up, the suite, down');
const realLab = realLabFigures();

const figures = {
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, node: process.version },
  emulated: true,
  lab: {
    lifecycle: [small, standard, large],
    up12vs3: Number((large.medianUpMs / small.medianUpMs).toFixed(2)),
    cli: {
      labUpMs: cliUp.ms,
      labDownMs: cliDown.ms,
      exitCodes: [cliUp.exitCode, cliDown.exitCode],
    },
  },
  realLab,
  suite: {
    parallel,
    parallelNoChurn,
    serial,
    serialOverParallel: Number((serial.wallMs / parallel.wallMs).toFixed(2)),
    waiting,
    probe: {
      what: 'tcp connect from a pod to a pod on another node; bare: bash /dev/tcp through ip netns exec',
      medianProbeMs: probeMs,
      firstProbeMs,
      medianProbeProcessMs: processProbeMs,
      medianBareConnectMs: bareMs,
      ratio: Number((probeMs / bareMs).toFixed(2)),
    },
  },
};
mkdirSync('test-results', { recursive: true });
const out = process.env.BENCH_FILE ?? 'test-results/bench.json';
// ci/libvirt-integration.sh adds the libvirt provider's figures (VMs need its namespace); keep them.
const previous = existsSync(out)
  ? (JSON.parse(readFileSync(out, 'utf8')) as { libvirt?: unknown })
  : {};
writeFileSync(
  out,
  `${JSON.stringify({ ...figures, ...(previous.libvirt === undefined ? {} : { libvirt: previous.libvirt }) }, null, 2)}\n`,
);
say(
  `12-node up / 3-node up = ${figures.lab.up12vs3}; CLI up ${cliUp.ms} ms, down ${cliDown.ms} ms`,
);
say(
  `matrix: parallel ${parallel.wallMs} ms (without churn ${parallelNoChurn.wallMs} ms), serial ${serial.wallMs} ms (×${figures.suite.serialOverParallel}); ` +
    waiting
      .map(
        (w) =>
          `with ${w.fault}: parallel ${w.parallel.wallMs} ms, serial ${w.serial.wallMs} ms (×${w.serialOverParallel})`,
      )
      .join('; '),
);
say(
  `probe ${probeMs} ms (first ${firstProbeMs} ms, as a process ${processProbeMs} ms) vs bare connect ${bareMs} ms; written to ${out}`,
);
