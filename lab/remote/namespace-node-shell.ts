/**
 * How a command reaches a node that is a set of namespaces on this host (a kubeadm netns lab):
 * `nsenter` into its mount, UTS and network namespaces, as root. The node sees this host's
 * files (but for its own directories), so an upload is a copy inside it.
 */
import { CommandError } from '../errors.ts';
import type { CommandRunner, RunOptions, RunResult } from '../exec/command-runner.ts';
import type { NodeShell } from './node-shell.ts';

export interface NamespacePaths {
  /** Pin of the node's mount namespace. */
  mnt: string;
  /** Pin of its UTS namespace. */
  uts: string;
  /** Its network namespace (`/run/netns/<name>`). */
  net: string;
}

export class NamespaceNodeShell implements NodeShell {
  /** Commands run as root; the node reads this host's files where they are. */
  readonly root = true;
  readonly hostFiles = true;

  constructor(
    readonly node: string,
    readonly namespaces: NamespacePaths,
    private readonly runner: CommandRunner,
    /** Flags the node's kubelet needs on this machine (its cgroup root). */
    readonly kubeletArgs: Readonly<Record<string, string>> = {},
  ) {}

  /** argv of nsenter that runs `argv` inside the node. */
  enterArgv(argv: readonly string[]): string[] {
    const { mnt, uts, net } = this.namespaces;
    return [`--mount=${mnt}`, `--uts=${uts}`, `--net=${net}`, '--', ...argv];
  }

  async exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    try {
      return await this.runner.run('nsenter', this.enterArgv(argv), options);
    } catch (error) {
      throw CommandError.onNode(error, this.node);
    }
  }

  /** Copies local files (or folders, recursively) into a folder of the node. */
  upload(
    localPaths: readonly string[],
    remoteDir: string,
    options?: RunOptions,
  ): Promise<RunResult> {
    return this.exec(['cp', '-R', '--preserve=mode,timestamps', ...localPaths, remoteDir], options);
  }

  /** `lab ssh NODE`: a shell inside the node. */
  interactiveArgv(): string[] {
    return ['nsenter', ...this.enterArgv([process.env.SHELL ?? '/bin/sh'])];
  }
}
