/**
 * Runs one provisioning step on one node: bounded retries of transient failures, a reboot when
 * a Windows step asks for one, the output in the node's log, and a ProvisionError naming node,
 * step, command and output tail when it fails for good.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CommandError } from '../errors.ts';
import type { RunOptions, RunResult } from '../exec/command-runner.ts';
import type { Redactor } from '../exec/redactor.ts';
import type { NodeOs } from '../plan/lab-plan.ts';
import type { NodeLogs } from './node-log.ts';
import { ProvisionError, tailOf } from './provision-error.ts';
import { forSsh, type NodeShell } from '../remote/node-shell.ts';

/** A NodeShell provisioning can use: it copies files to the node and says how commands run there. */
export interface ProvisionShell extends NodeShell {
  /** Commands already run as root (a namespace node, a sudo shell); else root's go through sudo. */
  readonly root: boolean;
  /** The node sees this host's files at the same paths (a namespace node): artifacts are read in place, never uploaded. */
  readonly hostFiles: boolean;
  /** Flags this node's kubelet needs on its machine (a namespace node's cgroup root); kubeadm passes them on. */
  readonly kubeletArgs?: Readonly<Record<string, string>>;
  upload(
    localPaths: readonly string[],
    remoteDir: string,
    options?: RunOptions,
  ): Promise<RunResult>;
}

/** argv as root on the node: through sudo unless the shell runs as root already. */
export function asRoot(shell: Pick<ProvisionShell, 'root'>, argv: readonly string[]): string[] {
  return shell.root ? [...argv] : ['sudo', ...argv];
}

/** Where scripts, config and artifacts live on a node. */
export const STAGE = { linux: '/opt/hybrid-lab', windows: 'C:\\hybrid-lab' } as const;

export interface ScriptStep {
  /** kebab-case id, as it appears in logs and errors. */
  id: string;
  /** File name in vagrant/scripts/<os>/. */
  script: string;
  args?: string[];
  /** Standard input: the only way join tokens and CA hashes reach a node. */
  input?: string;
  timeoutMs?: number;
  /** Windows: exit code meaning "reboot me, then run me again" (3010). */
  rebootExitCode?: number;
}

export interface StepReport {
  node: string;
  step: string;
  /** How many `hl: changed:` lines the script printed; 0 on a re-run that had nothing to do. */
  changed: number;
  attempts: number;
  reboots: number;
}

/** Exit code a script uses to say "try again later" (EX_TEMPFAIL). */
export const EXIT_TRANSIENT = 75;
const TRANSIENT_OUTPUT =
  /Could not get lock|Unable to acquire the dpkg|Connection (refused|reset|timed out)|Temporary failure|i\/o timeout|TLS handshake timeout|server is currently unable to handle|etcdserver: request timed out|kex_exchange_identification/i;

/** ssh's own failures (255), timeouts, EX_TEMPFAIL and known flaky messages are worth a retry. */
export function isTransient(
  result: Pick<RunResult, 'exitCode' | 'timedOut' | 'stdout' | 'stderr'>,
): boolean {
  return (
    result.timedOut ||
    result.exitCode === 255 ||
    result.exitCode === EXIT_TRANSIENT ||
    TRANSIENT_OUTPUT.test(`${result.stdout}\n${result.stderr}`)
  );
}

/** The argv that runs a staged script on a node of `os` (as root on Linux when `shell` is given). */
export function scriptCommand(
  os: NodeOs,
  script: string,
  args: readonly string[] = [],
  shell?: Pick<ProvisionShell, 'root'>,
): string[] {
  if (os === 'linux') {
    const argv = ['bash', `${STAGE.linux}/scripts/${script}`, ...args];
    return shell === undefined ? argv : asRoot(shell, argv);
  }
  return [
    'powershell',
    '-NoProfile',
    '-NonInteractive',
    '-ExecutionPolicy',
    'Bypass',
    '-File',
    `${STAGE.windows}\\scripts\\${script}`,
    ...args,
  ];
}

export interface StepRunnerOptions {
  redactor: Redactor;
  logs: NodeLogs;
  /** Attempts per step when failures look transient. */
  attempts: number;
  /** Milliseconds before retry n (1-based). */
  backoffMs?: (attempt: number) => number;
  /** How long a rebooting node may take to answer SSH again. */
  rebootTimeoutMs?: number;
}

export class StepRunner {
  constructor(private readonly options: StepRunnerOptions) {}

