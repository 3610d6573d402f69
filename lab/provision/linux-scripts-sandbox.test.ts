/**
 * The Linux node steps for real, twice, in a booted Debian bookworm sandbox (systemd-nspawn, no
 * network), driven by the real provisioner over ssh/scp: the artifact cache is filled on this
 * host by stage-debian-packages.sh and uploaded by the harness; kernel settings, containerd +
 * runc + CNI plugins installed from it, image tarballs imported; then the Kubernetes step stops
 * at "artifact missing". Slow (minutes): runs with HL_PROVISION_SANDBOX=1.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { PlainProgress } from '../log/progress.ts';
import { imageTarball } from './artifact-catalogue.ts';
import { componentVersions, flannelImages } from './component-versions.ts';
import { DebianSandbox, ensureBookwormRootfs } from './debian-sandbox.ts';
import { LabProvisioner } from './lab-provisioner.ts';
import { SCRIPTS_DIR } from './node-stage.ts';
import { writeOciArchive } from './oci-archive.ts';
import { ProvisionError } from './provision-error.ts';
import { provisionSettingsOf } from './provision-settings.ts';
import { linuxBaseSteps } from './provision-steps.ts';
import { kubeadmPlan } from './provision-test-support.ts';
import { SshNodeShell } from './ssh-node-shell.ts';

const CACHE = process.env.HL_SANDBOX_CACHE ?? '/var/cache/hybrid-lab/sandbox';
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Why the sandbox cannot run here, or undefined. */
function unavailable(): string | undefined {
  if (process.env.HL_PROVISION_SANDBOX !== '1')
    return 'set HL_PROVISION_SANDBOX=1 (builds a Debian rootfs, takes minutes)';
  if (process.getuid?.() !== 0) return 'needs root (systemd-nspawn)';
  const missing = [
    'debootstrap',
    'systemd-nspawn',
    'nsenter',
    'apt-get',
    'dpkg-scanpackages',
  ].filter((c) => !has(c));
  return missing.length > 0
    ? `missing ${missing.join(', ')} (apt-get install debootstrap systemd-container dpkg-dev openssh-client)`
    : undefined;
}

const VOLATILE = String.raw`\( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp -o -path /var/log -o -path /var/cache -o -path /var/lib/containerd -o -path /var/lib/systemd -o -path /opt/hybrid-lab/artifacts -o -path /opt/hybrid-lab/scripts -o -path /opt/hybrid-lab/config \) -prune`;
/** What a re-run must leave alone (the harness re-stages scripts and config, so not those): files (type, mode, size, mtime, link), sysctls, services, images. */
const STATE = `find / -xdev ${VOLATILE} -o ! -path /opt/hybrid-lab -printf '%p %y %m %s %T@ %l\\n' | sort | sha256sum; sysctl -n net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables; systemctl is-active containerd; ctr -n k8s.io images list -q`;
/** Every path written since /run/hl-mark was touched. */
const MODIFIED = `find / -xdev ${VOLATILE} -o -newer /run/hl-mark ! -path /opt/hybrid-lab -print`;

