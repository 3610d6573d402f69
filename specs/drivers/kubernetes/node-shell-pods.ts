/**
 * Node shells for path evidence on a cluster the harness did not make (provider existing, or
 * KUBECONFIG alone): one pod per node, in the run namespace, made the first time a failing cell's
 * path crosses the node and deleted by stop() when the run ends. On Linux each command runs in the node's
 * network namespace with the host's own tools; on Windows as a process of the host.
 */
import type { Os } from '../../../lab/contracts/cells.ts';
import { CommandError } from '../../../lab/errors.ts';
import type { RunOptions, RunResult } from '../../../lab/exec/command-runner.ts';
import type { NodeShell } from '../../../lab/remote/node-shell.ts';
import { EVIDENCE_FILE_MAX_BYTES } from '../../../lab/cluster/path-evidence.ts';
import { nodeShellPod } from '../../model/workload-names.ts';
import { ExecError, execInPod } from './exec-in-pod.ts';
import {
  apiErrorText,
  apiStatusCode,
  isNotFound,
  type CoreClient,
  type ExecClient,
} from './kube-clients.ts';
import { forPodsReady } from './pod-waits.ts';
import { POD_KINDS, podSecurityRefusal } from './pod-security.ts';
import { renderNodeShellPod } from './suite-manifests.ts';

const CONTAINER = 'shell';
/** A command's time when the caller sets none. */
const EXEC_TIMEOUT_MS = 60_000;
/**
 * How long a shell pod may take to run: well inside a cell's evidence budget, so a pod that
 * cannot start (an image the node cannot pull, a policy refusing privileged pods) is named.
 */
const SHELL_READY_MS = 45_000;
/**
 * Output kept per command: a Windows node's view comes as one output of many files, each cut at
 * the evidence file's cap afterwards, so a long one must not push the others out here.
 */
const OUTPUT_MAX_BYTES = 16 * EVIDENCE_FILE_MAX_BYTES;
/** The line that ends an output cut at OUTPUT_MAX_BYTES. */
export const OUTPUT_CUT = `[cut at ${OUTPUT_MAX_BYTES} bytes by the node shell pod]`;

export interface ShellNode {
  /** The suite's name of the node. */
  name: string;
  /** Its `kubernetes.io/hostname` label. */
  nodeHostname: string;
  os: Os;
}

export interface NodeShellPodSettings {
  namespace: string;
  runId: string;
  lab: string;
  /** Linux: an image with nsenter whose entrypoint sleeps on `pause` (agnhost's). */
  linuxImage: string;
  /** Windows: any image the nodes can pull (the run's agnhost image). */
  windowsImage: string;
  /** The nodes a shell pod may go to: those the run uses, never one it left out. */
  nodes: readonly ShellNode[];
  /** The run namespace's copy of IMAGE_PULL_SECRET, when there is one. */
  pullSecret?: string;
  /** Poll interval of the wait for a pod to run; default 2 s. */
  pollMs?: number;
}

/**
 * Enters the node's mount namespace, that of its kubelet (the process named kubelet in the pod's
 * network namespace, which hostNetwork makes the node's), else that of the host's PID 1, and runs
 * "$@" there: the node's own ip, nft, conntrack and timeout, still in the node's network
 * namespace. The kubelet comes first: where PID 1 is not the node's (nodes that are namespaces
 * of one host) or not readable, it still is.
 */
const ENTER_NODE = [
  'net=$(readlink /proc/self/ns/net)',
  'for p in /proc/[0-9]*; do',
  '  read -r comm <"$p/comm" 2>/dev/null || continue',
  '  [ "$comm" = kubelet ] && [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$net" ] &&',
  '    exec nsenter --target "${p#/proc/}" --mount -- "$@"',
  'done',
  'exec nsenter --target 1 --mount -- "$@"',
].join('\n');

/** `argv` run on the node (ENTER_NODE); `input`, if any, on its stdin. */
export function hostCommand(argv: readonly string[], input?: string): string[] {
  // sh -c SCRIPT ARG0 ARGS…: the input is $0, the command "$@".
  const inner =
    input === undefined ? argv : ['sh', '-c', 'printf "%s" "$0" | "$@"', input, ...argv];
  return ['sh', '-c', ENTER_NODE, 'sh', ...inner];
}

/** A pod create the API did not answer or answered 5xx: the next cell that needs the node tries again. */
class TransientCreateError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