  /** Runs a staged script; see the file comment. */
  async script(shell: ProvisionShell, os: NodeOs, step: ScriptStep): Promise<StepReport> {
    const argv = scriptCommand(os, step.script, step.args, shell);
    const { logs, redactor, attempts } = this.options;
    let reboots = 0;
    for (let attempt = 1; ; attempt++) {
      const result = await this.#exec(shell, step.id, argv, {
        check: false,
        timeoutMs: step.timeoutMs ?? 15 * 60_000,
        ...(step.input === undefined ? {} : { input: step.input }),
      });
      const output = `${result.stdout}${result.stderr === '' ? '' : `\n${result.stderr}`}`;
      logs.write(
        shell.node,
        step.id,
        `$ ${result.command}\n${output}\n(exit ${result.exitCode}, ${result.durationMs} ms)`,
      );
      if (result.exitCode === 0) {
        const changed = (output.match(/^hl: changed:/gm) ?? []).length;
        return { node: shell.node, step: step.id, changed, attempts: attempt, reboots };
      }
      if (
        step.rebootExitCode !== undefined &&
        result.exitCode === step.rebootExitCode &&
        reboots < 2
      ) {
        reboots++;
        attempt--;
        await this.#reboot(shell, os, step.id);
        continue;
      }
      if (isTransient(result) && attempt < attempts) {
        logs.write(
          shell.node,
          step.id,
          `transient failure; attempt ${attempt + 1} of ${attempts} follows`,
        );
        await sleep(this.options.backoffMs?.(attempt) ?? 2000 * attempt);
        continue;
      }
      throw new ProvisionError(result.timedOut ? 'timed out' : `exited ${result.exitCode}`, {
        node: shell.node,
        step: step.id,
        command: redactor.redact(result.command),
        tail: redactor.redact(tailOf(output)),
        attempts: attempt,
        hint: `full output: ${logs.file(shell.node)}`,
      });
    }
  }

  /** Runs a harness-side action for a node (upload, fetch), retrying transient command failures. */
  async action<T>(node: string, step: string, run: () => Promise<T>): Promise<T> {
    const { attempts, redactor, logs } = this.options;
    for (let attempt = 1; ; attempt++) {
      const began = performance.now();
      try {
        const result = await run();
        logs.write(node, step, `(done, ${Math.round(performance.now() - began)} ms)`);
        return result;
      } catch (error) {
        if (!(error instanceof CommandError)) throw error;
        const transient = isTransient({
          exitCode: error.exitCode,
          timedOut: error.timedOut,
          stdout: error.output,
          stderr: '',
        });
        logs.write(node, step, `$ ${error.command}\n${error.output}\n(exit ${error.exitCode})`);
        if (transient && attempt < attempts) {
          await sleep(this.options.backoffMs?.(attempt) ?? 2000 * attempt);
          continue;
        }
        throw new ProvisionError(error.timedOut ? 'timed out' : `exited ${error.exitCode}`, {
          node,
          step,
          command: redactor.redact(error.command),
          tail: redactor.redact(tailOf(error.output)),
          attempts: attempt,
          hint: `full output: ${logs.file(node)}`,
        });
      }
    }
  }

  async #exec(
    shell: ProvisionShell,
    step: string,
    argv: string[],
    options: RunOptions,
  ): Promise<RunResult> {
    try {
      return await shell.exec(argv, options);
    } catch (error) {
      // The runner could not even start ssh.
      throw new ProvisionError(
        error instanceof Error ? this.options.redactor.redact(error.message) : 'failed',
        {
          node: shell.node,
          step,
          command: this.options.redactor.redact(argv.join(' ')),
        },
      );
    }
  }

  async #reboot(shell: ProvisionShell, os: NodeOs, step: string): Promise<void> {
    this.options.logs.write(
      shell.node,
      step,
      'the step asked for a reboot; rebooting and running it again',
    );
    const restart =
      os === 'windows' ? ['Restart-Computer', '-Force'] : asRoot(shell, ['systemctl', 'reboot']);
    await shell.exec(restart, { check: false, timeoutMs: 30_000 });
    await sleep(this.options.backoffMs?.(1) ?? 15_000);
    await forSsh(
      shell,
      this.options.rebootTimeoutMs ?? 15 * 60_000,
      this.options.backoffMs?.(1) ?? 5000,
    ).wait();
  }
}
