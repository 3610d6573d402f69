/**
 * Integration (real Kubernetes 1.20.2 from the artifact cache on namespace nodes): the
 * netns-kubeadm preset comes up through the CLI as a user types it, its nodes are Ready, `lab
 * provision`'s steps changed nothing on a second pass, `lab down` leaves nothing; and a harness
 * killed during `up` leaves nothing after `lab reap`. While it is up, a hand-made nft drop on
 * lin2 turns only lin1 → lin2 cells red, and their path evidence names it: from the lab's node
 * shells, and from node shell pods when the cluster is run as one the harness did not make. Then
 * every disruption action on the middle Linux worker (lin1), each of its cells green again within
 * its bound, the long-lived connections and the UDP conntrack sockets intact. Run
 * by `npm run test:netns-kubeadm` (HL_KUBEADM_NETNS=1, root, the cache of
 * vagrant/artifacts/kubernetes/build.sh).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { ExecaRunner } from '../../../exec/execa-runner.ts';
import { silentLogger } from '../../../log/logger.ts';
import { rootNetnsSnapshot } from '../../../testing/netns-host.ts';
import { pollUntil } from '../../../wait/poll.ts';
import { runSuite } from '../../../../specs/selftest/suite-process.ts';
import {
  expectOnlyDroppedCells,
  FOREIGN_TABLE,
  foreignDropTable,
} from '../../../../specs/testing/foreign-drop.ts';
import {
  CLUSTER_SUBJECT,
  DISRUPTION_ACTIONS,
  NODE_ACTIONS,
} from '../../../contracts/disruptions.ts';
import { KUBELET_SYSCTLS, NODE_STATE_ROOT, PIN_ROOT } from './node-host.ts';
import { missing, optIn, skipIf, type Skip } from '../../../testing/skip.ts';

const CLI = ['node_modules/.bin/tsx', 'lab/cli/main.ts'];
const PRESET = 'lab/presets/netns-kubeadm.yaml';
const DAEMONS =
  /^(kubelet|kube-apiserver|kube-proxy|kube-controller|kube-scheduler|etcd|containerd.*|kubelet-loop.sh|pause|agnhost|hl-cluster-dns)$/;

/** Every disruption action: on lin1, and (the DNS pods) on the cluster. */
const ACTIONS_ON_LIN1 = DISRUPTION_ACTIONS.map(
  (a) => `${a}/${NODE_ACTIONS.includes(a) ? 'lin1' : CLUSTER_SUBJECT}`,
);

function skipReason(): Skip | undefined {
  const optedOut = optIn(
    'HL_KUBEADM_NETNS',
    'npm run test:netns-kubeadm',
    'brings real Kubernetes up on namespace nodes',
  );
  if (optedOut !== undefined) return optedOut;
  if (process.getuid?.() !== 0) return missing('needs root for namespaces, mounts and cgroups');
  const cache = (parse(readFileSync(PRESET, 'utf8')) as { artifacts: { dir: string } }).artifacts
    .dir;
  return existsSync(join(cache, 'recipe.json'))
    ? undefined
    : missing(`no artifact cache at ${cache}: bash vagrant/artifacts/kubernetes/build.sh`);
}

/** Everything of lab `id` this host still holds, one line each: the test's definition of "nothing left". */
function leftovers(id: string): string[] {
  const lines: string[] = [];
  const netns = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  for (const ns of netns.split('\n').map((l) => l.split(' ')[0] ?? ''))
    if (ns.startsWith(`${id}-`)) lines.push(`namespace ${ns}`);
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n'))
    if (line.includes(id) || line.includes('hl-run-')) lines.push(`mount ${line.split(' ')[4]}`);
  for (const controller of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
    const dir = join('/sys/fs/cgroup', controller);
    for (const name of existsSync(dir) && !dir.endsWith('.procs') ? safeList(dir) : [])
      if (name.startsWith(`${id}_`)) lines.push(`cgroup ${controller}/${name}`);
  }
  for (const dir of [join(PIN_ROOT, id), join(NODE_STATE_ROOT, id)])
    if (existsSync(dir)) lines.push(`folder ${dir}`);
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let comm: string;
    let environ: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (DAEMONS.test(comm) || environ.includes(`HL_LAB_ID=${id}\0`))
      lines.push(`process ${pid} (${comm})`);
  }
  return lines;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function sysctls(): string {
  return Object.keys(KUBELET_SYSCTLS)
    .map((k) => `${k}=${readFileSync(`/proc/sys/${k}`, 'utf8').trim()}`)
    .join(' ');
}

