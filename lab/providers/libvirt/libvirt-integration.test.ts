/**
 * Issues 5 and 19 end to end on real VMs (QEMU): on two hypervisor entries (qemu:///system and
 * qemu+ssh://), the libvirt-emulated preset, snapshotted and restored, with the conformance suite
 * on the restored lab; where KVM works (or with HL_IT_KUBEADM=1) the libvirt-kubeadm preset —
 * real Kubernetes 1.20.2 from the artifact cache, the VMs with no way out — provisioned twice,
 * snapshotted and restored, and the suite on it; `lab down` leaving nothing each time, and
 * `lab reap` after the harness was killed while provisioning. Runs inside the namespace
 * ci/libvirt-integration.sh sets up; skips with the reason anywhere else.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { pollUntil } from '../../wait/poll.ts';
import { ExecaRunner } from '../../exec/execa-runner.ts';
import { processAlive } from '../../exec/process-alive.ts';
import { silentLogger } from '../../log/logger.ts';
import { labProcesses } from '../../exec/lab-processes.ts';
import {
  REPO,
  URIS,
  itEnvironment,
  itSpec,
  lab,
  labUpInBackground,
  leftovers,
  virshMentions,
  type ItEnvironment,
} from '../../testing/libvirt-vm-lab.ts';
import { Virsh } from './virsh.ts';
import { chooseDriver } from './kvm-probe.ts';
import { missing, skipTest } from '../../testing/skip.ts';
import { tailOf } from '../../provision/provision-error.ts';
import { debianMirror } from '../../testing/debian-root.ts';

const runner = new ExecaRunner(silentLogger());
const PRESET_NODES = ['cp1', 'lin1', 'win1'];
/**
 * The libvirt-emulated lab's VMs and hypervisor entries: the preset's three over both entries, or
 * what HL_IT_EMULATED_NODES and HL_IT_HYPERVISORS say (CI's tier: cp1 and win1 on one entry).
 */
const ASKED_NODES = (process.env.HL_IT_EMULATED_NODES ?? '').split(/\s+/).filter(Boolean);
const EMULATED_NODES = ASKED_NODES.length > 0 ? ASKED_NODES : PRESET_NODES;
const EMULATED_HYPERVISORS = process.env.HL_IT_HYPERVISORS === '1' ? 1 : 2;
const timings: Record<string, number> = {};
const found = itEnvironment();

async function timed<T>(key: string, run: () => Promise<T>): Promise<T> {
  const began = performance.now();
  try {
    return await run();
  } finally {
    timings[key] = Math.round((performance.now() - began) / 100) / 10;
  }
}

/** What a VM without a way out fails at: the name of this host's Debian mirror, the internet. */
const MIRROR_HOST = new URL(debianMirror()).hostname;
const NO_WAY_OUT = {
  [`resolving ${MIRROR_HOST}`]: `getent hosts ${MIRROR_HOST}`,
  'connecting to 1.1.1.1:443': 'timeout 10 bash -c "exec 3<>/dev/tcp/1.1.1.1/443"',
};

/**
 * Seconds per phase of a kubeadm lab's `up`: the VMs' (state.json) and each node's provisioning
 * steps, from the first `(exit 0, N ms)` or `(done, N ms)` of each step in its log.
 */
function upPhases(stateDir: string): Record<string, number> {
  const s = (ms: number): number => Math.round(ms / 100) / 10;
  const state = JSON.parse(readFileSync(join(stateDir, 'libvirt/state.json'), 'utf8')) as {
    timings: Record<string, number>;
  };
  const phases: Record<string, number> = {};
  for (const [key, ms] of Object.entries(state.timings)) phases[key.replace(/Ms$/, '')] = s(ms);
  const logs = join(stateDir, 'logs', 'provision');
  for (const file of readdirSync(logs).filter((f) => f.endsWith('.log'))) {
    const node = file.replace(/\.log$/, '');
    for (const m of readFileSync(join(logs, file), 'utf8').matchAll(
      /\[([\w-]+)\] \((?:exit 0|done), (\d+) ms\)/g,
    ))
      phases[`${node}.${m[1]}`] ??= s(Number(m[2]));
  }
  return phases;
}

