/** How a command reaches a VM node: ssh with the lab's ssh_config, as root through sudo. */
import { CommandError } from '../../errors.ts';
import type { CommandRunner, RunOptions, RunResult } from '../../exec/command-runner.ts';
import type { NodeShell } from '../lab-provider.ts';
import { shellQuote } from './ssh-config.ts';

/** A command that hangs on a dead VM must not hang the harness. */
const DEFAULT_TIMEOUT_MS = 300_000;

export class SshNodeShell implements NodeShell {
  constructor(
    readonly node: string,
    /** The lab's ssh_config, with a Host entry per node. */
    readonly configFile: string,
    private readonly runner: CommandRunner,
    /** Linux guests run commands as root through sudo; Windows (PowerShell) as they are. */
    private readonly sudo = true,
  ) {}

  /** argv of ssh for a remote command line (quoted for the guest's shell). */
  sshArgv(argv: readonly string[]): string[] {
    const command = [...(this.sudo ? ['sudo', '-n', '--'] : []), ...argv].map(shellQuote).join(' ');
    return ['-F', this.configFile, this.node, '--', command];
  }

  async exec(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    try {
      return await this.runner.run('ssh', this.sshArgv(argv), {
        timeoutMs: DEFAULT_TIMEOUT_MS,
        ...options,
      });
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      throw new CommandError(error.command, error.exitCode, error.output, error.timedOut, {
        cause: error,
        node: this.node,
      });
    }
  }

  /** `lab ssh NODE`: an interactive login on the node. */
  interactiveArgv(): string[] {
    return ['ssh', '-F', this.configFile, this.node];
  }
}
