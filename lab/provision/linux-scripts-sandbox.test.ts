/**
 * The Linux node steps for real, twice, in a booted Debian bookworm sandbox (systemd-nspawn, no
 * network), driven by the real provisioner over ssh/scp: the artifact cache is filled on this
 * host by stage-debian-packages.sh and uploaded by the harness; kernel settings, containerd +
 * runc + CNI plugins installed from it, image tarballs imported; then the Kubernetes step stops
 * at "artifact missing". Slow (minutes): runs with HL_PROVISION_SANDBOX=1. The same checks run
 * on a libvirt VM in lab/providers/libvirt/libvirt-integration.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { componentVersions } from './component-versions.ts';
import { ensureDebianRoot } from '../testing/debian-root.ts';
import { DebianSandbox, SANDBOX_ROOT } from '../testing/debian-sandbox.ts';
import {
  LinuxStepsCheck,
  stageDebianPackages,
  writeStandInImages,
} from '../testing/linux-steps-check.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { missing, optIn, skipIf, type Skip } from '../testing/skip.ts';

const CACHE = process.env.HL_SANDBOX_CACHE ?? '/var/cache/hybrid-lab/sandbox';
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Why the sandbox cannot run here, or undefined. */
function unavailable(): Skip | undefined {
  const optedOut = optIn(
    'HL_PROVISION_SANDBOX',
    'npm run test:provision-sandbox',
    'builds a Debian rootfs, takes minutes',
  );
  if (optedOut !== undefined) return optedOut;
  if (process.getuid?.() !== 0) return missing('needs root (systemd-nspawn)');
  const absent = [
    'debootstrap',
    'systemd-nspawn',
    'nsenter',
    'apt-get',
    'dpkg-scanpackages',
  ].filter((c) => !has(c));
  return absent.length > 0
    ? missing(
        `missing ${absent.join(', ')} (apt-get install debootstrap systemd-container dpkg-dev openssh-client)`,
      )
    : undefined;
}

describe('Linux node steps in a Debian sandbox over SSH (no network, artifact cache only)', function () {
  this.timeout(45 * 60_000);
  const reason = unavailable();
  const runner = new ExecaRunner(silentLogger());
  const plan = kubeadmPlan();
  const cp = plan.nodes[0]!;
  let work: string | undefined;
  let sandbox: DebianSandbox | undefined;
  let check: LinuxStepsCheck | undefined;

  before(async function () {
    skipIf(this, reason);
    mkdirSync(CACHE, { recursive: true });
    const run = mkdtempSync(join(CACHE, 'run-'));
    work = run;
    const cache = join(run, 'artifacts');
    await stageDebianPackages(runner, cache);
    await writeStandInImages(runner, cache, componentVersions(plan));
    const pristine = await ensureDebianRoot(runner, join(CACHE, 'roots'), SANDBOX_ROOT);
    sandbox = await DebianSandbox.start({
      runner,
      node: cp.name,
      pristine,
      parentDir: run,
    });
    const key = join(run, 'id_ed25519');
    await runner.run('ssh-keygen', [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      'hybrid-lab sandbox',
      '-f',
      key,
    ]);
    const target = await sandbox.sshTarget('vagrant', readFileSync(`${key}.pub`, 'utf8'), key);
    check = new LinuxStepsCheck({
      runner,
      plan,
      target,
      cache,
      stateDir: join(run, 'state'),
      // Its only network is loopback; the libvirt integration runs the route on a VM's lab NIC.
      without: { 'external-route': 'no lab NIC in a sandbox with loopback only' },
    });
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && check !== undefined) console.log(check.logTail());
  });

  after(async () => {
    await sandbox?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('has no network but loopback', async () => {
    const links = await sandbox!.exec(['ip', '-o', 'link']);
    expect(
      links.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(':')[1]!.trim()),
    ).to.deep.equal(['lo']);
  });

  it('first run: uploads the cache, sets kernel settings, installs containerd + runc + CNI plugins from it, imports images', async () => {
    await check!.firstRun();
  });

  it('second run: nothing uploaded, every step reports no change, the machine is the same', async () => {
    await check!.secondRun();
  });

  it('the Kubernetes step stops at a clear "artifact missing" and changes nothing', async () => {
    await check!.kubernetesStops();
  });
});
