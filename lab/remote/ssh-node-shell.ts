/** The one NodeShell over OpenSSH (ssh/scp through the CommandRunner), for Linux and Windows nodes. */
import { CommandError } from '../errors.ts';
import type { CommandRunner, RunOptions, RunResult } from '../exec/command-runner.ts';
import type { NodeShell } from './node-shell.ts';
import { commandLine, type ShellFlavour } from './quote.ts';

/** How to reach one node with explicit options: what `vagrant ssh-config` prints, or the plan's address. */
export interface SshTarget {
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

/** Where ssh finds the node: a Host of an ssh_config file (the lab's, with its masters), or a target. */
export type SshEndpoint = { configFile: string; alias: string } | { target: SshTarget };

export interface SshShellOptions {
  flavour: ShellFlavour;
  /** Run every command as root through `sudo -n` (Linux guests with a sudo-capable login). */
  become?: boolean;
  /** Bound for commands that give none; a command that hangs on a dead VM must not hang the harness. */
  defaultTimeoutMs?: number;
}

/** Options every call with an explicit target gets: lab VMs are recreated often, so host keys are not pinned. */
export function sshOptions(target: SshTarget, connectTimeoutS = 10): string[] {
  return [
    ...['BatchMode=yes', 'StrictHostKeyChecking=no', 'UserKnownHostsFile=/dev/null'],
    ...['LogLevel=ERROR', 'IdentitiesOnly=yes', `ConnectTimeout=${connectTimeoutS}`],
    'ServerAliveInterval=15',
    ...(target.proxyCommand === undefined ? [] : [`ProxyCommand=${target.proxyCommand}`]),
  ]
    .flatMap((option) => ['-o', option])
    .concat(['-i', target.identityFile]);
}

export class SshNodeShell implements NodeShell {
  /** A VM has its own files: everything it needs is uploaded. */
  readonly hostFiles = false;

  constructor(
    readonly node: string,
    readonly endpoint: SshEndpoint,
    private readonly runner: CommandRunner,
    readonly options: SshShellOptions,
  ) {}

  /** Commands run as root: through `sudo -n` (become), or a root login. */
  get root(): boolean {
    const { endpoint } = this;
    return (
      this.options.become === true || ('target' in endpoint && endpoint.target.user === 'root')
    );
  }

  /** ssh's arguments for a remote command: argv becomes one line quoted for the remote shell. */
  sshArgv(argv: readonly string[]): string[] {
    const full = this.options.become === true ? ['sudo', '-n', '--', ...argv] : argv;
    return [...this.#destination(), '--', commandLine(full, this.options.flavour)];
  }

  async exec(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const timeout = this.options.defaultTimeoutMs;
    try {
      return await this.runner.run('ssh', this.sshArgv(argv), {
        ...(timeout === undefined ? {} : { timeoutMs: timeout }),
        ...options,
      });
    } catch (error) {
      throw CommandError.onNode(error, this.node);
    }
  }

  /** Copies local files (or folders, recursively) into a remote folder. */
  upload(
    localPaths: readonly string[],
    remoteDir: string,
    options?: RunOptions,
  ): Promise<RunResult> {
    const dest = this.options.flavour === 'powershell' ? remoteDir.replace(/\\/g, '/') : remoteDir;
    const { endpoint } = this;
    const args =
      'configFile' in endpoint
        ? ['-F', endpoint.configFile, '-r', '-p', ...localPaths, `${endpoint.alias}:${dest}`]
        : [
            ...sshOptions(endpoint.target),
            ...['-P', String(endpoint.target.port), '-r', '-p'],
            ...localPaths,
            `${endpoint.target.user}@${endpoint.target.host}:${dest}`,
          ];
    return this.runner.run('scp', args, options);
  }

  /** `lab ssh NODE`: an interactive login on the node. */
  interactiveArgv(): string[] {
    return ['ssh', ...this.#destination()];
  }

  #destination(): string[] {
    const { endpoint } = this;
    if ('configFile' in endpoint) return ['-F', endpoint.configFile, endpoint.alias];
    const { target } = endpoint;
    return [...sshOptions(target), '-p', String(target.port), `${target.user}@${target.host}`];
  }
}
