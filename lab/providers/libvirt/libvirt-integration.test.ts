/**
 * Issue 5 end to end on real VMs (QEMU): the libvirt-emulated preset on two hypervisor entries
 * (qemu:///system and qemu+ssh://), the conformance suite on it, the Linux node steps twice on
 * one VM from the artifact cache (the VMs have no way out), `lab down` leaving nothing, and
 * `lab reap` after the harness was killed during `up`. Runs inside the namespace
 * ci/libvirt-integration.sh sets up; skips with the reason anywhere else.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { pollUntil } from '../../wait/poll.ts';
import { ExecaRunner } from '../../exec/execa-runner.ts';
import { processAlive } from '../../exec/process-alive.ts';
import { silentLogger } from '../../log/logger.ts';
import { componentVersions } from '../../provision/component-versions.ts';
import { LinuxStepsCheck, writeStandInImages } from '../../testing/linux-steps-check.ts';
import { kubeadmPlan } from '../../testing/kubeadm-plans.ts';
import { labProcesses } from '../../exec/lab-processes.ts';
import {
  REPO,
  URIS,
  itEnvironment,
  itSpec,
  lab,
  labTarget,
  labUpInBackground,
  leftovers,
  virshMentions,
  type ItEnvironment,
} from '../../testing/libvirt-vm-lab.ts';
import { Virsh } from './virsh.ts';
import { missing, skipTest } from '../../testing/skip.ts';

const runner = new ExecaRunner(silentLogger());
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

/** What a VM without a way out fails at: a name of Debian's mirror, a connection to the internet. */
const NO_WAY_OUT = {
  'resolving deb.debian.org': 'getent hosts deb.debian.org',
  'connecting to 1.1.1.1:443': 'timeout 10 bash -c "exec 3<>/dev/tcp/1.1.1.1/443"',
};

function ok(result: { exitCode: number; stdout: string; stderr: string }, what: string): void {
  expect(result.exitCode, `${what} failed:\n${result.stdout}\n${result.stderr}`).to.equal(0);
}

