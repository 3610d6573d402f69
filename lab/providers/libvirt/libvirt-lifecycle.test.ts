import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ProviderError } from '../../errors.ts';
import type { BackgroundProcess, RunResult } from '../../exec/command-runner.ts';
import { ExecaRunner } from '../../exec/execa-runner.ts';
import { processAlive } from '../../exec/process-alive.ts';
import { RecordingRunner } from '../../testing/recording-runner.ts';
import { silentLogger } from '../../log/logger.ts';
import { PlainProgress } from '../../log/progress.ts';
import type { ProviderContext } from '../lab-provider.ts';
import { chooseDriver } from './kvm-probe.ts';
import {
  killLabProcesses,
  labIdInEnviron,
  labProcesses,
  stampedProcesses,
} from '../../exec/lab-processes.ts';
import { LibvirtProvider } from './libvirt-provider.ts';
import { libvirtPreflight } from './libvirt-preflight.ts';
import { libvirtPlan } from '../../testing/libvirt-plans.ts';
import { VagrantLogWatcher } from './vagrant-log-watcher.ts';
import { Virsh } from './virsh.ts';

const quiet = () => new PlainProgress(silentLogger(), () => undefined);

function context(runner: RecordingRunner, stateDir: string): ProviderContext {
  return { runner, log: silentLogger(), stateDir, progress: quiet() };
}

describe('libvirt: choosing the driver', function () {
  const dir = mkdtempSync(join(tmpdir(), 'hl-kvm-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("uses kvm when the probe domain starts, qemu with QEMU's own error when it does not", async function () {
    const works = new RecordingRunner();
    expect(
      await chooseDriver(
        new Virsh(works, 'qemu:///system'),
        'hl-a_kvmprobe-hv1',
        join(dir, 'p.xml'),
      ),
    ).to.deep.equal({
      driver: 'kvm',
      reason: 'a KVM probe domain started',
    });
    expect(works.lines().at(-2)).to.match(/create --autodestroy .*p\.xml$/);
    // Not left to --autodestroy alone: over qemu+ssh it acts late and the probe looked like a leftover.
    expect(works.lines().at(-1)).to.match(/destroy hl-a_kvmprobe-hv1$/);
    const broken = new RecordingRunner().on(/ create /, {
      exitCode: 1,
      stderr:
        'error: Failed to create domain from p.xml\nerror: internal error: qemu: error: failed to set MSR 0x10a to 0x69\n',
    });
    const choice = await chooseDriver(new Virsh(broken, 'qemu:///system'), 'p', join(dir, 'p.xml'));
    expect(choice.driver).to.equal('qemu');
    expect(choice.reason).to.match(/failed to set MSR 0x10a/);
    const noKvm = new RecordingRunner().on(/domcapabilities/, {
      exitCode: 1,
      stderr: 'error: invalid argument: KVM is not supported',
    });
    expect((await chooseDriver(new Virsh(noKvm, 'u'), 'p', join(dir, 'p.xml'))).reason).to.match(
      /offers no KVM/,
    );
    expect(await chooseDriver(new Virsh(noKvm, 'u'), 'p', join(dir, 'p.xml'), 'kvm')).to.include({
      driver: 'kvm',
    });
  });
});

describe('libvirt preflight', function () {
  it('names each missing thing once, with its fix', async function () {
    const runner = new RecordingRunner()
      .on(/^vagrant --version/, { stdout: 'Vagrant 2.3.4' })
      .on(/^vagrant plugin list/, { stdout: 'vagrant-share (2.0.0, global)' })
      .on(/^virsh .* version/, {
        exitCode: 1,
        stderr: 'error: failed to connect to the hypervisor\nerror: Failed to connect socket',
      })
      .on(/^vagrant box list/, { stdout: '1,,box-name,other/box\n1,,box-provider,libvirt\n' });
    const { problems } = await libvirtPreflight(runner, libvirtPlan(), () =>
      Promise.resolve('qemu'),
    );
    const what = problems.map((p) => p.what);
    expect(what).to.include('the vagrant-libvirt plugin is missing');
    expect(what.find((w) => w.startsWith('hypervisor hv1'))).to.match(
      /does not answer: error: Failed to connect socket/,
    );
    expect(what.find((w) => w.startsWith('box hybrid-lab/debian-12'))).to.match(/not added/);
    expect(problems.find((p) => p.what.startsWith('box'))!.fix).to.match(
      /vagrant\/boxes\/debian\/build\.sh/,
    );
  });

  it('refuses guests that do not fit the host memory under QEMU emulation', async function () {
    const runner = new RecordingRunner()
      .on(/^vagrant plugin list/, { stdout: 'vagrant-libvirt (0.11.2, system)' })
      .on(/capabilities/, { stdout: '<capabilities><host><uuid>u-1</uuid></host></capabilities>' })
      .on(/nodememstats/, {
        stdout: 'total : 8000000 KiB\nfree : 3000000 KiB\nbuffers: 0 KiB\ncached : 0 KiB\n',
      })
      .on(/^vagrant box list/, {
        stdout: '1,,box-name,hybrid-lab/debian-12\n1,,box-provider,libvirt\n',
      });
    const { problems, facts } = await libvirtPreflight(runner, libvirtPlan(), () =>
      Promise.resolve('qemu'),
    );
    expect(facts).to.deep.equal({ drivers: { hv1: 'qemu' }, hosts: { hv1: 'u-1' } });
    expect(problems.map((p) => p.what)).to.have.length(1);
    expect(problems[0]!.what).to.match(/has 2417 MiB to spare, the guests need about 4608 MiB/);
  });
});

