/** How a command reaches a node that is a network namespace: `ip netns exec <node-ns>` through the runner. */
import { CommandError } from '../errors.ts';
import type { CommandRunner, RunOptions, RunResult } from '../exec/command-runner.ts';
import type { NodeShell } from './node-shell.ts';

export class NetnsNodeShell implements NodeShell {
  constructor(
    readonly node: string,
    /** The node's network namespace. */
    readonly namespace: string,
    private readonly runner: CommandRunner,
  ) {}

  async exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    try {
      return await this.runner.run('ip', ['netns', 'exec', this.namespace, ...argv], options);
    } catch (error) {
      throw CommandError.onNode(error, this.node);
    }
  }
}