describe('kubeadm on namespace nodes (real Kubernetes 1.20.2 from the artifact cache)', function () {
  this.timeout(25 * 60_000);
  const skip = skipReason();
  const home = mkdtempSync(join(tmpdir(), 'hl-kubeadm-'));
  const env = { ...process.env, LAB_HOME: join(home, '.lab'), CI: 'true' };
  const runner = new ExecaRunner(silentLogger());
  const cli = (...args: string[]) =>
    spawnSync(CLI[0]!, [...CLI.slice(1), ...args], { env, encoding: 'utf8' });
  /** The preset under another name, so a user's own lab is left alone. */
  const spec = (name: string): string => {
    const file = join(home, `${name}.yaml`);
    writeFileSync(file, stringify({ ...(parse(readFileSync(PRESET, 'utf8')) as object), name }));
    return file;
  };

  before(function () {
    skipIf(this, skip);
  });

  after(() => {
    for (const lab of ['itkubeadm', 'itkubecrash']) cli('reap', '--lab', lab);
    rmSync(home, { recursive: true, force: true });
  });

  /**
   * Runs the suite with path evidence of every red cell, checks that exactly the cells from lin1
   * into lin2 are red and that each names `rule` on lin2 first; returns the first one's folder.
   */
  async function droppedOnLin2(
    results: string,
    rule: string,
    options: Omit<Parameters<typeof runSuite>[2], 'timeoutMs'>,
  ): Promise<{ cells: string[]; first: string; suiteLog: string }> {
    const defaults = { PROBE_TIMEOUT_MS: '2000', EVIDENCE: 'failed', EVIDENCE_MAX_CELLS: '20' };
    const run = await runSuite(runner, results, {
      ...options,
      timeoutMs: 600_000,
      env: { ...defaults, ...options.env },
    });
    const red = expectOnlyDroppedCells(run.cells, {
      source: 'lin1',
      target: 'lin2',
      targetOs: 'linux',
      node: 'lin2',
      rule,
    });
    return {
      cells: run.cells.map((c) => c.cell),
      first: join(results, red[0]!.evidence!.files[0]!, '..'),
      suiteLog: readFileSync(join(results, 'suite.log'), 'utf8'),
    };
  }

  /**
   * A drop the catalogue does not know, on the last node: lin2 forwards nothing from lin1's pods to
   * its own pods' port 8080. Only cells from lin1 into lin2 turn red, and the real cluster's path
   * evidence (from the lab's node shells) names that table and rule on lin2 first.
   */
  async function evidenceOfHandMadeDrop(): Promise<void> {
    const plan = JSON.parse(readFileSync(join(env.LAB_HOME, 'itkubeadm', 'plan.json'), 'utf8')) as {
      nodes: { name: string; podCIDR: string }[];
    };
    const cidr = (name: string) => plan.nodes.find((n) => n.name === name)!.podCIDR;
    const rule = `ip saddr ${cidr('lin1')} ip daddr ${cidr('lin2')} tcp dport 8080 drop`;
    const table = join(home, 'foreign.nft');
    writeFileSync(table, foreignDropTable(rule));
    const add = cli('ssh', 'lin2', '--lab', 'itkubeadm', '--', 'nft', '-f', table);
    expect(add.status, add.stderr).to.equal(0);
    try {
      const { first } = await droppedOnLin2(join(home, 'evidence-results'), rule, {
        lab: 'itkubeadm',
        labHome: env.LAB_HOME,
      });
      for (const file of ['routes.txt', 'nft-ruleset.txt', 'conntrack.txt', 'trace.txt'])
        expect(existsSync(join(first, 'lin2', file)), file).to.equal(true);
      // kube-proxy's own rules are in the node's ruleset (iptables-nft).
      expect(readFileSync(join(first, 'lin2', 'nft-ruleset.txt'), 'utf8')).to.include(
        'KUBE-SERVICES',
      );
      await evidenceAsExistingCluster(rule);
    } finally {
      cli(
        'ssh',
        'lin2',
        '--lab',
        'itkubeadm',
        '--',
        'nft',
        'delete',
        'table',
        'inet',
        FOREIGN_TABLE,
      );
    }
  }

  /**
   * The same drop seen as a cluster the harness did not make (KUBECONFIG alone, no lab): path
   * evidence then goes through a privileged pod on each node of the path, and names the drop too.
   * Pod-to-pod cells only: NodePort and outbound cells need this host on the lab's network.
   */
  async function evidenceAsExistingCluster(rule: string): Promise<void> {
    // Monitors' pid files already in /tmp are not this run's (a harness killed earlier leaves them).
    const tracePids = () => readdirSync('/tmp').filter((f) => f.startsWith('hl-evidence-trace-'));
    const earlierPids = new Set(tracePids());
    const { cells, first, suiteLog } = await droppedOnLin2(join(home, 'existing-results'), rule, {
      labHome: mkdtempSync(join(home, 'no-lab-')),
      // Pod-to-pod only (cp1 → lin2 stays green): NodePort and outbound cells need the lab's network.
      grep: 'pod-to-pod linux-to-linux',
      env: {
        KUBECONFIG: join(env.LAB_HOME, 'itkubeadm', 'kubeconfig'),
        AGNHOST_IMAGE: 'hybrid-lab/agnhost:2.25',
      },
    });
    expect(cells).to.include('pod-to-pod/linux-to-linux/cross-node/cp1/lin2/ip');
    // What the pods cost: the suite's own line, `path evidence of N cell(s) in M ms`.
    const timing = /path evidence of .*/.exec(suiteLog);
    console.log(`      existing-cluster run: ${timing?.[0] ?? 'no evidence line'}`);
    // The node's own state, through the pod: the foreign table and kube-proxy's rules.
    const ruleset = readFileSync(join(first, 'lin2', 'nft-ruleset.txt'), 'utf8');
    expect(ruleset).to.include(`table inet ${FOREIGN_TABLE}`).and.to.include('KUBE-SERVICES');
    expect(readFileSync(join(first, 'lin2', 'routes.txt'), 'utf8')).to.include('10.244.');
    // Nothing of the evidence is left on the node: no trace table, no monitor's pid file.
    const tables = cli('ssh', 'lin2', '--lab', 'itkubeadm', '--', 'nft', 'list', 'tables');
    expect(tables.stdout).to.include(FOREIGN_TABLE).and.not.include('hl_evidence_trace');
    expect(tracePids().filter((f) => !earlierPids.has(f))).to.deep.equal([]);
  }

  /**
   * The over-time rows and the disruption phase on lin1 (docs/disruption.md), real: every action,
   * every cell that starts or ends on lin1 green again within its bound; the long-lived
   * connections held through the run and the actions (those through the reboot skipped, saying
   * why), the UDP conntrack sockets switched to the new backend.
   */
  async function disruptionsOnLin1(): Promise<void> {
    const run = await runSuite(runner, join(home, 'disruption-results'), {
      lab: 'itkubeadm',
      labHome: env.LAB_HOME,
      timeoutMs: 900_000,
      // The phase probes again the matrix cells through lin1 whether the run selected them or not:
      // the matrix pass itself (run on this lab by the README's commands in CI) is left out.
      grep: 'disruption|long-lived|udp-conntrack|twin-services',
      env: { DISRUPTIONS: 'on', DISRUPTION_NODES: 'lin1' },
    });
    expect(run.broken, run.broken).to.equal(undefined);
    expect(run.run?.emulated, 'labelled real').to.equal(false);
    const notGreen = run.cells.filter((c) => c.verdict !== 'pass' && c.verdict !== 'skipped');
    expect(notGreen.map((c) => `${c.cell}: ${c.verdict} ${c.detail}`)).to.deep.equal([]);
    const ran = (prefix: string) =>
      run.cells.filter((c) => c.cell.startsWith(prefix) && c.verdict === 'pass');
    for (const row of ['long-lived-pod-to-pod/', 'long-lived-pod-to-service/', 'udp-conntrack/'])
      expect(ran(row), row).to.not.be.empty;
    const lines: string[] = [];
    for (const at of ACTIONS_ON_LIN1) {
      const cells = run.cells.filter((c) => c.cell.startsWith(`disruption/${at}/`));
      // Probed again until green, with a time to green; else a connection held through the action.
      const green = ran(`disruption/${at}/`).filter((c) => c.recovery !== undefined);
      const held = ran(`disruption/${at}/`).filter((c) => c.recovery === undefined);
      expect(green.length, `green cells after ${at}`).to.be.greaterThan(10);
      for (const c of green) {
        const { timeToGreenMs, boundMs } = c.recovery!;
        expect(timeToGreenMs, `${c.cell}: time to green`).to.be.a('number');
        expect(timeToGreenMs, `${c.cell}: within its bound`).to.be.at.most(boundMs);
      }
      for (const c of held) expect(c.cell).to.match(/^disruption\/[\w-]+\/lin1\/long-lived-/);
      // Only a connection held through the reboot is not run: it is not expected to survive.
      for (const c of cells.filter((c) => c.verdict === 'skipped'))
        expect(`${c.cell}: ${c.reason ?? ''}`).to.match(
          /^disruption\/node-reboot\/lin1\/long-lived-.*: not expected to survive/,
        );
      const slowest = Math.max(...green.map((c) => c.recovery!.timeToGreenMs!));
      lines.push(`${at}: ${green.length} green, slowest ${slowest} ms; ${held.length} held`);
    }
    console.log(`      time to green: ${lines.join('; ')}`);
  }

  it('comes up Ready, and lab down leaves nothing: no process, mount, cgroup, namespace or folder; the root namespace and the kernel settings as they were', async function () {
    const root = await rootNetnsSnapshot(runner);
    const kernel = sysctls();
    const up = cli('up', '--spec', spec('itkubeadm'));
    expect(up.status, up.stdout + up.stderr).to.equal(0);
    const status = cli('status', '--lab', 'itkubeadm', '--json');
    const nodes = (JSON.parse(status.stdout) as { nodes: { name: string; ready: boolean }[] })
      .nodes;
    expect(nodes.map((n) => `${n.name} ${n.ready}`)).to.deep.equal([
      'cp1 true',
      'lin1 true',
      'lin2 true',
    ]);
    // The kubelets set global kernel settings; each node's are private files.
    expect(sysctls()).to.equal(kernel);
    await evidenceOfHandMadeDrop();
    await disruptionsOnLin1();
    const down = cli('down', '--lab', 'itkubeadm');
    expect(down.status, down.stdout + down.stderr).to.equal(0);
    expect(leftovers('hl-itkubeadm')).to.deep.equal([]);
    expect(await rootNetnsSnapshot(runner)).to.deep.equal(root);
    expect(sysctls()).to.equal(kernel);
  });

  it('a harness killed during up leaves pieces that lab reap removes', async function () {
    // The kill waits for a kube-apiserver: one of an earlier lab would fire it at once.
    expect(leftovers('hl-itkubecrash'), 'daemons before the crash lab').to.deep.equal([]);
    // Its own process group, so the kill reaches node under tsx's launcher too.
    const harness = spawn(CLI[0]!, [...CLI.slice(1), 'up', '--spec', spec('itkubecrash')], {
      env,
      stdio: 'ignore',
      detached: true,
    });
    const exited = new Promise((resolve) => harness.once('exit', resolve));
    // Killed in the middle of kubeadm init: the control plane's static pods are starting.
    await pollUntil(
      'kubeadm init of the crash lab to start the API server',
      () =>
        leftovers('hl-itkubecrash').some((l) => /\(kube-apiserver\)/.test(l)) ? true : undefined,
      { timeoutMs: 5 * 60_000, intervalMs: 200 },
    );
    process.kill(-harness.pid!, 'SIGKILL');
    await exited;
    const state = JSON.parse(
      readFileSync(join(home, '.lab', 'itkubecrash', 'state.json'), 'utf8'),
    ) as {
      phase: string;
    };
    expect(state.phase, 'the kill came after up had finished').to.not.equal('up');
    expect(leftovers('hl-itkubecrash'), 'what the killed up left').to.not.be.empty;
    const reap = cli('reap', '--lab', 'itkubecrash');
    expect(reap.status, reap.stdout + reap.stderr).to.equal(0);
    expect(leftovers('hl-itkubecrash')).to.deep.equal([]);
  });
});