class FailingUpRunner extends RecordingRunner {
  override spawn(
    file: string,
    args: readonly string[],
    options: { logFile?: string } = {},
  ): Promise<BackgroundProcess> {
    this.calls.push({ file, args: [...args], line: [file, ...args].join(' '), options: {} });
    if (options.logFile !== undefined)
      appendFileSync(
        options.logFile,
        '==> cp1: Creating domain with the following settings...\nAn error occurred: no space left\n',
      );
    const exited: Promise<RunResult> = Promise.resolve({
      command: file,
      exitCode: 1,
      stdout: '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
    });
    return Promise.resolve({ pid: 999_999, exited, stop: () => Promise.resolve() });
  }
}

describe('libvirt up, all or nothing', function () {
  let stateDir = '';
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'hl-libvirt-unit-'));
  });
  afterEach(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("removes the networks it created when vagrant up fails, and rethrows vagrant's error", async function () {
    const runner = new FailingUpRunner()
      .on(/^vagrant plugin list/, { stdout: 'vagrant-libvirt (0.11.2, system)' })
      .on(/^vagrant box list/, {
        stdout: '1,,box-name,hybrid-lab/debian-12\n1,,box-provider,libvirt\n',
      })
      .on(/hl-destroy-orphans/, {
        stdout: 'removed network hl-unit-a_lab\nremoved network hl-unit-a_mgmt-hv1\n',
      })
      .on(/nodememstats/, { stdout: 'free : 16000000 KiB\n' })
      .on(/ip -o -4 addr/, {
        stdout: '2: br0    inet 192.168.200.1/24 brd 192.168.200.255 scope global\n',
      });
    const provider = new LibvirtProvider(context(runner, stateDir));
    process.env.HL_LIBVIRT_DRIVER = 'qemu';
    const error = await provider
      .up(libvirtPlan())
      .catch((e: unknown) => e)
      .finally(() => delete process.env.HL_LIBVIRT_DRIVER);
    expect(error).to.be.instanceOf(ProviderError);
    expect(String(error)).to.match(/vagrant up in .* exited 1:[\s\S]*no space left/);
    const lines = runner.lines();
    const created = lines.findIndex((l) => /net-start hl-unit-a_mgmt-hv1/.test(l));
    const swept = lines.findIndex((l) =>
      /hl-destroy-orphans\.sh qemu:\/\/\/system hl-unit-a$/.test(l),
    );
    expect(created).to.be.greaterThan(-1);
    expect(swept, lines.join('\n')).to.be.greaterThan(created);
  });

  it('refuses a lab whose domains are still defined, but not for its own transient KVM probe', async function () {
    const upWith = async (listed: string) => {
      const runner = new FailingUpRunner()
        .on(/^vagrant plugin list/, { stdout: 'vagrant-libvirt (0.11.2, system)' })
        .on(/^vagrant box list/, {
          stdout: '1,,box-name,hybrid-lab/debian-12\n1,,box-provider,libvirt\n',
        })
        .on(/hl-lab-resources/, { stdout: listed })
        .on(/nodememstats/, { stdout: 'free : 16000000 KiB\n' })
        .on(/ip -o -4 addr/, {
          stdout: '2: br0    inet 192.168.200.1/24 brd 192.168.200.255 scope global\n',
        });
      process.env.HL_LIBVIRT_DRIVER = 'qemu';
      return new LibvirtProvider(context(runner, stateDir))
        .up(libvirtPlan())
        .catch((e: unknown) => String(e))
        .finally(() => delete process.env.HL_LIBVIRT_DRIVER);
    };
    expect(await upWith('domain hl-unit-a_cp1 hl-unit-a\n')).to.match(
      /already has domain hl-unit-a_cp1/,
    );
    // Past the check: it fails later, at vagrant up.
    expect(await upWith('domain hl-unit-a_kvmprobe-hv1 hl-unit-a\n')).to.match(/vagrant up in/);
  });

  it('attach says the lab is not up when its state is missing', async function () {
    const error = await new LibvirtProvider(context(new RecordingRunner(), stateDir))
      .attach(libvirtPlan())
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProviderError);
    expect(String(error)).to.match(/is not up/);
  });

  it('finds no lab and reaps nothing where no libvirtd answers', async function () {
    const runner = new RecordingRunner().on(/^virsh/, {
      exitCode: 1,
      stderr: 'error: failed to connect',
    });
    const provider = new LibvirtProvider(context(runner, join(stateDir, '_reaper')));
    // Only labs with stamped processes on this machine (a real lab may come and go meanwhile).
    const before = stampedProcesses().map((p) => p.labId);
    const ids = await provider.listLabIds();
    const after = stampedProcesses().map((p) => p.labId);
    expect(ids.filter((id) => !before.includes(id) && !after.includes(id))).to.deep.equal([]);
    // Never reap() without an id here: it would take a real lab that is up on this machine.
    expect(await provider.reap('hl-nosuchlab')).to.deep.equal([]);
    expect(runner.lines().filter((l) => l.includes('hl-destroy-orphans'))).to.deep.equal([]);
  });
});