/** Neither hypervisor entry lists anything of `labId`, and no process of it runs. */
async function expectNothingLeft(labId: string): Promise<void> {
  const it = found as ItEnvironment;
  expect(await leftovers(runner, it, labId)).to.deep.equal([]);
  for (const uri of URIS(it))
    expect(await virshMentions(runner, uri, labId), uri).to.deep.equal([]);
}

function ok(result: { exitCode: number; stdout: string; stderr: string }, what: string): void {
  expect(
    result.exitCode,
    `${what} failed (last lines):\n${tailOf(result.stdout, 30)}\n${tailOf(result.stderr, 30)}`,
  ).to.equal(0);
}

/** `npm test` on a libvirt-emulated lab that is up: every cell green or skipped, labelled emulated. */
async function expectSuiteGreen(
  it: ItEnvironment,
  labName: string,
  resultsName: string,
  grep = '',
) {
  const results = join(it.resultsDir, resultsName);
  const suite = await timed(resultsName, () =>
    runner.run('npm', ['test', ...(grep === '' ? [] : ['--', '--grep', grep])], {
      cwd: REPO,
      // One vCPU per VM under QEMU emulation: more probes at once only queue inside the VMs.
      env: {
        LAB: labName,
        LAB_HOME: it.labHome,
        RESULTS_DIR: results,
        CI: 'true',
        CONCURRENCY: '3',
        // Under QEMU software emulation a name lookup crosses to the cluster DNS on another VM and
        // back: CI once saw one cell's three tries each pass the 3 s default while every other
        // cell passed; 10 s keeps slowness apart from loss, as on the kubeadm VMs below.
        PROBE_TIMEOUT_MS: '10000',
      },
      check: false,
      timeoutMs: 1_800_000,
    }),
  );
  const summary = suite.stdout
    .split('\n')
    .filter((l) => /passing|failing|pending|✔|✗|\d\) /.test(l));
  process.stdout.write(summary.map((l) => `      suite: ${l.trim()}\n`).join(''));
  const report = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8')) as {
    run: { emulated: boolean; provider: string };
    cells: { row: string; cell: string; verdict: string; detail: string }[];
    totals: { passed: number; failed: number; infraErrors: number };
  };
  expect(report.run).to.include({ emulated: true, provider: 'libvirt' });
  const failed = report.cells.filter((c) => c.verdict === 'fail' || c.verdict === 'infra-error');
  expect(failed.map((c) => `${c.cell}: ${c.detail}`)).to.deep.equal([]);
  ok(suite, 'npm test');
  expect(report.totals.passed).to.be.greaterThan(20);
  expect(readFileSync(join(results, 'junit_01.xml'), 'utf8')).to.match(/emulated/);
  return report;
}

