/**
 * The existing provider: any cluster a kubeconfig reaches; it creates and removes nothing but
 * the suite's run namespaces its reap finds.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ProviderError } from '../../errors.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import { LAB_LABEL, stampOf, thisUser } from '../../contracts/kubernetes-names.ts';
import { processAlive } from '../../exec/process-alive.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import type {
  LabProvider,
  LabStatus,
  NodeStatus,
  ProviderContext,
  ReapOptions,
  StartedLab,
} from '../lab-provider.ts';
import { reapDecision, type Reaper, type RunNamespace } from './reap-decision.ts';
import type { PreflightProblem } from '../../errors.ts';

/** Lists the cluster's nodes; swapped for a fake in unit tests. */
export type NodeLister = (kubeconfigPath: string) => Promise<NodeStatus[]>;

export const listNodesWithClient: NodeLister = async (path) => {
  const nodes = await (await coreApi(path)).listNode();
  return nodes.items.map((node) => {
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const os = node.metadata?.labels?.['kubernetes.io/os'] ?? 'unknown-os';
    const build = node.status?.nodeInfo?.osImage ?? '';
    return {
      name: node.metadata?.name ?? '(unnamed)',
      ready: ready?.status === 'True',
      detail: `${os} ${build}`.trim(),
    };
  });
};

/** The suite's per-run namespaces on a cluster (label LAB_LABEL); a fake in unit tests. */
export interface RunNamespaces {
  /** Every namespace carrying the label, with its value (the lab name) and whose run it is. */
  list(kubeconfigPath: string): Promise<RunNamespace[]>;
  remove(kubeconfigPath: string, name: string): Promise<void>;
}

/** This machine's user and host, and whether a process of this host runs; a fake in unit tests. */
export type WhoReaps = () => Omit<Reaper, 'olderThanMs'>;

const thisMachine: WhoReaps = () => ({
  owner: thisUser(),
  host: hostname(),
  alive: processAlive,
  nowMs: Date.now(),
});

/** The core API of the kubeconfig's cluster; the client is loaded on use (it costs over a second). */
async function coreApi(path: string) {
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config.makeApiClient(CoreV1Api);
}

export const runNamespacesWithClient: RunNamespaces = {
  async list(path) {
    const list = await (
      await coreApi(path)
    ).listNamespace({ labelSelector: LAB_LABEL, timeoutSeconds: 20 });
    return list.items.map((ns) => {
      const created = ns.metadata?.creationTimestamp;
      return {
        name: ns.metadata?.name ?? '',
        lab: ns.metadata?.labels?.[LAB_LABEL] ?? '',
        stamp: stampOf(ns.metadata?.annotations),
        ...(created === undefined ? {} : { createdAt: new Date(created).toISOString() }),
      };
    });
  },
  async remove(path, name) {
    await (await coreApi(path)).deleteNamespace({ name });
  },
};

/** $KUBECONFIG's first entry, else ~/.kube/config. */
function defaultKubeconfig(env: NodeJS.ProcessEnv): string {
  return env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
}

/** The kubeconfig the lab uses: the spec's (a leading `~/` is the home directory), else the default one. */
export function kubeconfigPath(plan: LabPlan, env: NodeJS.ProcessEnv = process.env): string {
  if (plan.kubeconfig === undefined) return defaultKubeconfig(env);
  const home = env.HOME ?? homedir();
  if (plan.kubeconfig === '~') return home;
  return plan.kubeconfig.startsWith('~/') ? join(home, plan.kubeconfig.slice(2)) : plan.kubeconfig;
}

export class ExistingProvider implements LabProvider {
  readonly name = 'existing' as const;

  constructor(
    private readonly context: ProviderContext,
    private readonly listNodes: NodeLister = listNodesWithClient,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly runNamespaces: RunNamespaces = runNamespacesWithClient,
    private readonly whoReaps: WhoReaps = thisMachine,
  ) {}

  preflight(plan: LabPlan): Promise<PreflightProblem[]> {
    const path = kubeconfigPath(plan, this.env);
    try {
      accessSync(path, constants.R_OK);
    } catch {
      return Promise.resolve([
        {
          what: `kubeconfig ${path} is not readable`,
          fix: 'set kubeconfig: in the spec, or KUBECONFIG',
        },
      ]);
    }
    let config: { 'current-context'?: unknown; contexts?: { name?: unknown }[] } | null;
    try {
      config = parse(readFileSync(path, 'utf8')) as typeof config;
    } catch (error) {
      return Promise.resolve([
        {
          what: `kubeconfig ${path} is not YAML: ${String(error)}`,
          fix: 'point kubeconfig: at a valid file',
        },
      ]);
    }
    const current = config?.['current-context'];
    if (typeof current !== 'string' || !(config?.contexts ?? []).some((c) => c.name === current)) {
      return Promise.resolve([
        {
          what: `kubeconfig ${path} has no usable current-context`,
          fix: `kubectl --kubeconfig ${path} config use-context NAME`,
        },
      ]);
    }
    return Promise.resolve([]);
  }