describe('processes stamped with a lab id', function () {
  it('are found by their environment and killed by the reaper', async function () {
    expect(labIdInEnviron('A=1\0HL_LAB_ID=hl-x\0B=2\0')).to.equal('hl-x');
    const runner = new ExecaRunner(silentLogger());
    const proc = await runner.spawn('sleep', ['300'], { env: { HL_LAB_ID: 'hl-unitproc' } });
    expect(labProcesses('hl-unitproc')).to.deep.equal([proc.pid]);
    expect(labProcesses('hl-other')).to.not.include(proc.pid);
    const killed = await killLabProcesses(runner, 'hl-unitproc');
    expect(killed[0]).to.match(new RegExp(`killed 1 process\\(es\\) of hl-unitproc: ${proc.pid}`));
    await proc.exited;
    expect(processAlive(proc.pid)).to.equal(false);
  });

  it('are read from a /proc-like folder, unreadable entries skipped', function () {
    const proc = mkdtempSync(join(tmpdir(), 'hl-proc-'));
    for (const [pid, env] of [
      ['11', 'HL_LAB_ID=hl-a\0'],
      ['12', 'HL_LAB_ID=hl-b\0'],
      ['13', 'PATH=/bin\0'],
    ] as const) {
      mkdirSync(join(proc, pid));
      writeFileSync(join(proc, pid, 'environ'), env);
    }
    mkdirSync(join(proc, '14'));
    expect(labProcesses(undefined, proc).sort()).to.deep.equal([11, 12]);
    expect(labProcesses('hl-b', proc)).to.deep.equal([12]);
    rmSync(proc, { recursive: true, force: true });
  });
});

describe('following a vagrant log', function () {
  let dir = '';
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows each machine's milestones once and measures boot times", async function () {
    dir = mkdtempSync(join(tmpdir(), 'hl-vlog-'));
    const file = join(dir, 'vagrant.log');
    writeFileSync(file, '==> cp1: Starting domain.\n'); // an earlier run: not this run's
    const seen: string[] = [];
    const progress = new PlainProgress(silentLogger(), (line) => {
      seen.push(line.replace(/^\S+ /, ''));
    });
    const watcher = new VagrantLogWatcher(file, 'hv1', progress, 10_000).start();
    const booted = watcher.reached('booted');
    appendFileSync(
      file,
      '==> cp1: Starting domain.\nProgress: 5%\rProgress: 9%\r==> cp1: Waiting for machine to boot.\n',
    );
    watcher.poll();
    await new Promise((r) => setTimeout(r, 20));
    appendFileSync(
      file,
      '==> cp1: Machine booted and ready!\n==> cp1: Machine booted and ready!\n',
    );
    watcher.poll();
    await booted;
    watcher.stop();
    expect(seen).to.deep.equal(['hv1/cp1: starting', 'hv1/cp1: booting', 'hv1/cp1: booted']);
    expect(watcher.durations('starting', 'booted').cp1).to.be.greaterThan(0);
  });
});