function suite(environment: ItEnvironment): void {
  const env = (): ItEnvironment => environment;

  after(async function () {
    // Whatever a failed step left: the reaper is the safety net of the test as of the product.
    // Only this test's labs: a bare `lab reap` would also take other labs on this machine.
    for (const name of ['libvirt-emulated', 'libvirt-reap'])
      await lab(runner, env(), ['reap', '--lab', name]);
    writeFileSync(
      join(env().resultsDir, 'libvirt-timings.json'),
      `${JSON.stringify(timings, null, 2)}\n`,
    );
    process.stdout.write(`    libvirt timings (s): ${JSON.stringify(timings)}\n`);
  });

  describe('the libvirt-emulated preset on qemu:///system + qemu+ssh://', function () {
    const labId = 'hl-libvirt-emulated';

    it('comes up: 3 VMs, spread over both hypervisor entries, ready', async function () {
      const spec = itSpec(env(), 'libvirt-emulated');
      const up = await timed('up3Vms', () => lab(runner, env(), ['up', '--spec', spec]));
      ok(up, 'lab up');
      const status = await lab(runner, env(), ['status', '--lab', 'libvirt-emulated', '--json']);
      ok(status, 'lab status');
      const parsed = JSON.parse(status.stdout) as {
        ready: boolean;
        emulated: boolean;
        provider: string;
      };
      expect(parsed).to.include({ ready: true, emulated: true, provider: 'libvirt' });
      const [local, viaSsh] = await Promise.all(
        URIS(env()).map(async (uri) =>
          (await new Virsh(runner, uri).labResources(labId)).filter((r) => r.kind === 'domain'),
        ),
      );
      // Both entries reach the one libvirtd of the namespace, so each lists all three domains.
      expect(local!.map((d) => d.name).sort()).to.deep.equal([
        `${labId}_cp1`,
        `${labId}_lin1`,
        `${labId}_win1`,
      ]);
      expect(viaSsh!.map((d) => d.name).sort()).to.deep.equal(local!.map((d) => d.name).sort());
      const state = JSON.parse(
        readFileSync(join(env().labHome, 'libvirt-emulated/libvirt/state.json'), 'utf8'),
      ) as { timings: Record<string, number>; hypervisors: { name: string; driver: string }[] };
      expect(state.hypervisors.map((h) => h.name)).to.deep.equal(['hv1', 'hv2']);
      for (const [key, ms] of Object.entries(state.timings)) timings[`up.${key}`] = ms / 1000;
    });

    it('carries traffic between VMs on both hypervisors (lab ssh NODE -- ping)', async function () {
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

    it('passes the conformance suite, labelled emulated', async function () {
      const results = join(env().resultsDir, 'suite');
      const suite = await timed('suite', () =>
        runner.run('npm', ['test'], {
          cwd: REPO,
          // One vCPU per VM under QEMU emulation: more probes at once only queue inside the VMs.
          env: {
            LAB: 'libvirt-emulated',
            LAB_HOME: env().labHome,
            RESULTS_DIR: results,
            CI: 'true',
            CONCURRENCY: '3',
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
      const failed = report.cells.filter(
        (c) => c.verdict === 'fail' || c.verdict === 'infra-error',
      );
      expect(failed.map((c) => `${c.cell}: ${c.detail}`)).to.deep.equal([]);
      ok(suite, 'npm test');
      expect(report.totals.passed).to.be.greaterThan(20);
      expect(readFileSync(join(results, 'junit_01.xml'), 'utf8')).to.match(/emulated/);
    });

    it("gives the nightly's collector each domain's XML from both entries and the local console logs (ci/lib/periodic-collect.sh)", async function () {
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
        for (const node of ['cp1', 'lin1', 'win1'])
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

    it('runs the Linux node steps twice on lin1 from the artifact cache, no way out; Kubernetes stops at "artifact missing"', async function () {
      const cache = env().artifacts;
      if (cache === undefined) {
        skipTest(
          this,
          missing(
            'HL_IT_ARTIFACTS is not set (ci/libvirt-integration.sh stages the Debian packages there)',
          ),
        );
      }
      // A kubeadm plan whose node names are the emulated lab's: lin1 is the same VM in both.
      const plan = kubeadmPlan({ windows: false });
      await writeStandInImages(runner, cache, componentVersions(plan));
      const check = new LinuxStepsCheck({
        runner,
        plan,
        target: labTarget(env(), 'libvirt-emulated', plan, 'lin1'),
        cache,
        stateDir: join(env().labHome, 'linux-steps'),
        // The emulated dataplane's pods keep running in the VM and write their own state.
        volatile: ['/var/lib/hybrid-lab'],
      });
      for (const [what, probe] of Object.entries(NO_WAY_OUT)) {
        const result = await check.root(probe, false);
        expect(result.exitCode, `${what} from lin1:\n${result.stdout}`).to.not.equal(0);
      }
      try {
        await check.firstRun();
        await check.secondRun();
        await check.kubernetesStops();
      } catch (error) {
        process.stdout.write(`${check.logTail()}\n`);
        throw error;
      } finally {
        for (const [key, s] of Object.entries(check.seconds)) timings[`linuxSteps.${key}`] = s;
      }
    });

    it('goes down leaving no domain, network, volume or process of the lab', async function () {
      ok(
        await timed('down', () => lab(runner, env(), ['down', '--lab', 'libvirt-emulated'])),
        'lab down',
      );
      expect(await leftovers(runner, env(), labId)).to.deep.equal([]);
      for (const uri of URIS(env()))
        expect(await virshMentions(runner, uri, labId), uri).to.deep.equal([]);
    });
  });

  describe('a harness killed during up', function () {
    const labId = 'hl-libvirt-reap';

    it('leaves pieces that lab reap removes: no domain, volume, network or process', async function () {
      const spec = itSpec(env(), 'libvirt-reap', 2);
      const log = join(env().labHome, 'libvirt-reap-up.log');
      const harness = await labUpInBackground(runner, env(), spec, log);
      const domain = await pollUntil(
        'a domain of the lab',
        async () => {
          if (!processAlive(harness.pid))
            throw new Error(`lab up ended early:\n${readFileSync(log, 'utf8')}`);
          // A node's domain, not the KVM probe's (transient, gone with its virsh).
          const domains = (await new Virsh(runner, 'qemu:///system').labResources(labId)).filter(
            (r) => r.kind === 'domain' && /_(cp1|lin1)$/.test(r.name),
          );
          return domains[0];
        },
        { timeoutMs: 600_000, intervalMs: 1000 },
      );
      process.kill(harness.pid, 'SIGKILL');
      await harness.exited;
      const pieces = await leftovers(runner, env(), labId);
      expect(pieces, 'what the killed up left').to.include(`domain ${domain.name}`);
      expect(labProcesses(labId), 'vagrant still running after the harness died').to.not.be.empty;
      const reap = await timed('reap', () => lab(runner, env(), ['reap', '--lab', 'libvirt-reap']));
      ok(reap, 'lab reap');
      expect(reap.stdout).to.match(/reaped \d+ resources/);
      expect(await leftovers(runner, env(), labId)).to.deep.equal([]);
      for (const uri of URIS(env()))
        expect(await virshMentions(runner, uri, labId), uri).to.deep.equal([]);
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