function suite(environment: ItEnvironment): void {
  const env = (): ItEnvironment => environment;
  /** A lab's figures for test-results/bench.json (ci/libvirt-integration.sh merges them). */
  const writeBench = (file: string, figures: Record<string, unknown>): void => {
    if (Object.keys(figures).length > 0)
      writeFileSync(join(env().resultsDir, file), `${JSON.stringify(figures, null, 2)}\n`);
  };

  after(async function () {
    // Whatever a failed step left: the reaper is the safety net of the test as of the product.
    // Only this test's labs: a bare `lab reap` would also take other labs on this machine.
    for (const name of ['libvirt-emulated', 'libvirt-kubeadm', 'libvirt-reap'])
      await lab(runner, env(), ['reap', '--lab', name]);
    writeFileSync(
      join(env().resultsDir, 'libvirt-timings.json'),
      `${JSON.stringify(timings, null, 2)}\n`,
    );
    process.stdout.write(`    libvirt timings (s): ${JSON.stringify(timings)}\n`);
  });

  describe('the libvirt-emulated preset on qemu:///system + qemu+ssh://', function () {
    const labId = 'hl-libvirt-emulated';
    const emulatedBench: Record<string, unknown> = {};

    after(function () {
      writeBench('emulated-bench.json', emulatedBench);
    });

    it('comes up ready, its VMs spread over the hypervisor entries (the preset: 3 VMs on both; CI: cp1 and win1 on one)', async function () {
      const spec = itSpec(
        env(),
        'libvirt-emulated',
        EMULATED_NODES,
        'libvirt-emulated',
        EMULATED_HYPERVISORS,
      );
      const up = await timed(`up${EMULATED_NODES.length}Vms`, () =>
        lab(runner, env(), ['up', '--spec', spec]),
      );
      ok(up, 'lab up');
      const status = await lab(runner, env(), ['status', '--lab', 'libvirt-emulated', '--json']);
      ok(status, 'lab status');
      const parsed = JSON.parse(status.stdout) as {
        ready: boolean;
        emulated: boolean;
        provider: string;
      };
      expect(parsed).to.include({ ready: true, emulated: true, provider: 'libvirt' });
      // Both entries reach the one libvirtd of the namespace, so each lists every domain.
      const domains = (
        await Promise.all(
          URIS(env()).map(async (uri) =>
            (await new Virsh(runner, uri).labResources(labId))
              .filter((r) => r.kind === 'domain')
              .map((d) => d.name)
              .sort(),
          ),
        )
      ).map((names) => names.join(' '));
      const expected = EMULATED_NODES.map((n) => `${labId}_${n}`)
        .sort()
        .join(' ');
      expect(domains).to.deep.equal([expected, expected]);
      const state = JSON.parse(
        readFileSync(join(env().labHome, 'libvirt-emulated/libvirt/state.json'), 'utf8'),
      ) as { timings: Record<string, number>; hypervisors: { name: string; driver: string }[] };
      expect(state.hypervisors.map((h) => h.name)).to.deep.equal(
        ['hv1', 'hv2'].slice(0, EMULATED_HYPERVISORS),
      );
      for (const [key, ms] of Object.entries(state.timings)) timings[`up.${key}`] = ms / 1000;
    });

    it('carries traffic between VMs on both hypervisors (lab ssh NODE -- ping) (full tier)', async function () {
      const ping = await lab(runner, env(), [
        'ssh',
        'cp1',
        '--lab',
        'libvirt-emulated',
        '--',
        'ping',
        '-c',
        '1',
        '-W',
        '5',
        '192.168.200.11',
      ]);
      ok(ping, 'ping from cp1 (hv1) to lin1 (hv2)');
    });

    it('comes back from a snapshot, undoing what happened after it on every VM (full tier)', async function () {
      const onEmulated = (node: string, command: string) =>
        lab(runner, env(), ['ssh', node, '--lab', 'libvirt-emulated', '--', 'sh', '-c', command]);
      const snap = await timed('snapshot', () =>
        lab(runner, env(), ['snapshot', 'ready', '--lab', 'libvirt-emulated']),
      );
      ok(snap, 'lab snapshot');
      // After the snapshot: a file on every node, and lin1's lab NIC down (the suite, which runs
      // on the restored lab next, would find lin1 cut off if that were not undone).
      for (const node of EMULATED_NODES)
        ok(await onEmulated(node, 'touch /var/tmp/hl-after-snapshot'), `marker on ${node}`);
      ok(await onEmulated('lin1', 'ip link set eth1 down'), 'lin1 eth1 down');
      const restore = await timed('restore', () =>
        lab(runner, env(), ['up', '--from', 'ready', '--lab', 'libvirt-emulated']),
      );
      ok(restore, 'lab up --from');
      expect(restore.stdout).to.match(/is back at snapshot ready/);
      for (const node of EMULATED_NODES) {
        const marker = await onEmulated(node, 'test ! -e /var/tmp/hl-after-snapshot');
        expect(marker.exitCode, `the file made on ${node} after the snapshot`).to.equal(0);
      }
      const link = await onEmulated('lin1', 'cat /sys/class/net/eth1/operstate');
      expect(link.stdout.trim(), "lin1's eth1").to.equal('up');
      emulatedBench.snapshotSeconds = timings.snapshot;
      emulatedBench.restoreSeconds = timings.restore;
      emulatedBench.restoreSteps = restore.stdout.match(/\((.*)\)/)?.[1];
      emulatedBench.freshUpOverRestore = Math.round((timings.up3Vms! / timings.restore!) * 10) / 10;
    });

    it('passes the conformance suite, labelled emulated (CI: the rows that cross the VM network; full tier: every row, on the restored lab)', async function () {
      // CI's tier: the rows whose traffic crosses the VM network (HL_IT_SUITE_GREP, docs/ci.md).
      await expectSuiteGreen(env(), 'libvirt-emulated', 'suite', process.env.HL_IT_SUITE_GREP);
    });

    it("gives the nightly's collector each domain's XML from both entries and the local console logs (ci/lib/periodic-collect.sh) (full tier)", async function () {
      const out = join(env().resultsDir, 'collector');
      // As ci/periodic.sh sources and calls it; hv2 is remote, so its console logs stay there.
      const script = [
        'set -euo pipefail',
        'ROOT=$PWD ARTIFACTS=$1 LAB_ID=$2',
        'HYPERVISORS=("hv1 local qemu:///system" "hv2 remote $3")',
        'log() { echo "collect: $*"; }',
        'source ci/lib/periodic-collect.sh',
        'collect_libvirt',
      ].join('\n');
      const run = await runner.run('bash', ['-c', script, 'collect', out, labId, env().sshUri], {
        cwd: REPO,
        check: false,
      });
      ok(run, 'collect_libvirt');
      for (const hv of ['hv1', 'hv2'])
        for (const node of EMULATED_NODES)
          expect(
            readFileSync(join(out, 'libvirt', hv, `domain-${labId}_${node}.xml`), 'utf8'),
            `${hv} ${node}`,
          ).to.include(`<name>${labId}_${node}</name>`);
      // cp1 and win1 run on hv1 (local): their serial consoles logged the boot.
      for (const node of ['cp1', 'win1']) {
        const [file] = readdirSync(join(out, 'nodes', node));
        expect(file, node).to.match(/^console-.*-console\.log$/);
        expect(readFileSync(join(out, 'nodes', node, file!), 'utf8'), node).to.match(/\S/);
      }
      expect(run.stdout).to.match(/console log stays on remote hypervisor hv2/);
    });

    it('goes down leaving no domain, network, volume or process of the lab', async function () {
      ok(
        await timed('down', () => lab(runner, env(), ['down', '--lab', 'libvirt-emulated'])),
        'lab down',
      );
      await expectNothingLeft(labId);
    });
  });

  describe('the libvirt-kubeadm preset: real Kubernetes 1.20.2 on the VMs (issue 19)', function () {
    const name = 'libvirt-kubeadm';
    const labId = `hl-${name}`;
    const bench: Record<string, unknown> = {};
    const kubectl = (args: string): string[] => [
      'kubectl',
      '--kubeconfig=/etc/kubernetes/admin.conf',
      ...args.split(' '),
    ];
    const onNode = (node: string, argv: string[]) =>
      lab(runner, env(), ['ssh', node, '--lab', name, '--', ...argv]);
    /** What a second provisioning must leave as it is on a node: configs, services, pods, images. */
    const fingerprint = async (node: string): Promise<string> => {
      const script = [
        'sha256sum /etc/kubernetes/*.conf /etc/kubernetes/manifests/* /var/lib/kubelet/config.yaml /etc/containerd/config.toml 2>/dev/null',
        'systemctl show -p ActiveEnterTimestampMonotonic -p NRestarts kubelet containerd',
        // Pod sandboxes (the pause image's containers): a pod made again would show here. A
        // container restarting inside its pod is the cluster's own doing (a control-plane
        // component losing its lease under emulation), not provisioning's.
        "ctr -n k8s.io containers ls | awk '$2 ~ /pause/ {print $1}' | sort > /tmp/hl-sandboxes",
        'echo "sandboxes $(wc -l < /tmp/hl-sandboxes)"; cat /tmp/hl-sandboxes',
        'ctr -n k8s.io images ls -q | sort',
      ].join('; ');
      const result = await onNode(node, ['sh', '-c', script]);
      ok(result, `fingerprint of ${node}`);
      return result.stdout;
    };

    /** Whether these VMs run on KVM; the suite on them needs it (or HL_IT_KUBEADM_SUITE=1). */
    let kvm = false;

    before(async function () {
      if (env().artifacts === undefined) {
        skipTest(
          this,
          missing(
            'HL_IT_ARTIFACTS is not set (ci/libvirt-integration.sh builds the artifact cache)',
          ),
        );
      }
      // The provider's own probe, as `lab up` makes it on hv1.
      const choice = await chooseDriver(
        new Virsh(runner, 'qemu:///system'),
        'hl-it-kvmprobe',
        join(env().labHome, 'it-kvmprobe.xml'),
        process.env.HL_LIBVIRT_DRIVER,
      );
      kvm = choice.driver === 'kvm';
      if (!kvm && process.env.HL_IT_KUBEADM !== '1')
        skipTest(this, {
          kind: 'unavailable',
          what: 'working KVM',
          reason: `real Kubernetes on three VMs needs working KVM (${choice.reason}). Under QEMU software emulation on 2 cores its API server answers slower than kubeadm 1.20's fixed 10 s calls: of the last four CI runs, one failed a join and two ran out of CI's 90 minutes (lab up 1222 s; a second provisioning waited 699 s for an API server it gives 120 s). HL_IT_KUBEADM=1 runs it anyway; provisioning twice is checked on a Debian rootfs (npm run test:provision-sandbox), real Kubernetes under the suite on netns-kubeadm`,
        });
    });

    after(function () {
      writeBench('kubeadm-bench.json', bench);
    });

    it('comes up from the Debian-built artifact cache with no way out of the VMs: kubeadm init and joins for real, every node Ready', async function () {
      const spec = itSpec(env(), name, undefined, 'libvirt-kubeadm');
      const up = await timed('kubeadm.up', () => lab(runner, env(), ['up', '--spec', spec]));
      ok(up, 'lab up');
      bench.freshUpSeconds = timings['kubeadm.up'];
      const status = await lab(runner, env(), ['status', '--lab', name, '--json']);
      ok(status, 'lab status');
      expect(JSON.parse(status.stdout)).to.include({ ready: true, emulated: false });
      const nodes = await onNode('cp1', kubectl('get nodes --no-headers'));
      ok(nodes, 'kubectl get nodes');
      expect(
        nodes.stdout.split('\n').filter((l) => / Ready /.test(l) && /v1\.20\.2/.test(l)),
      ).to.have.length(3, nodes.stdout);
      for (const node of ['cp1', 'lin1', 'lin2']) {
        for (const [what, probe] of Object.entries(NO_WAY_OUT)) {
          const result = await onNode(node, ['sh', '-c', probe]);
          expect(result.exitCode, `${what} from ${node}`).to.not.equal(0);
        }
      }
      bench.phasesSeconds = upPhases(join(env().labHome, name));
      process.stdout.write(`      phases (s): ${JSON.stringify(bench.phasesSeconds)}\n`);
    });

    it('provisioned a second time, changes nothing: 0 changes reported, the nodes as they were', async function () {
      const nodes = ['cp1', 'lin1', 'lin2'];
      // Ready comes before a node's first pod (kube-proxy's) has its sandbox; wait for it, so the
      // comparison covers pods (a worker showed 0 sandboxes right after Ready in one CI run).
      const before = await Promise.all(
        nodes.map((node) =>
          pollUntil(
            `a pod sandbox on ${node}`,
            async () => {
              const print = await fingerprint(node);
              return /^sandboxes [1-9]/m.test(print) ? print : undefined;
            },
            { timeoutMs: 300_000, intervalMs: 5000 },
          ),
        ),
      );
      const again = await timed('kubeadm.provisionAgain', () =>
        lab(runner, env(), ['provision', '--lab', name]),
      );
      ok(again, 'lab provision');
      expect(again.stdout).to.match(/provisioned: 0 changes/);
      const after = await Promise.all(nodes.map(fingerprint));
      nodes.forEach((node, i) => {
        expect(before[i], node).to.match(/^sandboxes [1-9]/m);
        expect(after[i], node).to.equal(before[i]);
      });
      bench.provisionAgainSeconds = timings['kubeadm.provisionAgain'];
    });

    it('comes back from a snapshot in seconds, undoing what happened after it', async function () {
      const snap = await timed('kubeadm.snapshot', () =>
        lab(runner, env(), ['snapshot', 'provisioned', '--lab', name]),
      );
      ok(snap, 'lab snapshot');
      // After the snapshot: a namespace made, a worker's kubelet stopped.
      ok(await onNode('cp1', kubectl('create namespace hl-after-snapshot')), 'create namespace');
      ok(await onNode('lin2', ['systemctl', 'stop', 'kubelet']), 'stop kubelet on lin2');
      const restore = await timed('kubeadm.restore', () =>
        lab(runner, env(), ['up', '--from', 'provisioned', '--lab', name]),
      );
      ok(restore, 'lab up --from');
      expect(restore.stdout).to.match(/is back at snapshot provisioned/);
      const gone = await onNode('cp1', kubectl('get namespace hl-after-snapshot'));
      expect(gone.exitCode, 'the namespace made after the snapshot').to.not.equal(0);
      const kubelet = await onNode('lin2', ['systemctl', 'is-active', 'kubelet']);
      expect(kubelet.stdout.trim()).to.equal('active');
      bench.snapshotSeconds = timings['kubeadm.snapshot'];
      bench.restoreSeconds = timings['kubeadm.restore'];
      bench.restoreSteps = restore.stdout.match(/\((.*)\)/)?.[1];
      bench.freshUpOverRestore =
        Math.round((timings['kubeadm.up']! / timings['kubeadm.restore']!) * 10) / 10;
    });

    it('passes the suite on the restored lab, labelled real: Kubernetes 1.20.2 built from Debian, on VMs', async function () {
      if (!kvm && process.env.HL_IT_KUBEADM_SUITE !== '1')
        skipTest(this, {
          kind: 'unavailable',
          what: 'working KVM',
          reason:
            'the suite on the restored kubeadm VMs needs working KVM: under QEMU software emulation the restored control-plane VM ran at 113 % CPU and exec into its pods timed out (2 of 120 cells red, 18 min; the run before, its deploy outlasted 5 min); HL_IT_KUBEADM_SUITE=1 runs it',
        });
      const results = join(env().resultsDir, 'kubeadm-suite');
      // Every row but churn: on these QEMU-emulated VMs its four steps (pods deleted until gone,
      // created until Ready, kube-proxy resyncing) took 15 more minutes than the whole rest of
      // the suite, and scaled-back was still refused 30 s after its pods were Ready. Churn on
      // real Kubernetes runs on the netns-kubeadm lab; on VMs, on the libvirt-emulated lab above.
      const suite = await timed('kubeadm.suite', () =>
        runner.run('npm', ['test', '--', '--grep', 'churn', '--invert'], {
          cwd: REPO,
          env: {
            LAB: name,
            LAB_HOME: env().labHome,
            RESULTS_DIR: results,
            CI: 'true',
            CONCURRENCY: '3',
            // Under QEMU software emulation the control plane node runs the API server, etcd
            // and the cluster DNS many times slower than on hardware: the sweeps by name from
            // its pod (TCP and UDP) once failed at the 3 s default while every node passed the
            // traced retry; 10 s keeps slowness apart from loss.
            PROBE_TIMEOUT_MS: '10000',
            // Deploying the run's pods and Services on the restored VMs once took longer than the
            // 5 min default (the control plane VM busy at 113 % CPU after the restore).
            DEPLOY_TIMEOUT_MS: '600000',
          },
          check: false,
          timeoutMs: 2_400_000,
        }),
      );
      process.stdout.write(
        suite.stdout
          .split('\n')
          .filter((l) => /passing|failing|pending|\d\) /.test(l))
          .map((l) => `      suite: ${l.trim()}\n`)
          .join(''),
      );
      const report = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8')) as {
        run: { emulated: boolean; provider: string };
        cells: { cell: string; verdict: string; detail: string }[];
        totals: { passed: number };
      };
      expect(report.run).to.include({ emulated: false, provider: 'libvirt' });
      const failed = report.cells.filter(
        (c) => c.verdict === 'fail' || c.verdict === 'infra-error',
      );
      expect(failed.map((c) => `${c.cell}: ${c.detail}`)).to.deep.equal([]);
      ok(suite, 'npm test');
      // Every Linux cell of three Linux nodes; only Windows cells skip.
      const skipped = report.cells.filter((c) => c.verdict === 'skipped');
      expect(skipped.filter((c) => !/windows/.test(c.cell)).map((c) => c.cell)).to.deep.equal([]);
      expect(report.totals.passed).to.be.greaterThan(60);
      const summary = readFileSync(join(results, 'summary.md'), 'utf8');
      expect(summary).to.include('built from Debian').and.to.include('v1.20.2');
      expect(summary).to.include('QEMU software emulation');
      const junit = join(results, 'junit_01.xml');
      expect(readFileSync(junit, 'utf8')).to.include('name="emulated" value="no"');
      ok(
        await runner.run(
          'xmllint',
          ['--noout', '--schema', join(REPO, 'specs/report/junit.xsd'), junit],
          {
            check: false,
          },
        ),
        'xmllint',
      );
      bench.suiteSeconds = timings['kubeadm.suite'];
      bench.suitePassed = report.totals.passed;
    });

    it('goes down leaving no domain, network, volume or process of the lab', async function () {
      ok(
        await timed('kubeadm.down', () => lab(runner, env(), ['down', '--lab', name])),
        'lab down',
      );
      await expectNothingLeft(labId);
    });
  });

  describe('a harness killed while provisioning a kubeadm lab', function () {
    const labId = 'hl-libvirt-reap';

    it('leaves pieces that lab reap removes: no domain, volume, network or process', async function () {
      if (env().artifacts === undefined) {
        skipTest(
          this,
          missing(
            'HL_IT_ARTIFACTS is not set (ci/libvirt-integration.sh builds the artifact cache)',
          ),
        );
      }
      const spec = itSpec(env(), 'libvirt-reap', 2, 'libvirt-kubeadm');
      const log = join(env().labHome, 'libvirt-reap-up.log');
      const harness = await labUpInBackground(runner, env(), spec, log);
      // Killed once the control plane's first steps are done: VMs, ssh masters and the upload of
      // the artifacts in flight (its log is written as each step ends).
      const provisionLog = join(env().labHome, 'libvirt-reap', 'logs', 'provision', 'cp1.log');
      await pollUntil(
        'the control plane being provisioned',
        () => {
          if (!processAlive(harness.pid))
            throw new Error(`lab up ended early:\n${readFileSync(log, 'utf8')}`);
          return Promise.resolve(
            existsSync(provisionLog) && /\[stage\]/.test(readFileSync(provisionLog, 'utf8'))
              ? true
              : undefined,
          );
        },
        { timeoutMs: 900_000, intervalMs: 1000 },
      );
      const domain = (await new Virsh(runner, 'qemu:///system').labResources(labId)).find(
        (r) => r.kind === 'domain' && /_cp1$/.test(r.name),
      )!;
      process.kill(harness.pid, 'SIGKILL');
      await harness.exited;
      const pieces = await leftovers(runner, env(), labId);
      expect(pieces, 'what the killed up left').to.include(`domain ${domain.name}`);
      expect(labProcesses(labId), 'vagrant still running after the harness died').to.not.be.empty;
      const reap = await timed('reap', () => lab(runner, env(), ['reap', '--lab', 'libvirt-reap']));
      ok(reap, 'lab reap');
      expect(reap.stdout).to.match(/reaped \d+ resources/);
      await expectNothingLeft(labId);
    });
  });
}

describe('libvirt provider on real VMs (issue 5)', function () {
  this.timeout(0);
  if ('kind' in found) {
    it('runs on real VMs', function () {
      skipTest(this, found);
    });
  } else {
    suite(found);
  }
});
