/** The one way the harness runs a command on a node, whatever reaches it (netns, SSH), and the wait for it to answer. */
import type { RunOptions, RunResult } from '../exec/command-runner.ts';
import { forCondition, type Wait } from '../wait/waits.ts';

/** Runs argv on one node: inside its namespaces, or over SSH on a VM. */
export interface NodeShell {
  readonly node: string;
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
}

/** The node answers a trivial command (after boot or reboot). */
export function forSsh(shell: NodeShell, timeoutMs: number, intervalMs = 3000): Wait {
  return forCondition(
    `SSH on ${shell.node}`,
    async () => {
      await shell.exec(['hostname'], { timeoutMs: 15_000 });
    },
    timeoutMs,
    intervalMs,
  );
}
