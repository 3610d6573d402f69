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
import { LAB_LABEL, runNamespace, stampOf, thisUser } from '../../contracts/kubernetes-names.ts';
import { processAlive } from '../../exec/process-alive.ts';
import { kubeconfigFiles } from './kubeconfig-list.ts';
import {
  NodeFilterSyntaxError,
  parseNodeNames,
  parseSelector,
  parseTolerations,
} from './node-filter.ts';
import type { NodeChoice } from './node-usability.ts';
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

/**
 * The checks of the cluster itself once the kubeconfig reads (permissions, version, nodes);
 * a fake in unit tests.
 */
export type ClusterCheck = (
  kubeconfigPath: string,
  env: NodeJS.ProcessEnv,
) => Promise<{ problems: PreflightProblem[]; notes: string[] }>;

/** The node choice NODE_SELECTOR, NODES and TOLERATIONS make; a bad one is a problem naming it. */
function choiceFrom(env: NodeJS.ProcessEnv): { choice: NodeChoice; problems: PreflightProblem[] } {
  const problems: PreflightProblem[] = [];
  const read = <T>(name: string, parse: (text: string) => T): T | undefined => {
    const text = env[name]?.trim();
    if (text === undefined || text === '') return undefined;
    try {
      return parse(text);
    } catch (error) {
      if (!(error instanceof NodeFilterSyntaxError)) throw error;
      problems.push({ what: `${name}: ${error.message}`, fix: `docs/settings.md: ${name}` });
      return undefined;
    }
  };
  const text = env.NODE_SELECTOR?.trim();
  const terms = read('NODE_SELECTOR', parseSelector);
  const names = read('NODES', parseNodeNames);
  const tolerations = read('TOLERATIONS', parseTolerations);
  return {
    choice: {
      ...(terms === undefined || text === undefined ? {} : { selector: { text, terms } }),
      ...(names === undefined ? {} : { names }),
      ...(tolerations === undefined ? {} : { tolerations }),
    },
    problems,
  };
}

export const checkClusterWithClient: ClusterCheck = async (path, env) => {
  const { choice, problems } = choiceFrom(env);
  if (problems.length > 0) return { problems, notes: [] };
  const { AuthorizationV1Api, CoreV1Api, VersionApi } = await import('@kubernetes/client-node');
  const { loadKubeConfig } = await import('./kubeconfig-files.ts');
  const { clusterPreflight } = await import('./cluster-preflight.ts');
  const config = loadKubeConfig(path);
  try {
    return await clusterPreflight(
      {
        reviewer: config.makeApiClient(AuthorizationV1Api),
        core: config.makeApiClient(CoreV1Api),
        version: config.makeApiClient(VersionApi),
      },
      {
        namespace: runNamespace('preflight'),
        choice,
        pullSecret: (env.IMAGE_PULL_SECRET ?? '').trim() !== '',
      },
    );
  } catch (error) {
    const what = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      problems: [
        { what: `cannot reach the cluster: ${what}`, fix: `kubectl --kubeconfig ${path} version` },
      ],
      notes: [],
    };
  }
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
  const { CoreV1Api } = await import('@kubernetes/client-node');
  const { loadKubeConfig } = await import('./kubeconfig-files.ts');
  return loadKubeConfig(path).makeApiClient(CoreV1Api);
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

/** $KUBECONFIG (a list of files is merged as kubectl merges it), else ~/.kube/config. */
function defaultKubeconfig(env: NodeJS.ProcessEnv): string {
  return env.KUBECONFIG ?? join(homedir(), '.kube', 'config');
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
    private readonly checkCluster: ClusterCheck = checkClusterWithClient,
    private readonly whoReaps: WhoReaps = thisMachine,
  ) {}

  /** The kubeconfig, then the cluster: permissions, version and nodes, before anything is created. */
  async preflight(plan: LabPlan): Promise<PreflightProblem[]> {
    const read = await this.#readKubeconfig(plan);
    if (read.length > 0) return read;
    const path = kubeconfigPath(plan, this.env);
    const { problems, notes } = await this.checkCluster(path, this.env);
    for (const note of notes)
      this.context.log.info({ provider: this.name, kubeconfig: path }, note);
    return problems;
  }

  /** Every file of the kubeconfig reads as YAML, and the merged current-context names a context. */
  #readKubeconfig(plan: LabPlan): Promise<PreflightProblem[]> {
    const paths = kubeconfigPath(plan, this.env);
    let current: unknown;
    const contexts: unknown[] = [];
    for (const path of kubeconfigFiles(paths)) {
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
      // As kubectl merges a list: the first current-context set wins.
      current ??= config?.['current-context'] || undefined;
      contexts.push(...(config?.contexts ?? []).map((c) => c.name));
    }
    if (typeof current !== 'string' || !contexts.includes(current)) {
      return Promise.resolve([
        {
          what: `kubeconfig ${paths} has no usable current-context`,
          fix: `kubectl --kubeconfig ${kubeconfigFiles(paths)[0]} config use-context NAME`,
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
      for (const file of kubeconfigFiles(path)) accessSync(file, constants.R_OK);
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