export class NodeShellPods {
  /**
   * Each node's pod name once it runs. A refused or failed start stays failed (every later cell says
   * why at once); a create the API could not answer (no reply, 5xx) is tried again by the next cell.
   */
  readonly #started = new Map<string, Promise<string>>();
  /** The pods created so far, for stop(). */
  readonly #made: string[] = [];

  constructor(
    private readonly core: CoreClient,
    private readonly exec: ExecClient,
    private readonly settings: NodeShellPodSettings,
  ) {}

  shell(name: string): NodeShell {
    const node = this.settings.nodes.find((n) => n.name === name);
    if (node === undefined)
      throw new Error(`no node ${name} among those the run uses: no node shell pod goes there`);
    return { node: name, exec: (argv, options) => this.#run(node, argv, options ?? {}) };
  }

  /**
   * Deletes the pods made so far (the run namespace may be kept: HYBRID_KEEP_RUN_NAMESPACE), so
   * no privileged pod outlives the run; idempotent, the first error rethrown after trying all.
   */
  async stop(): Promise<void> {
    const { namespace } = this.settings;
    const names = this.#made.splice(0);
    this.#started.clear();
    const results = await Promise.allSettled(
      names.map((name) =>
        this.core
          .deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 })
          .catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          }),
      ),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  #pod(node: ShellNode): Promise<string> {
    let started = this.#started.get(node.name);
    if (started === undefined) {
      started = this.#start(node);
      this.#started.set(node.name, started);
      started.catch((error: unknown) => {
        if (error instanceof TransientCreateError) this.#started.delete(node.name);
      });
    }
    return started;
  }

  async #start(node: ShellNode): Promise<string> {
    const { namespace, pollMs, linuxImage, windowsImage } = this.settings;
    const name = nodeShellPod(node.name);
    const image = node.os === 'linux' ? linuxImage : windowsImage;
    const body = renderNodeShellPod({ ...this.settings, image }, { ...node, name });
    try {
      await this.core.createNamespacedPod({ namespace, body });
      this.#made.push(name);
    } catch (error) {
      const code = apiStatusCode(error);
      const refused = code !== undefined && code >= 400 && code < 500;
      const message = `cannot create node shell pod ${namespace}/${name}: ${apiErrorText(error)}`;
      if (!refused) throw new TransientCreateError(message, error);
      throw (
        podSecurityRefusal(error, { name, kind: POD_KINDS.nodeShell }, namespace) ??
        new Error(message, { cause: error })
      );
    }
    await forPodsReady(this.core, namespace, [name], {
      timeoutMs: SHELL_READY_MS,
      ...(pollMs === undefined ? {} : { pollMs }),
    });
    return name;
  }

  async #run(node: ShellNode, argv: readonly string[], options: RunOptions): Promise<RunResult> {
    const command = argv.join(' ');
    if (node.os === 'windows' && options.input !== undefined)
      throw new CommandError(command, 2, 'a Windows node shell pod takes no input', false, {
        node: node.name,
      });
    const pod = await this.#pod(node);
    const began = Date.now();
    let result: RunResult;
    try {
      const ran = await execInPod(
        this.exec,
        { namespace: this.settings.namespace, pod, container: CONTAINER },
        node.os === 'linux' ? hostCommand(argv, options.input) : argv,
        options.timeoutMs ?? EXEC_TIMEOUT_MS,
        OUTPUT_MAX_BYTES,
      );
      result = {
        command,
        exitCode: ran.exitCode ?? -1,
        // A cut is said on a line of its own, which filters on the flow's lines keep.
        stdout: ran.truncated ? `${ran.stdout}\n${OUTPUT_CUT}\n` : ran.stdout,
        stderr: ran.exitCode === null ? `${ran.stderr}${ran.status.message ?? ''}` : ran.stderr,
        durationMs: Date.now() - began,
        timedOut: false,
      };
    } catch (error) {
      if (!(error instanceof ExecError)) throw error;
      // As the execa runner says a timeout: exit 124.
      const timedOut = error.kind === 'timeout';
      if (options.check !== false)
        throw new CommandError(command, timedOut ? 124 : -1, error.message, timedOut, {
          cause: error,
          node: node.name,
        });
      result = {
        command,
        exitCode: timedOut ? 124 : -1,
        stdout: '',
        stderr: error.message,
        durationMs: Date.now() - began,
        timedOut,
      };
    }
    if (options.check !== false && result.exitCode !== 0)
      throw new CommandError(command, result.exitCode, result.stderr, false, { node: node.name });
    return result;
  }
}
