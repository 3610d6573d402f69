/** The LabDriver for real clusters (existing provider, kubeadm labs): agnhost pods, probes over Exec. */
import type { KubeConfig } from '@kubernetes/client-node';
import type { CommandRunner } from '../../../lab/exec/command-runner.ts';
import { ExecaRunner } from '../../../lab/exec/execa-runner.ts';
import { runNamespace } from '../../../lab/contracts/kubernetes-names.ts';
import { LabError } from '../../../lab/errors.ts';
import { silentLogger, type Logger } from '../../../lab/log/logger.ts';
import type { RunInfo } from '../../../lab/contracts/results-file.ts';
import type { Os } from '../../../lab/contracts/cells.ts';
import type {
  DeployedPod,
  LabDriver,
  ProbeReply,
  ProbeRequest,
  SuiteNode,
  Workloads,
} from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { discoverCluster, notReadyReason, type ClusterFacts } from './cluster-discovery.ts';
import { ExecError, execInPod } from './exec-in-pod.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import { apiErrorText, loadKubeConfig, makeClients, type KubeClients } from './kube-clients.ts';
import { probeFromHost } from './outside-probe.ts';
import { SuiteDeployment } from './suite-deployment.ts';
import { agnhostImage, NETEXEC_CONTAINER } from './suite-manifests.ts';

/** What the caller knows about the lab that the API server does not say. */
export interface LabFacts {
  lab: string;
  /** Named in results and logs: `existing`, `libvirt`, … */
  provider: string;
  /** e.g. `flannel/vxlan`. */
  cni: string;
  /** The cluster DNS domain; default cluster.local. */
  dnsDomain?: string;
}

export interface KubernetesDriverOptions {
  /** Injected API clients (unit tests pass fakes); missing ones are built from the KubeConfig. */
  clients?: Partial<KubeClients>;
  /** Runs `ip route get` to find the echo's address; default the execa runner. */
  runner?: CommandRunner;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  /** deploy()'s wait for Ready pods; default 80 % of DEPLOY_TIMEOUT_MS (300 s), under mocha's hook timeout. */
  podsReadyTimeoutMs?: number;
  /** cleanup()'s wait for the namespace to go; default 90 s. */
  namespaceGoneTimeoutMs?: number;
  /** Poll interval of both waits; default 2 s. */
  pollMs?: number;
  /** Slack on top of a probe's own timeout before its exec is abandoned; default 10 s. */
  execGraceMs?: number;
}

const SERVICE_OSES: readonly Os[] = ['linux', 'windows'];

export class KubernetesDriver implements LabDriver {
  readonly info: Omit<RunInfo, 'runId' | 'profile' | 'startedAt'>;
  readonly nodes: readonly SuiteNode[];
  readonly #facts: LabFacts;
  readonly #hostnames: Readonly<Record<string, string>>;
  readonly #clients: KubeClients;
  readonly #log: Logger;
  readonly #env: NodeJS.ProcessEnv;
  readonly #runner: CommandRunner;
  readonly #options: KubernetesDriverOptions;
  #deployment: SuiteDeployment | undefined;

  /** Opens a cluster by kubeconfig: discovers nodes, OS builds and the server version. */
  static async open(
    kubeconfigPath: string,
    facts: LabFacts,
    options: KubernetesDriverOptions = {},
  ): Promise<KubernetesDriver> {
    const config = loadKubeConfig(kubeconfigPath);
    const clients = makeClients(config, options.clients);
    let cluster: ClusterFacts;
    try {
      cluster = await discoverCluster(clients.core, clients.version);
    } catch (error) {
      if (error instanceof LabError) throw error;
      throw new InfrastructureError(`cannot read the cluster's nodes: ${apiErrorText(error)}`, {
        cause: error,
        hint: `kubectl --kubeconfig ${kubeconfigPath} get nodes`,
      });
    }
    return new KubernetesDriver(config, facts, cluster, { ...options, clients });
  }

