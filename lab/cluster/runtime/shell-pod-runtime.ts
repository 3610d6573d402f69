/**
 * Pods of a node reached through its NodeShell (a VM over SSH): every operation is one call of
 * the pod helper installed on the node (pod-helper.sh), so a pod start costs one round trip.
 */
import { ProviderError, WaitTimeoutError } from '../../errors.ts';
import type { RunOptions, RunResult } from '../../exec/command-runner.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { probeByExec, type PodRuntime, type StartedProgram } from './pod-runtime.ts';
import type { ProbeReply, WorkloadLocation } from './workload-programs.ts';

/** Where vm-node-setup installs things on a node. */
export const VM_PATHS = {
  helper: '/opt/hybrid-lab/bin/hl-pod',
  workloads: { node: '/usr/bin/node', dir: '/opt/hybrid-lab/workload' },
  dataDir: '/var/lib/hybrid-lab',
} as const satisfies { helper: string; workloads: WorkloadLocation; dataDir: string };

export interface ShellPodRuntimeOptions {
  /** Where the helper, programs and data are on the node (default VM_PATHS). */
  paths?: { helper: string; workloads: WorkloadLocation; dataDir: string };
  /** How long a pod program may take to print its ready line (slow under QEMU emulation). */
  readyTimeoutMs?: number;
  /** Added to callers' timeouts: the round trip and process start on the node. */
  overheadMs?: number;
}

/**
 * A first `node` start on a VM that has just booted under QEMU software emulation, with two
 * other VMs booting on the same two cores, printed nothing within 60 s in one CI run: the bound
 * only decides how long a program that never starts takes to fail.
 */
const DEFAULTS = { readyTimeoutMs: 180_000, overheadMs: 30_000, paths: VM_PATHS };

export class ShellPodRuntime implements PodRuntime {
  readonly workloads: WorkloadLocation;
  readonly dataDir: string;
  readonly #helper: string;
  readonly #options: Required<ShellPodRuntimeOptions>;

  constructor(
    private readonly shell: NodeShell,
    options: ShellPodRuntimeOptions = {},
  ) {
    this.#options = { ...DEFAULTS, ...options };
    this.workloads = this.#options.paths.workloads;
    this.dataDir = this.#options.paths.dataDir;
    this.#helper = this.#options.paths.helper;
  }

  async createSandbox(netns: string, resolvConf: string): Promise<void> {
    await this.shell.exec([this.#helper, 'sandbox-add', netns], { input: resolvConf });
  }

  /** One probe.mjs process per probe: a prober would be reached over the shell all the same. */
  probe(
    netns: string | undefined,
    args: readonly string[],
    options?: RunOptions,
  ): Promise<ProbeReply> {
    return probeByExec(this, netns, args, options);
  }

  async removeSandboxes(netns: readonly string[]): Promise<string[]> {
    if (netns.length === 0) return [];
    const result = await this.shell.exec([this.#helper, 'sandbox-del', ...netns]);
    return result.stdout.split('\n').filter((l) => l.startsWith('removed '));
  }

  /** `ready` must be a POSIX extended regex as well (grep -E runs it on the node). */
  async start(
    netns: string | undefined,
    argv: readonly string[],
    logFile: string,
    ready: RegExp,
  ): Promise<StartedProgram> {
    const { readyTimeoutMs, overheadMs } = this.#options;
    const what = `${this.shell.node}: ${netns ?? 'node'}: ${argv.join(' ')}`;
    const result = await this.shell.exec(
      [
        this.#helper,
        'start',
        netns ?? '-',
        logFile,
        ready.source,
        String(readyTimeoutMs),
        '--',
        ...argv,
      ],
      { check: false, timeoutMs: readyTimeoutMs + overheadMs },
    );
    const pid = Number(/^pid=(\d+)$/m.exec(result.stdout)?.[1]);
    const readyLine = /^ready=(.*)$/m.exec(result.stdout)?.[1];
    if (result.exitCode === 124 || result.timedOut) {
      throw new WaitTimeoutError(
        `${what} to print ${String(ready)}`,
        readyTimeoutMs,
        result.stderr,
      );
    }
    if (result.exitCode !== 0 || !Number.isInteger(pid) || readyLine === undefined) {
      throw new ProviderError(
        `${what} did not start (exit ${result.exitCode}):\n${result.stderr.trim()}`,
      );
    }
    return { pid, readyLine };
  }

  exec(
    netns: string | undefined,
    argv: readonly string[],
    options: RunOptions = {},
  ): Promise<RunResult> {
    const full = netns === undefined ? [...argv] : ['ip', 'netns', 'exec', netns, ...argv];
    const { timeoutMs } = options;
    return this.shell.exec(full, {
      check: false,
      ...options,
      ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs + this.#options.overheadMs }),
    });
  }

  async writeFile(path: string, text: string): Promise<void> {
    await this.shell.exec([this.#helper, 'write', path], { input: text });
  }

  async signalAndWait(
    pid: number,
    signal: NodeJS.Signals,
    logFile: string,
    pattern: RegExp,
    timeoutMs: number,
  ): Promise<boolean> {
    const result = await this.shell.exec(
      [
        this.#helper,
        'signal-wait',
        String(pid),
        signal,
        logFile,
        pattern.source,
        String(timeoutMs),
      ],
      { check: false, timeoutMs: timeoutMs + this.#options.overheadMs },
    );
    if (result.exitCode === 0) return true;
    if (result.exitCode === 3) return false;
    if (result.exitCode === 124 || result.timedOut) {
      throw new WaitTimeoutError(
        `${this.shell.node}: pid ${pid} to log ${String(pattern)} after ${signal}`,
        timeoutMs,
        result.stderr,
      );
    }
    throw new ProviderError(
      `${this.shell.node}: signal-wait ${pid} failed (exit ${result.exitCode}): ${result.stderr.trim()}`,
    );
  }
}
