/**
 * One Vagrant project per hypervisor: `.lab/<name>/<hypervisor>/` with the project file the
 * Vagrantfile reads; vagrant runs with the lab id in its environment so a reaper finds it.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import type { CommandRunner } from '../../exec/command-runner.ts';
import { LAB_ID_ENV } from '../../exec/lab-processes.ts';
import { VAGRANTFILE } from './repo-paths.ts';

/** What vagrant/Vagrantfile reads besides the plan (HL_PROJECT). */
export interface ProjectFile {
  hypervisor: string;
  driver: 'kvm' | 'qemu';
  managementNetwork: string;
  managementCidr: string;
  /** The lab network to attach to (private mode); bridge mode uses the plan's bridge. */
  labNetwork: string | null;
  /** Where each VM's serial console is logged, on the hypervisor host. */
  consoleLogDir: string;
  bootTimeoutSeconds: number;
}

const DESTROY_TIMEOUT_MS = 900_000;

export class VagrantProject {
  constructor(
    private readonly runner: CommandRunner,
    readonly dir: string,
    readonly planFile: string,
    readonly labId: string,
  ) {}

  get projectFile(): string {
    return join(this.dir, 'project.json');
  }

  /** The environment every vagrant call of this project gets. */
  env(): Record<string, string> {
    return {
      VAGRANT_CWD: this.dir,
      VAGRANT_VAGRANTFILE: VAGRANTFILE,
      VAGRANT_DEFAULT_PROVIDER: 'libvirt',
      VAGRANT_CHECKPOINT_DISABLE: '1',
      VAGRANT_NO_COLOR: '1',
      HL_PLAN: this.planFile,
      HL_PROJECT: this.projectFile,
      [LAB_ID_ENV]: this.labId,
    };
  }

  write(project: ProjectFile): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.projectFile, `${JSON.stringify(project, null, 2)}\n`);
  }

  /** `vagrant up` of every machine, output appended to logFile; fails with the log's tail. */
  async up(logFile: string, parallel = true): Promise<void> {
    const args = ['up', '--provider', 'libvirt', ...(parallel ? [] : ['--no-parallel'])];
    const proc = await this.runner.spawn('vagrant', args, { logFile, env: this.env() });
    const result = await proc.exited;
    if (result.exitCode !== 0) {
      throw new ProviderError(
        `vagrant up in ${this.dir} exited ${result.exitCode}:\n${logTail(logFile)}`,
        { hint: `full output: ${logFile}` },
      );
    }
  }

  /** True when vagrant can evaluate the project (its plan and project file exist). */
  readable(): boolean {
    return existsSync(this.planFile) && existsSync(this.projectFile);
  }

  /** `vagrant destroy -f`; output appended to logFile. */
  async destroy(logFile: string): Promise<void> {
    const result = await this.runner.run('vagrant', ['destroy', '-f'], {
      env: this.env(),
      timeoutMs: DESTROY_TIMEOUT_MS,
      check: false,
    });
    appendFileSync(logFile, `${result.stdout}${result.stderr}`);
    if (result.exitCode !== 0) {
      throw new ProviderError(
        `vagrant destroy in ${this.dir} exited ${result.exitCode}:\n${logTail(logFile)}`,
      );
    }
  }

  /** `vagrant ssh-config` of every machine of the project. */
  async sshConfig(): Promise<string> {
    return (
      await this.runner.run('vagrant', ['ssh-config'], { env: this.env(), timeoutMs: 120_000 })
    ).stdout;
  }
}

// eslint-disable-next-line no-control-regex -- terminal escapes are control characters by definition
const ANSI_ESCAPE = /\u001b\[[0-9;]*[A-Za-z]/g;

/** The last lines of a vagrant log, progress bars dropped. */
export function logTail(file: string, count = 25): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '(no output)';
  }
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(ANSI_ESCAPE, '').slice(l.lastIndexOf('\r') + 1))
    .filter((l) => l.trim() !== '')
    .slice(-count)
    .join('\n');
}
