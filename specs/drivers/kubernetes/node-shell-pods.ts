/**
 * Node shells for path evidence on a cluster the harness did not make (provider existing, or
 * KUBECONFIG alone): one pod per node, in the run namespace, made the first time a failing cell's
 * path crosses the node and removed with the namespace. On Linux each command runs in the node's
 * network namespace with the host's own tools; on Windows as a process of the host.
 */
import type { Os } from '../../../lab/contracts/cells.ts';
import type { RunOptions, RunResult } from '../../../lab/exec/command-runner.ts';
import type { NodeShell } from '../../../lab/remote/node-shell.ts';
import { EVIDENCE_FILE_MAX_BYTES } from '../../../lab/cluster/path-evidence.ts';
import { nodeShellPod } from '../../model/workload-names.ts';
import { ExecError, execInPod } from './exec-in-pod.ts';
import type { CoreClient, ExecClient } from './kube-clients.ts';
import { apiErrorText } from './kube-clients.ts';
import { forPodsReady } from './pod-waits.ts';
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
  /** A Linux image with nsenter that sleeps on `pause` (agnhost's); on Windows any image. */
  image: string;
  nodes: readonly ShellNode[];
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
  '  [ "$(cat "$p/comm" 2>/dev/null)" = kubelet ] && [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$net" ] &&',
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

export class NodeShellPods {
  /** Each node's pod name once it runs (a failed start stays failed: every later cell says why at once). */
  readonly #started = new Map<string, Promise<string>>();

  constructor(
    private readonly core: CoreClient,
    private readonly exec: ExecClient,
    private readonly settings: NodeShellPodSettings,
  ) {}

  shell(name: string): NodeShell {
    const node = this.settings.nodes.find((n) => n.name === name);
    if (node === undefined) throw new Error(`no node ${name} in the cluster`);
    return { node: name, exec: (argv, options) => this.#run(node, argv, options ?? {}) };
  }

  #pod(node: ShellNode): Promise<string> {
    let started = this.#started.get(node.name);
    if (started === undefined) {
      started = this.#start(node);
      this.#started.set(node.name, started);
    }
    return started;
  }

  async #start(node: ShellNode): Promise<string> {
    const { namespace, pollMs } = this.settings;
    const name = nodeShellPod(node.name);
    const body = renderNodeShellPod(this.settings, { ...node, name });
    try {
      await this.core.createNamespacedPod({ namespace, body });
    } catch (error) {
      throw new Error(`cannot create node shell pod ${namespace}/${name}: ${apiErrorText(error)}`, {
        cause: error,
      });
    }
    await forPodsReady(this.core, namespace, [name], {
      timeoutMs: SHELL_READY_MS,
      ...(pollMs === undefined ? {} : { pollMs }),
    });
    return name;
  }

  async #run(node: ShellNode, argv: readonly string[], options: RunOptions): Promise<RunResult> {
    if (node.os === 'windows' && options.input !== undefined)
      throw new Error(`a Windows node shell takes no input (${argv.join(' ')} on ${node.name})`);
    const pod = await this.#pod(node);
    const command = argv.join(' ');
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
        stdout: ran.stdout,
        stderr: ran.exitCode === null ? `${ran.stderr}${ran.status.message ?? ''}` : ran.stderr,
        durationMs: Date.now() - began,
        timedOut: false,
      };
    } catch (error) {
      if (!(error instanceof ExecError) || options.check !== false) throw error;
      result = {
        command,
        exitCode: -1,
        stdout: '',
        stderr: error.message,
        durationMs: Date.now() - began,
        timedOut: error.kind === 'timeout',
      };
    }
    if (options.check !== false && result.exitCode !== 0)
      throw new Error(
        `${command} on ${node.name}: exit ${result.exitCode}: ${result.stderr.trim()}`,
      );
    return result;
  }
}
