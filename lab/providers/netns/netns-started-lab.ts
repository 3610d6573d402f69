/** A netns lab that is up: shells into its nodes, its emulated cluster, and an idempotent down(). */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import type { LabStatus, ProviderContext, StartedLab } from '../lab-provider.ts';
import type { ClusterHosts } from '../../cluster/cluster-hosts.ts';
import { EmulatedCluster } from '../../cluster/emulated-cluster.ts';
import {
  listNamespaces,
  removeOrphans,
  removeNamespaces,
} from '../../cluster/dataplane/namespace-cleanup.ts';
import {
  nodeNamespace,
  outsideNamespace,
  ownedBy,
  switchNamespace,
} from '../../cluster/dataplane/names.ts';
import { NetnsNodeShell } from '../../remote/netns-node-shell.ts';
import { NetnsPodRuntime } from '../../cluster/runtime/pod-runtime.ts';

/** `<stateDir>/netns`: cluster.json, zone.json, cni/, logs/. */
export function netnsDir(context: ProviderContext): string {
  return join(context.stateDir, 'netns');
}

export function nodeShellFor(
  context: ProviderContext,
  plan: LabPlan,
  node: string,
): NetnsNodeShell {
  if (!plan.nodes.some((n) => n.name === node)) {
    throw new ProviderError(`no node '${node}' in lab ${plan.id}`, {
      hint: `nodes: ${plan.nodes.map((n) => n.name).join(', ')}`,
    });
  }
  return new NetnsNodeShell(node, nodeNamespace(plan.prefix, node), context.runner);
}

/** Everything of a netns lab runs on this host: pods and outside are namespaces here. */
export function netnsHosts(context: ProviderContext, plan: LabPlan): ClusterHosts {
  const runtime = new NetnsPodRuntime(context.runner);
  return {
    pods: () => runtime,
    shell: (node) => nodeShellFor(context, plan, node),
    nodeNetns: (node) => nodeNamespace(plan.prefix, node),
    outside: { runtime, netns: outsideNamespace(plan.prefix) },
  };
}

export function clusterFor(context: ProviderContext, plan: LabPlan): EmulatedCluster {
  return new EmulatedCluster(plan, netnsDir(context), netnsHosts(context, plan), context.log);
}

/**
 * Removes everything of the lab: processes, namespaces, /etc/netns dirs, then its state.
 * Every step runs; each error is logged and the first one is rethrown at the end.
 */
export async function teardownLab(context: ProviderContext, plan: LabPlan): Promise<string[]> {
  const { runner, log } = context;
  const owned = (name: string): boolean => ownedBy(plan.prefix, name);
  const removed: string[] = [];
  const errors: unknown[] = [];
  const step = async (what: string, action: () => Promise<string[]> | string[]): Promise<void> => {
    try {
      removed.push(...(await action()));
    } catch (error) {
      log.error({ provider: 'netns', lab: plan.id, err: error }, `teardown: ${what} failed`);
      errors.push(error);
    }
  };
  let existing: string[] = [];
  await step('namespaces', async () => {
    existing = (await listNamespaces(runner)).filter(owned);
    return removeNamespaces(runner, existing);
  });
  await step('/etc/netns and probers', () => removeOrphans(owned));
  await step('state', () => {
    const dir = netnsDir(context);
    for (const file of ['cluster.json', 'cluster.lock', 'zone.json', 'cni'])
      rmSync(join(dir, file), { recursive: true, force: true });
    return [];
  });
  if (errors.length > 0) throw errors[0];
  log.info({ provider: 'netns', lab: plan.id, removed: removed.length }, 'lab removed');
  return removed;
}

export class NetnsStartedLab implements StartedLab {
  /** The emulated cluster API (pods, Services, exec); results must be labelled emulated. */
  readonly cluster: EmulatedCluster;
  /** Outside is the emulated cluster's own (its outside namespace, through the cluster API). */
  readonly outside = undefined;
  #down: Promise<void> | undefined;

  constructor(
    readonly plan: LabPlan,
    private readonly context: ProviderContext,
  ) {
    this.cluster = clusterFor(context, plan);
  }

  nodeShell(node: string): NetnsNodeShell {
    return nodeShellFor(this.context, this.plan, node);
  }

  /** `lab ssh NODE`: an interactive shell inside the node's network namespace. */
  shellCommand(node: string): string[] {
    return ['ip', 'netns', 'exec', this.nodeShell(node).namespace, process.env.SHELL ?? '/bin/sh'];
  }

  /** Idempotent: later calls return the first call's promise. */
  down(): Promise<void> {
    this.#down ??= teardownLab(this.context, this.plan).then(() => undefined);
    return this.#down;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.down();
  }

  async status(): Promise<LabStatus> {
    const { plan } = this;
    const existing = new Set(await listNamespaces(this.context.runner));
    const state = this.cluster.store.exists() ? this.cluster.store.read() : undefined;
    const nodes = plan.nodes.map((n) => ({
      name: n.name,
      ready: existing.has(nodeNamespace(plan.prefix, n.name)),
      detail: `${n.os === 'windows' ? 'windows (emulated: Linux netns)' : 'linux'} ${n.ip} pod CIDR ${n.podCIDR} pods=${state?.pods.filter((p) => p.node === n.name).length ?? 0}`,
    }));
    const infra =
      existing.has(switchNamespace(plan.prefix)) && existing.has(outsideNamespace(plan.prefix));
    const echo = state?.externalEcho;
    return {
      provider: 'netns',
      emulated: true,
      ready: infra && state !== undefined && nodes.every((n) => n.ready),
      nodes,
      facts: {
        dataplane: `emulated with network namespaces (prefix ${plan.prefix}), flannel ${plan.cni.backend}`,
        externalEcho:
          echo === undefined ? 'down' : `${echo.address} http:${echo.httpPort} udp:${echo.udpPort}`,
        clusterDNS: plan.kubernetes.clusterDNS,
        state: this.cluster.store.file,
      },
    };
  }
}
