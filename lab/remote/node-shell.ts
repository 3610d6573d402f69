/** The one way the harness runs a command on a node, whatever reaches it (netns, SSH). */
import type { RunOptions, RunResult } from '../exec/command-runner.ts';

/** Runs argv on one node: inside its namespaces, or over SSH on a VM. */
export interface NodeShell {
  readonly node: string;
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
}