describe('Linux node steps in a Debian sandbox over SSH (no network, artifact cache only)', function () {
  this.timeout(45 * 60_000);
  const reason = unavailable();
  const runner = new ExecaRunner(silentLogger());
  const plan = kubeadmPlan();
  const cp = plan.nodes[0]!;
  const versions = componentVersions(plan);
  let work: string | undefined;
  let cache = '';
  let sandbox: DebianSandbox | undefined;
  let provisioner: LabProvisioner | undefined;
  const lines: string[] = [];

  before(async function () {
    if (reason !== undefined) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
    mkdirSync(CACHE, { recursive: true });
    const run = mkdtempSync(join(CACHE, 'run-'));
    work = run;
    cache = join(run, 'artifacts');
    await runner.run('bash', [join(SCRIPTS_DIR, 'linux', 'stage-debian-packages.sh'), cache], {
      timeoutMs: 10 * 60_000,
    });
    // No registry here: stand-in images under flannel's names, so the import runs for real.
    for (const ref of Object.values(flannelImages(versions))) {
      mkdirSync(join(cache, 'images', 'linux'), { recursive: true });
      await writeOciArchive(
        runner,
        ref,
        { 'stand-in.txt': `${ref}\n` },
        join(cache, imageTarball('linux', ref)),
      );
    }
    await ensureBookwormRootfs(runner, join(CACHE, 'bookworm-rootfs'));
    sandbox = await DebianSandbox.start({
      runner,
      node: cp.name,
      pristine: join(CACHE, 'bookworm-rootfs'),
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
    const log = silentLogger();
    provisioner = new LabProvisioner(plan, {
      runner,
      log,
      progress: new PlainProgress(log, (l) => lines.push(l)),
      stateDir: join(run, 'state'),
      settings: { ...provisionSettingsOf({}), artifacts: { kind: 'dir', dir: cache } },
      versions,
      kubeadmImages: [],
      shells: new Map([[cp.name, { shell: new SshNodeShell(target, 'posix', runner), target }]]),
      sshTimeoutMs: 60_000,
    });
  });

  afterEach(function () {
    const file = provisioner?.logs.file(cp.name);
    if (this.currentTest?.state === 'failed' && file !== undefined && existsSync(file)) {
      console.log(readFileSync(file, 'utf8').split('\n').slice(-60).join('\n'));
    }
  });

  after(async () => {
    await sandbox?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  const base = linuxBaseSteps();
  const real = base.filter((s) => s.id !== 'kubernetes');
  const kubernetes = base.find((s) => s.id === 'kubernetes')!;
  /** Uploads over ssh/scp, runs the steps, returns the changes each reported. */
  const provisionOnce = async () => {
    const from = provisioner!.reports.length;
    await provisioner!.prepare(cp);
    await provisioner!.run(cp, real);
    return Object.fromEntries(provisioner!.reports.slice(from).map((r) => [r.step, r.changed]));
  };
  let afterFirst = '';

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
    const changes = await provisionOnce();
    expect(changes.artifacts).to.equal(
      readdirSync(join(cache, 'debian/bookworm/amd64')).length + 2,
    );
    expect(changes.kernel).to.be.greaterThan(0);
    expect(changes.containerd).to.be.greaterThan(0);
    expect(changes.images).to.equal(2);
    const check = await sandbox!.exec([
      'bash',
      '-c',
      'dpkg-query -W containerd runc containernetworking-plugins >/dev/null && containerd config dump | grep -c "SystemdCgroup = true" && readlink /opt/cni/bin/bridge && ctr version >/dev/null && echo server-ok',
    ]);
    expect(check.stdout.trim().split('\n')).to.deep.equal([
      '1',
      '/usr/lib/cni/bridge',
      'server-ok',
    ]);
    afterFirst = (await sandbox!.exec(['bash', '-c', STATE])).stdout;
    expect(afterFirst).to.include('active').and.include(flannelImages(versions).flannel);
  });

  it('second run: nothing uploaded, every step reports no change, the machine is the same', async () => {
    await sandbox!.exec(['touch', '/run/hl-mark']);
    const changes = await provisionOnce();
    expect(changes).to.deep.equal({ artifacts: 0, kernel: 0, containerd: 0, images: 0 });
    expect(
      (await sandbox!.exec(['bash', '-c', MODIFIED])).stdout,
      'paths written by the second run',
    ).to.equal('');
    expect((await sandbox!.exec(['bash', '-c', STATE])).stdout).to.equal(afterFirst);
    expect(
      lines
        .map((l) => l.replace(/^\S+ /, ''))
        .filter((l) => l.startsWith(`${cp.name} `))
        .slice(-4),
    ).to.deep.equal(
      ['artifacts', 'kernel', 'containerd', 'images'].map((s) => `${cp.name} ${s}: no change`),
    );
  });

  it('the Kubernetes step stops at a clear "artifact missing" and changes nothing', async () => {
    const before = (await sandbox!.exec(['bash', '-c', STATE])).stdout;
    await sandbox!.exec(['touch', '/run/hl-mark']);
    const error = await provisioner!.run(cp, [kubernetes]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProvisionError);
    expect((error as ProvisionError).message).to.include('exited 3');
    expect((error as ProvisionError).message).to.include(
      `artifact missing: kubernetes/v1.30.4/linux/amd64/kubeadm for Kubernetes v1.30.4 — stage it in ${cache}`,
    );
    expect((await sandbox!.exec(['bash', '-c', MODIFIED])).stdout).to.equal('');
    expect((await sandbox!.exec(['bash', '-c', STATE])).stdout).to.equal(before);
  });
});