  async up(plan: LabPlan): Promise<StartedLab> {
    const problems = await this.preflight(plan);
    if (problems.length > 0) {
      throw new ProviderError(problems.map((p) => p.what).join('; '), {
        hint: problems.map((p) => p.fix).join('; '),
      });
    }
    this.context.log.info(
      { provider: this.name, kubeconfig: kubeconfigPath(plan, this.env) },
      'using existing cluster',
    );
    return new ExistingLab(plan, kubeconfigPath(plan, this.env), this.listNodes);
  }

  attach(plan: LabPlan): Promise<StartedLab> {
    return this.up(plan);
  }

  /**
   * Deletes suite namespaces killed runs left (the cluster itself is never touched): this
   * machine's user's runs whose process is gone, and any run older than `olderThanMs`; each one
   * left is said, with whose it is.
   */
  async reap(labId?: string, options: ReapOptions = {}): Promise<string[]> {
    const { path, found } = await this.#runNamespaces();
    const reaper: Reaper = {
      ...this.whoReaps(),
      ...(options.olderThanMs === undefined ? {} : { olderThanMs: options.olderThanMs }),
    };
    const removed: string[] = [];
    for (const ns of found.filter((n) => labId === undefined || `hl-${n.lab}` === labId)) {
      const decision = reapDecision(ns, reaper);
      const fields = { provider: this.name, namespace: ns.name, why: decision.why };
      if (!decision.reap) {
        this.context.log.info(fields, 'left suite namespace');
        this.context.progress.info(`left namespace ${ns.name}: ${decision.why}`);
        continue;
      }
      await this.runNamespaces.remove(path, ns.name);
      this.context.log.info(fields, 'reaped suite namespace');
      removed.push(`namespace ${ns.name} (${decision.why})`);
    }
    return removed;
  }

  async listLabIds(): Promise<string[]> {
    const { found } = await this.#runNamespaces();
    return [...new Set(found.map((n) => `hl-${n.lab}`))];
  }

  /** Run namespaces on the kubeconfig's cluster; none when there is no kubeconfig or no answer. */
  async #runNamespaces(): Promise<{ path: string; found: RunNamespace[] }> {
    const path = defaultKubeconfig(this.env);
    try {
      accessSync(path, constants.R_OK);
    } catch {
      return { path, found: [] };
    }
    try {
      return { path, found: await this.runNamespaces.list(path) };
    } catch (error) {
      // A kubeconfig for an unreachable cluster must not make `lab reap` of other labs fail.
      this.context.log.warn(
        { provider: this.name, kubeconfig: path, err: error },
        'cannot list suite namespaces',
      );
      return { path, found: [] };
    }
  }
}

function noShell(node: string): never {
  throw new ProviderError(`the existing provider has no shell on node ${node}`, {
    hint: `use kubectl debug node/${node} -it --image=<an image your cluster can pull>`,
  });
}

class ExistingLab implements StartedLab {
  /** A real cluster: nothing is emulated; this host is outside it. */
  readonly cluster = undefined;
  readonly outside = undefined;

  constructor(
    readonly plan: LabPlan,
    private readonly kubeconfig: string,
    private readonly listNodes: NodeLister,
  ) {}

  down(): Promise<void> {
    return Promise.resolve();
  }

  async status(): Promise<LabStatus> {
    const facts = { kubeconfig: this.kubeconfig };
    try {
      const nodes = await this.listNodes(this.kubeconfig);
      return {
        provider: 'existing',
        emulated: false,
        ready: nodes.length > 0 && nodes.every((n) => n.ready),
        nodes,
        facts,
      };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return {
        provider: 'existing',
        emulated: false,
        ready: false,
        nodes: [],
        facts: { ...facts, error: detail },
      };
    }
  }

  nodeShell(node: string): NodeShell {
    return noShell(node);
  }

  shellCommand(node: string): string[] {
    return noShell(node);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.down();
  }
}
