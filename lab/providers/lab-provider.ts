/** The one interface every provider (netns, libvirt, existing) implements. */
import type { EmulatedCluster } from '../cluster/emulated-cluster.ts';
import type { PreflightProblem } from '../errors.ts';
import type { CommandRunner, RunOptions, RunResult } from '../exec/command-runner.ts';
import type { NodeShell } from '../remote/node-shell.ts';
import type { Progress } from '../log/progress.ts';
import type { Logger } from '../log/logger.ts';
import type { LabPlan, ProviderName } from '../plan/lab-plan.ts';

export interface NodeStatus {
  name: string;
  /** Whether the node exists and answers. */
  ready: boolean;
  detail: string;
}

export interface LabStatus {
  provider: ProviderName;
  emulated: boolean;
  /** True when every node is ready. */
  ready: boolean;
  nodes: NodeStatus[];
  /** Provider-specific facts worth printing (kubeconfig path, URIs, ...). */
  facts: Record<string, string>;
}

/**
 * The world outside a real cluster where this host cannot reach the lab network itself (a
 * netns lab's outside namespace): where NodePort probes start and the external echo listens.
 */
export interface LabOutside {
  /** Runs argv there (the probe program runs with this host's node). */
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
  /**
   * The echo outbound-NAT probes reach: outside every cluster CIDR and exception list; what its
   * /hostname answers, where the lab says.
   */
  echo: { address: string; port: number; hostname?: string };
  /** The address probes from there reach the nodes from. */
  address: string;
}

/**
 * What the disruption phase (docs/disruption.md) does to the machines of a real cluster the harness made,
 * below the Kubernetes API: each as it is done to a machine, each resolving once it is made.
 */
export interface NodeActions {
  /** The node's CNI state where no agent runs (the bridge plugin): removed, and programmed again as on start. */
  restartCni(node: string): Promise<void>;
  /** containerd and then the kubelet restarted; resolves once containerd answers and a new kubelet runs. */
  restartRuntime(node: string): Promise<void>;
  /** Stopped as a machine (every process, mount and runtime state gone, its disk kept) and booted again. */
  reboot(node: string): Promise<void>;
}

/** A lab that is up; its owner tears it down with down() (idempotent) or `await using`. */
export interface StartedLab extends AsyncDisposable {
  readonly plan: LabPlan;
  /**
   * The emulated cluster of a lab whose Kubernetes is emulated (netns, libvirt `cluster:
   * emulated`); undefined where a real Kubernetes runs. Results through it are labelled emulated.
   */
  readonly cluster: EmulatedCluster | undefined;
  /** Outside the cluster, where this host is not (netns kubeadm labs); undefined: this host is outside. */
  readonly outside: LabOutside | undefined;
  down(): Promise<void>;
  status(): Promise<LabStatus>;
  nodeShell(node: string): NodeShell;
  /** The argv that opens an interactive shell on a node (`lab ssh NODE`). */
  shellCommand(node: string): string[];
  /** `lab snapshot NAME`: the whole lab as it is now (providers with VMs). */
  snapshot?(name: string): Promise<{ ms: number }>;
  /** `lab up --from NAME`: back to a snapshot and ready; milliseconds per step. */
  restore?(name: string): Promise<Record<string, number>>;
  /** Disruptions below the Kubernetes API (kubeadm netns labs); absent where the harness cannot make them. */
  readonly nodeActions?: NodeActions;
}

export interface ProviderContext {
  runner: CommandRunner;
  log: Logger;
  /** `.lab/<name>/` of this lab: state, logs, per-provider files. */
  stateDir: string;
  /** Where the steps of up/down are shown. */
  progress: Progress;
}

export interface LabProvider {
  readonly name: ProviderName;
  /** Everything this machine lacks for the plan; empty when up() may proceed. */
  preflight(plan: LabPlan): Promise<PreflightProblem[]>;
  /** Creates the lab all-or-nothing: on failure everything created is removed again. */
  up(plan: LabPlan): Promise<StartedLab>;
  /** Re-attaches to a lab that is up (from a previous process). */
  attach(plan: LabPlan): Promise<StartedLab>;
  /**
   * Removes every resource stamped with a hybrid-lab id, or only `labId`'s when given,
   * without needing any state on disk. Returns a line per removed resource. Where others' runs
   * share what it sweeps (a cluster the harness did not make), only this machine's user's runs
   * go, and others' past `options.olderThanMs`.
   */
  reap(labId?: string, options?: ReapOptions): Promise<string[]>;
  /** Ids of every lab that has resources of this provider on this machine. */
  listLabIds(): Promise<string[]>;
}

/** What `lab reap` is told beyond the lab. */
export interface ReapOptions {
  /** `--older-than`: runs of other users or machines older than this go too. */
  olderThanMs?: number;
}

export type ProviderFactory = (context: ProviderContext) => LabProvider;
