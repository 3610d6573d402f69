/**
 * A disposable Debian bookworm machine without a VM: a debootstrap'd root filesystem booted with
 * systemd-nspawn (systemd as PID 1, no network but loopback). Commands enter it with nsenter;
 * SSH reaches it without any network through `ProxyCommand nsenter ... sshd -i`, so the real
 * provisioning code (ssh, scp) can drive it where no VM can run.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BackgroundProcess,
  CommandRunner,
  RunOptions,
  RunResult,
} from '../exec/command-runner.ts';
import { ProvisionError } from '../provision/provision-error.ts';
import type { SshTarget } from '../remote/ssh-node-shell.ts';
import { STAGE, type ProvisionShell } from '../provision/step-runner.ts';
import { debianMirror, type DebianRootRecipe } from './debian-root.ts';

/** The sandbox's root: minbase plus what a Vagrant Debian box has and the scripts rely on. */
export const SANDBOX_ROOT: DebianRootRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  include: [
    'systemd',
    'systemd-sysv',
    'dbus',
    'kmod',
    'procps',
    'iproute2',
    'sudo',
    'openssh-server',
  ],
  mirror: debianMirror(),
};

export class DebianSandbox implements ProvisionShell, AsyncDisposable {
  /** Commands run as root in the container; files are copied into its own root filesystem. */
  readonly root = true;
  readonly hostFiles = false;
  #process: BackgroundProcess | undefined;
  #stopped = false;

  private constructor(
    readonly node: string,
    /** Holds this sandbox's copy of the root filesystem and its console log. */
    readonly workDir: string,
    private readonly runner: CommandRunner,
    private leader = 0,
  ) {}

  get rootfs(): string {
    return join(this.workDir, 'rootfs');
  }

  /** Copies `pristine`, boots it and waits for systemd; `artifacts` (if given) appears read-only at the node's cache path. */
  static async start(options: {
    runner: CommandRunner;
    node: string;
    pristine: string;
    artifacts?: string;
    parentDir: string;
  }): Promise<DebianSandbox> {
    const work = mkdtempSync(join(options.parentDir, `hl-sandbox-${options.node}-`));
    const box = new DebianSandbox(options.node, work, options.runner);
    try {
      await options.runner.run('cp', ['-a', options.pristine, box.rootfs], {
        timeoutMs: 10 * 60_000,
      });
      const bind: string[] = [];
      if (options.artifacts !== undefined) {
        mkdirSync(join(box.rootfs, STAGE.linux, 'artifacts'), { recursive: true });
        bind.push(`--bind-ro=${options.artifacts}:${STAGE.linux}/artifacts`);
      }
      // As a Vagrant box does: the node's name resolves (sudo asks).
      writeFileSync(join(box.rootfs, 'etc', 'hostname'), `${options.node}\n`);
      appendFileSync(join(box.rootfs, 'etc', 'hosts'), `127.0.1.1 ${options.node}\n`);
      box.#process = await options.runner.spawn(
        'systemd-nspawn',
        [
          '-D',
          box.rootfs,
          '-b',
          '-q',
          '--private-network',
          '--register=no',
          '--keep-unit',
          `--machine=hl-sandbox-${options.node}`,
          `--hostname=${options.node}`,
          ...bind,
        ],
        { logFile: join(work, 'console.log') },
      );
      await box.#waitForSystemd();
      return box;
    } catch (error) {
      await box.stop();
      throw error;
    }
  }

  async #waitForSystemd(): Promise<void> {
    const nspawn = this.#process!.pid;
    for (let i = 0; i < 120; i++) {
      const children = `/proc/${nspawn}/task/${nspawn}/children`;
      const pid = existsSync(children)
        ? Number(readFileSync(children, 'utf8').trim().split(/\s+/)[0])
        : 0;
      if (pid > 0) {
        this.leader = pid;
        const state = await this.exec(['systemctl', 'is-system-running'], {
          check: false,
          timeoutMs: 10_000,
        });
        if (/^(running|degraded)/.test(state.stdout.trim())) return;
      }
      await sleep(1000);
    }
    throw new ProvisionError('the sandbox did not boot within 120 s', {
      node: this.node,
      step: 'boot',
      hint: `console: ${join(this.workDir, 'console.log')}`,
    });
  }

  /**
   * Adds a sudo-capable login `user` with `publicKey` (as a Vagrant box has) and returns how ssh
   * reaches it: sshd in inetd mode inside the sandbox, spoken to over the ProxyCommand's pipes.
   */
  async sshTarget(user: string, publicKey: string, identityFile: string): Promise<SshTarget> {
    const setup = [
      `id -u ${user} >/dev/null 2>&1 || useradd -m -s /bin/bash ${user}`,
      `install -d -m 700 -o ${user} -g ${user} /home/${user}/.ssh`,
      `cat > /home/${user}/.ssh/authorized_keys`,
      `chown ${user}: /home/${user}/.ssh/authorized_keys && chmod 600 /home/${user}/.ssh/authorized_keys`,
      `echo '${user} ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/${user} && chmod 440 /etc/sudoers.d/${user}`,
      'mkdir -p /run/sshd',
    ].join(' && ');
    await this.exec(['bash', '-c', setup], { input: publicKey });
    return {
      node: this.node,
      host: this.node,
      port: 22,
      user,
      identityFile,
      proxyCommand: `nsenter --target ${this.leader} --all -- /usr/sbin/sshd -i`,
    };
  }

  /** Runs argv inside the sandbox (every namespace of its PID 1). */
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return this.runner.run(
      'nsenter',
      ['--target', String(this.leader), '--all', '--', ...argv],
      options,
    );
  }

  /** Copies local files or folders into a folder of the sandbox. */
  upload(localPaths: readonly string[], remoteDir: string): Promise<RunResult> {
    for (const path of localPaths) {
      const name = path.split('/').at(-1)!;
      cpSync(path, join(this.rootfs, remoteDir, name), { recursive: true });
    }
    return Promise.resolve({
      command: 'cp',
      exitCode: 0,
      stdout: '',
      stderr: '',
      durationMs: 0,
      timedOut: false,
    });
  }

  /** Powers the sandbox off (by the nspawn PID this object started) and removes its files. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const nspawn = this.#process;
    if (nspawn !== undefined) {
      if (this.leader > 0)
        await this.exec(['systemctl', 'poweroff'], { check: false, timeoutMs: 10_000 });
      await Promise.race([nspawn.exited, sleep(30_000)]);
      await nspawn.stop();
      // PID 1 of the sandbox is ours; killing it ends everything in its PID namespace.
      const comm = `/proc/${this.leader}/comm`;
      if (this.leader > 0 && existsSync(comm) && readFileSync(comm, 'utf8').trim() === 'systemd') {
        process.kill(this.leader, 'SIGKILL');
      }
    }
    rmSync(this.workDir, { recursive: true, force: true });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