  /** A driver over known cluster facts; `open()` discovers them. */
  constructor(
    kubeconfig: KubeConfig | string,
    facts: LabFacts,
    cluster: ClusterFacts,
    options: KubernetesDriverOptions = {},
  ) {
    const { core, version, exec } = options.clients ?? {};
    this.#clients =
      core && version && exec
        ? { core, version, exec }
        : makeClients(loadKubeConfig(kubeconfig), options.clients);
    this.#facts = facts;
    this.#hostnames = cluster.hostnames;
    this.#options = options;
    this.#env = options.env ?? process.env;
    this.#log = (options.log ?? silentLogger()).child({ provider: facts.provider, lab: facts.lab });
    this.#runner = options.runner ?? new ExecaRunner(this.#log);
    this.nodes = cluster.nodes;
    this.info = {
      lab: facts.lab,
      provider: facts.provider,
      emulated: false,
      kubernetesVersion: cluster.kubernetesVersion,
      cni: facts.cni,
      osBuilds: cluster.osBuilds,
    };
  }

  async checkReady(): Promise<void> {
    let items;
    try {
      ({ items } = await this.#clients.core.listNode());
    } catch (error) {
      throw new InfrastructureError(`cannot list nodes: ${apiErrorText(error)}`, { cause: error });
    }
    const problems = this.nodes.flatMap((node) => {
      const found = items.find((n) => n.metadata?.name === node.name);
      const why = found === undefined ? 'gone from the cluster' : notReadyReason(found);
      return why === undefined ? [] : [{ node: node.name, why }];
    });
    if (problems.length > 0) {
      throw new InfrastructureError(
        `nodes not ready: ${problems.map((p) => `${p.node} (${p.why})`).join(', ')}`,
        { hint: `kubectl describe node ${problems.map((p) => p.node).join(' ')}` },
      );
    }
    this.#log.info({ nodes: this.nodes.length }, 'all nodes ready');
  }

  async deploy(runId: string, podNames: { node: string; name: string }[]): Promise<Workloads> {
    if (this.#deployment !== undefined) {
      throw new LabError(
        `workloads are already deployed in ${this.#deployment.namespace}; cleanup() first`,
      );
    }
    const pods = podNames.map(({ name, node }) => {
      const found = this.nodes.find((n) => n.name === node);
      if (found === undefined) throw new LabError(`pod ${name}: the lab has no node ${node}`);
      return { name, node, os: found.os, nodeHostname: this.#hostnames[node] ?? node };
    });
    const options = this.#options;
    // Held before start() so cleanup() removes whatever a failed start left behind.
    this.#deployment = new SuiteDeployment(this.#clients.core, {
      namespace: runNamespace(runId),
      runId,
      lab: this.#facts.lab,
      image: agnhostImage(this.#env),
      dnsDomain: this.#facts.dnsDomain ?? 'cluster.local',
      pods,
      serviceOses: SERVICE_OSES,
      firstNodeIp: this.nodes[0]!.ip,
      env: this.#env,
      runner: this.#runner,
      log: this.#log,
      podsReadyTimeoutMs:
        options.podsReadyTimeoutMs ?? 0.8 * Number(this.#env.DEPLOY_TIMEOUT_MS ?? 300_000),
      namespaceGoneTimeoutMs: options.namespaceGoneTimeoutMs ?? 90_000,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
    return this.#deployment.start();
  }

  async probeFromPod(
    pod: DeployedPod,
    request: ProbeRequest,
    timeoutMs: number,
  ): Promise<ProbeReply> {
    const namespace = this.#deployment?.namespace;
    if (namespace === undefined) return { result: 'error', error: 'nothing is deployed' };
    const target = { namespace, pod: pod.name, container: NETEXEC_CONTAINER };
    const command = probeCommand(pod.os, request, timeoutMs);
    try {
      const grace = this.#options.execGraceMs ?? 10_000;
      return replyFromExec(
        request,
        await execInPod(this.#clients.exec, target, command, timeoutMs + grace),
      );
    } catch (error) {
      if (!(error instanceof ExecError)) throw error;
      this.#log.warn({ pod: pod.name, command, err: error }, 'probe exec failed');
      return { result: error.kind === 'timeout' ? 'timeout' : 'error', error: error.message };
    }
  }

  probeFromOutside(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
    return probeFromHost(request, timeoutMs);
  }

  /** Deletes the run namespace (waits, bounded) and stops the echo; idempotent. */
  async cleanup(): Promise<void> {
    const deployment = this.#deployment;
    if (deployment === undefined) return;
    await deployment.stop();
    if (this.#deployment === deployment) this.#deployment = undefined;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.cleanup();
  }
}
