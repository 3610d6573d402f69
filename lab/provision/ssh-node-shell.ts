/** A NodeShell over OpenSSH (ssh/scp through the CommandRunner), for Linux and Windows VMs. */
import type { CommandRunner, RunOptions, RunResult } from '../exec/command-runner.ts';
import type { NodeShell } from '../providers/lab-provider.ts';

/** How to reach one node over SSH: what `vagrant ssh-config` prints, or the plan's address. */
export interface ProvisionTarget {
  /** The plan's node name. */
  node: string;
  host: string;
  port: number;
  user: string;
  /** Private key file; never read by the harness, only passed to ssh. */
  identityFile: string;
  /** ssh's ProxyCommand, e.g. to reach VMs behind a remote hypervisor. */
  proxyCommand?: string;
}

/** The remote login shell: posix (Linux) or PowerShell (Windows OpenSSH, DefaultShell). */
export type RemoteShell = 'posix' | 'powershell';

function quotePosix(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function quotePowershell(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,\\-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "''")}'`;
}

/** Options every ssh/scp call gets: lab VMs are recreated often, so host keys are not pinned. */
export function sshOptions(target: ProvisionTarget, connectTimeoutS = 10): string[] {
  return [
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `ConnectTimeout=${connectTimeoutS}`,
    '-o',
    'ServerAliveInterval=15',
    '-i',
    target.identityFile,
    ...(target.proxyCommand === undefined ? [] : ['-o', `ProxyCommand=${target.proxyCommand}`]),
  ];
}

export class SshNodeShell implements NodeShell {
  readonly node: string;

  constructor(
    readonly target: ProvisionTarget,
    readonly shell: RemoteShell,
    private readonly runner: CommandRunner,
  ) {
    this.node = target.node;
  }

  /** ssh joins the remote argv with spaces for the remote shell, so each arg is quoted for it. */
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    const quote = this.shell === 'posix' ? quotePosix : quotePowershell;
    const remote = argv.map(quote);
    return this.runner.run(
      'ssh',
      [
        ...sshOptions(this.target),
        '-p',
        String(this.target.port),
        `${this.target.user}@${this.target.host}`,
        '--',
        ...remote,
      ],
      options,
    );
  }

  /** Copies local files (or folders, recursively) into a remote folder. */
  upload(
    localPaths: readonly string[],
    remoteDir: string,
    options?: RunOptions,
  ): Promise<RunResult> {
    const dest = this.shell === 'powershell' ? remoteDir.replace(/\\/g, '/') : remoteDir;
    return this.runner.run(
      'scp',
      [
        ...sshOptions(this.target),
        '-P',
        String(this.target.port),
        '-r',
        '-p',
        ...localPaths,
        `${this.target.user}@${this.target.host}:${dest}`,
      ],
      options,
    );
  }
}
