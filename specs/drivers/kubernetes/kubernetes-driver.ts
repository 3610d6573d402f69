/** The LabDriver for real clusters (existing provider, kubeadm labs): agnhost pods, probes over Exec. */
import { checkReachability, type ReachabilityProbes } from './reachability.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { isIP } from 'node:net';
import type { CommandRunner } from '../../../lab/exec/command-runner.ts';
import { ExecaRunner } from '../../../lab/exec/execa-runner.ts';
import { runNamespace, runStamp } from '../../../lab/contracts/kubernetes-names.ts';
import { LabError } from '../../../lab/errors.ts';
import { silentLogger, type Logger } from '../../../lab/log/logger.ts';
import type { RunInfo } from '../../../lab/contracts/results-file.ts';
import type { ChurnStep, Os } from '../../../lab/contracts/cells.ts';
import { churnChange, churnPlan } from '../../model/churn.ts';
import type {
  DeployedPod,
  HostNetexec,
  LabDriver,
  LeftOut,
  PerfCell,
  ProbeReply,
  ProbeRequest,
  SuiteNode,
  Workloads,
} from '../../model/lab-driver.ts';
import { sendProbe } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import {
  iperfServerCommand,
  perfCommand,
  perfReply,
  perfUnsupportedReason,
} from './perf-in-pod.ts';
import { discoverCluster, type ClusterFacts } from './cluster-discovery.ts';
import { missingPermissions } from '../../../lab/providers/existing/access-review.ts';
import { rolesFor, versionFindings } from '../../../lab/providers/existing/cluster-preflight.ts';
import { suiteRoles } from '../../../lab/providers/existing/suite-roles.ts';
import type { PreflightProblem } from '../../../lab/errors.ts';
import { leftOutBecause, type NodeChoice } from '../../../lab/providers/existing/node-usability.ts';
import { windowsImageChoice } from './image-platforms.ts';
import { ExecError, execInPod, type ExecTarget } from './exec-in-pod.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import { apiErrorText, loadKubeConfig, makeClients, type KubeClients } from './kube-clients.ts';
import { probeFromHost } from './outside-probe.ts';
import { probeArgs, probeProgramMs, requireEndpoints } from '../probe-args.ts';
import { sweepEndpoints } from '../../../lab/cluster/workload/endpoint-sweep.mjs';
import type { LabOutside } from '../../../lab/providers/lab-provider.ts';
import type { NodeShell } from '../../../lab/remote/node-shell.ts';
import { collectPathEvidence, type PathEvidence } from '../../../lab/cluster/path-evidence.ts';
import { NodeShellPods } from './node-shell-pods.ts';
import {
  collectWindowsEvidence,
  withWindowsEvidence,
} from '../../../lab/cluster/windows-path-evidence.ts';
import type { CellMeta } from '../../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../../model/cell-plan.ts';
import {
  LOCAL_WORKLOADS,
  parseProbe,
  probeArgv,
} from '../../../lab/cluster/runtime/workload-programs.ts';
import {
  agnhostImages,
  kubernetesSettings,
  type KubernetesSettings,
} from './kubernetes-settings.ts';
import { SuiteDeployment, type DeploymentSettings } from './suite-deployment.ts';
import { NETEXEC_CONTAINER, type PodExtras, type PodToRender } from './suite-manifests.ts';
import {
  NETEXEC_HTTP_PORT,
  backsLocalService,
  hostNetworkPod,
} from '../../model/workload-names.ts';
import { routeSourceAddress } from './external-echo.ts';
import type { NodeActions } from '../../../lab/providers/lab-provider.ts';
import { KubeDisruptor } from './kube-disruptor.ts';
import { windowsHostIdentities } from './host-identity.ts';
import type { OutboundNatMode } from './cluster-intent.ts';
import { KubeOverTime, type KubeRun } from './kube-over-time.ts';
import { EXTERNAL_ECHO_HOSTNAME } from '../../../lab/cluster/cluster-bootstrap.ts';
import { featureAddresses, internalTrafficPolicyGap } from '../../model/service-features.ts';
import { healthCheckLoadBalancer } from './feature-manifests.ts';

/**
 * The affinity-timeout Services' timeoutSeconds on real clusters: well above the gaps between a
 * sweep's connections, one exec round trip each (a second or two on a busy VM).
 */
const AFFINITY_TIMEOUT_SECONDS = 10;
/** How long a Windows host's /hostname may take at deploy (an exec into a HostProcess pod), at most. */
const HOST_IDENTITY_TIMEOUT_MS = 30_000;

/** What the caller knows about the lab that the API server does not say. */
export interface LabFacts {
  lab: string;
  /** Named in results and logs: `existing`, `libvirt`, … */
  provider: string;
  /** e.g. `flannel/vxlan`. */
  cni: string;
  /** The cluster DNS domain; default cluster.local. */
  dnsDomain?: string;
  /** Whether Windows kube-proxy runs with DSR, where the lab provisioned it (RunInfo.windowsDsr). */
  windowsDsr?: boolean;
  /** What the outbound-NAT echo must see (RunInfo.outboundNat); absent: the node's address. */
  outboundNat?: OutboundNatMode;
}

export interface KubernetesDriverOptions {
  /** Outside the cluster, where this host is not (netns kubeadm labs): NodePort probes and the echo. */
  outside?: LabOutside;
  /** The agnhost image per OS the lab provides (its nodes imported it); AGNHOST_IMAGE still wins. */
  images?: Partial<Record<Os, string>>;
  /** What the lab says of itself for the results (how Kubernetes was built, what the nodes are). */
  facts?: Readonly<Record<string, string>>;
  /** Injected API clients (unit tests pass fakes); missing ones are built from the KubeConfig. */
  clients?: Partial<KubeClients>;
  /**
   * The lab's external address on this host (libvirt labs: on the lab network's bridge, outside
   * every cluster CIDR and OutBoundNAT exception list): the echo listens there.
   */
  externalAddress?: string;
  /** Runs `ip route get` to find the echo's address; default the execa runner. */
  runner?: CommandRunner;
  log?: Logger;
  /** What the environment sets (checked at the suite's start); default: read from process.env. */
  settings?: KubernetesSettings;
  /** Poll interval of both waits; default 2 s. */
  pollMs?: number;
  /**
   * The lab's shell on a node (labs the harness made); without it path evidence goes through a
   * privileged pod on each node of the path.
   */
  nodeShell?: (node: string) => NodeShell;
  /** Slack on top of a probe's own timeout before its exec is abandoned; default 10 s. */
  execGraceMs?: number;
  /** The lab's machines below the API (labs the harness made): runtime restarts, reboots. */
  nodeActions?: NodeActions;
  /** Says what the user must know before the run goes on (a cloud load balancer); default stderr. */
  warn?: (text: string) => void;
  /** Progress of a long wait (the images' pulls), one line at a time; default stderr. */
  say?: (text: string) => void;
  /** How the reachability check asks its questions (unit tests); default this driver's probes. */
  reachability?: ReachabilityProbes;
  /**
   * The Windows variants' `os.version`s of an image (image-platforms.ts); default its registry's
   * index over HTTPS, 10 s. Undefined: a single-platform image, nothing to check.
   */
  windowsVariants?: (image: string) => Promise<string[] | undefined>;
}

const SERVICE_OSES: readonly Os[] = ['linux', 'windows'];

/**
 * Before anything is created on a cluster the harness did not make: every permission of the
 * shipped ClusterRoles, by SelfSubjectAccessReview, and the API's version against the fields the
 * run uses; all that is missing in one error, each with its fix.
 */
async function preflight(clients: KubeClients, settings: KubernetesSettings): Promise<void> {
  const reviewer = clients.authorization;
  if (reviewer === undefined) return;
  const roles = suiteRoles();
  const pullSecret = settings.imagePullSecret !== undefined;
  let problems: PreflightProblem[];
  try {
    const { gitVersion } = await clients.version.getCode();
    const denied = await Promise.all(
      rolesFor({ pullSecret }).map((role) =>
        missingPermissions(reviewer, role, roles[role], runNamespace(PREFLIGHT_RUN)),
      ),
    );
    problems = [...versionFindings(gitVersion).problems, ...denied.flat()];
  } catch (error) {
    throw new InfrastructureError(`cannot reach the cluster: ${apiErrorText(error)}`, {
      cause: error,
      hint: 'kubectl version, with the same kubeconfig',
    });
  }
  if (problems.length === 0) return;
  throw new InfrastructureError(
    `the cluster does not let this run start (nothing was created): ${problems.map((p) => p.what).join('; ')}`,
    { hint: [...new Set(problems.map((p) => p.fix))].join('; ') },
  );
}

/** The run id whose namespace name the preflight asks permissions in (namespaced ones). */
const PREFLIGHT_RUN = 'preflight';

/** The user's choice of nodes and the tolerations the suite's pods carry. */
function nodeChoice(settings: KubernetesSettings): NodeChoice {
  return { ...settings.nodeFilter, tolerations: settings.tolerations };
}

export class KubernetesDriver implements LabDriver {
  readonly info: Omit<RunInfo, 'runId' | 'profile' | 'startedAt'>;
  readonly nodes: readonly SuiteNode[];
  readonly leftOut: readonly LeftOut[];
  readonly #facts: LabFacts;
  readonly #hostnames: Readonly<Record<string, string>>;
  readonly #clients: KubeClients;
  readonly #log: Logger;
  readonly #settings: KubernetesSettings;
  readonly #runner: CommandRunner;
  readonly #options: KubernetesDriverOptions;
  #deployment: SuiteDeployment | undefined;
  #workloads: Workloads | undefined;
  /** Path evidence's shells on a cluster the harness did not make (pods, made on first use). */
  #shellPods: NodeShellPods | undefined;
  /** The run's id, images and pod extras, once deployed (the over-time rows render their pods with them). */
  #run: ({ runId: string; images: Record<Os, string> } & PodExtras) | undefined;
  /** Long-lived, stateful UDP and twin-service cells, and disruptions (specs/engine/disruption). */
  readonly overTime?: KubeOverTime;
  /** Pods whose iperf3 server runs (perf streams). */
  readonly #iperfServers = new Set<string>();
  /** On a cluster the harness did not make, evidence changes the user's nodes: only when asked. */
  readonly evidenceOptIn?: string;

  /** Opens a cluster by kubeconfig: discovers nodes, OS builds and the server version. */
  static async open(
    kubeconfigPath: string,
    facts: LabFacts,
    options: KubernetesDriverOptions = {},
  ): Promise<KubernetesDriver> {
    const config = loadKubeConfig(kubeconfigPath);
    const clients = makeClients(config, options.clients);
    const settings = options.settings ?? kubernetesSettings(process.env);
    if (facts.provider === 'existing') await preflight(clients, settings);
    let cluster: ClusterFacts;
    try {
      cluster = await discoverCluster(clients.core, clients.version, nodeChoice(settings), () =>
        windowsImageChoice(agnhostImages(settings, options.images).windows, {
          ...(options.windowsVariants === undefined ? {} : { read: options.windowsVariants }),
          warn: options.warn ?? ((text) => process.stderr.write(`hybrid-lab: warning: ${text}\n`)),
        }),
      );
    } catch (error) {
      if (error instanceof LabError) throw error;
      throw new InfrastructureError(`cannot read the cluster's nodes: ${apiErrorText(error)}`, {
        cause: error,
        hint: `kubectl --kubeconfig ${kubeconfigPath} get nodes`,
      });
    }
    return new KubernetesDriver(config, facts, cluster, { ...options, clients, settings });
  }

  /** A driver over known cluster facts; `open()` discovers them. */
  constructor(
    kubeconfig: KubeConfig | string,
    facts: LabFacts,
    cluster: ClusterFacts,
    options: KubernetesDriverOptions = {},
  ) {
    const { core, version, exec, overTime } = options.clients ?? {};
    this.#clients =
      core && version && exec
        ? { core, version, exec, ...(overTime === undefined ? {} : { overTime }) }
        : makeClients(loadKubeConfig(kubeconfig), options.clients);
    this.#facts = facts;
    this.#hostnames = cluster.hostnames;
    this.#options = options;
    this.#settings = options.settings ?? kubernetesSettings(process.env);
    this.#log = (options.log ?? silentLogger()).child({ provider: facts.provider, lab: facts.lab });
    this.#runner = options.runner ?? new ExecaRunner(this.#log);
    this.nodes = cluster.nodes;
    this.leftOut = cluster.leftOut ?? [];
    // Without the lab's own node shells (a cluster the harness did not make), evidence goes
    // through privileged pods on the user's nodes.
    if (options.nodeShell === undefined)
      this.evidenceOptIn =
        "on a cluster the harness did not make, path evidence puts privileged pods on the cluster's nodes, loads nftables trace rules there and runs pktmon captures";
    this.info = {
      lab: facts.lab,
      provider: facts.provider,
      emulated: false,
      kubernetesVersion: cluster.kubernetesVersion,
      // What runs in the cluster wins over what the lab claims.
      cni: cluster.cni === undefined ? facts.cni : `${cluster.cni} (found running)`,
      ...(cluster.clusterDns === undefined ? {} : { clusterDns: cluster.clusterDns }),
      ...(facts.windowsDsr === undefined ? {} : { windowsDsr: facts.windowsDsr }),
      ...(facts.outboundNat === undefined ? {} : { outboundNat: facts.outboundNat }),
      ...(options.facts === undefined ? {} : { facts: { ...options.facts } }),
      osBuilds: cluster.osBuilds,
    };
    const client = this.#clients.overTime;
    if (client !== undefined) {
      this.overTime = new KubeOverTime({
        core: this.#clients.core,
        client,
        exec: this.#clients.exec,
        nodes: this.nodes,
        run: () => this.#overTimeRun(),
        settleMs: this.#settings.churnSettleMs,
        podsReadyTimeoutMs: this.#settings.podsReadyTimeoutMs,
        disruptor: new KubeDisruptor({
          client,
          hostname: (node) => this.#nodeHostname(node),
          existing: facts.provider === 'existing',
          ...(options.nodeActions === undefined ? {} : { nodeActions: options.nodeActions }),
        }),
        log: this.#log,
      });
    }
  }

  /** What the over-time rows need of the run, once deployed. */
  #overTimeRun(): KubeRun | undefined {
    const deployment = this.#deployment;
    const workloads = this.#workloads;
    const run = this.#run;
    if (deployment === undefined || workloads === undefined || run === undefined) return undefined;
    return {
      namespace: deployment.namespace,
      ...run,
      lab: this.#facts.lab,
      dnsDomain: this.#facts.dnsDomain ?? 'cluster.local',
      workloads,
      podToRender: (name, node) => this.#podToRender(name, node),
    };
  }

  /**
   * Throws when a node the run planned its cells on has become unusable since (gone, NotReady,
   * cordoned, tainted): the nodes left out when the driver opened only have their cells skipped.
   */
  async checkReady(): Promise<void> {
    let items;
    try {
      ({ items } = await this.#clients.core.listNode());
    } catch (error) {
      throw new InfrastructureError(`cannot list nodes: ${apiErrorText(error)}`, { cause: error });
    }
    const choice = nodeChoice(this.#settings);
    const problems = this.nodes.flatMap((node) => {
      const found = items.find((n) => n.metadata?.name === node.name);
      const why = found === undefined ? 'is gone from the cluster' : leftOutBecause(found, choice);
      return why === undefined ? [] : [`${node.name} ${why}`];
    });
    if (problems.length > 0) {
      throw new InfrastructureError(
        `nodes the run planned its cells on are no longer usable: ${problems.join('; ')}`,
        {
          hint: `a new run leaves them out and skips their cells; kubectl describe node ${this.nodes.map((n) => n.name).join(' ')}`,
        },
      );
    }
    this.#log.info(
      {
        nodes: this.nodes.length,
        leftOut: this.leftOut.map((l) => `${l.node.name} ${l.why}`),
      },
      'nodes ready',
    );
  }

  async deploy(runId: string, podNames: { node: string; name: string }[]): Promise<Workloads> {
    if (this.#deployment !== undefined) {
      throw new LabError(
        `workloads are already deployed in ${this.#deployment.namespace}; cleanup() first`,
      );
    }
    const pods = podNames.map(({ name, node }) => this.#podToRender(name, node));
    const churned = SERVICE_OSES.flatMap((os) => churnPlan(this.nodes, os) ?? []);
    const options = this.#options;
    const settings = this.#settings;
    const images = agnhostImages(settings, options.images);
    const extras: PodExtras = {
      tolerations: settings.tolerations,
      ...(settings.imagePullSecret === undefined
        ? {}
        : { pullSecret: settings.imagePullSecret.name }),
    };
    this.#run = { runId, images, ...extras };
    // Where this host's packets to the nodes come from: NodePort probes, and the echo by default.
    const outsideAddress =
      options.outside?.address ?? (await routeSourceAddress(this.#runner, this.nodes[0]!.ip));
    const loadBalancerClass = this.#loadBalancerClass();
    // Held before start() so cleanup() removes whatever a failed start left behind.
    this.#deployment = new SuiteDeployment(this.#clients.core, {
      namespace: runNamespace(runId),
      runId,
      lab: this.#facts.lab,
      stamp: runStamp(),
      images,
      ...extras,
      ...(settings.imagePullSecret === undefined
        ? {}
        : { pullSecretSource: settings.imagePullSecret }),
      dnsDomain: this.#facts.dnsDomain ?? 'cluster.local',
      pods,
      serviceOses: SERVICE_OSES,
      churnOses: churned.map((plan) => plan.os),
      churnPods: churned.flatMap((plan) =>
        plan.backends.map(({ name, node }) => this.#podToRender(name, node)),
      ),
      hostNetwork: this.nodes.map((n) => ({
        node: n.name,
        name: hostNetworkPod(n.name),
        nodeHostname: this.#nodeHostname(n.name),
        os: n.os,
        address: n.ip,
      })),
      outsideAddress,
      echo: this.#echo(outsideAddress),
      features: {
        internalLocal: internalTrafficPolicyGap(this.info.kubernetesVersion) === undefined,
        affinityTimeoutSeconds: AFFINITY_TIMEOUT_SECONDS,
        ...(loadBalancerClass === undefined ? {} : { loadBalancerClass }),
      },
      keepNamespace: settings.keepRunNamespace,
      log: this.#log,
      pullTimeoutMs: settings.prePullTimeoutMs,
      say: (text) => {
        this.#log.info(text);
        (this.#options.say ?? ((t) => process.stderr.write(`hybrid-lab: ${t}\n`)))(text);
      },
      podsReadyTimeoutMs: settings.podsReadyTimeoutMs,
      namespaceGoneTimeoutMs: settings.namespaceGoneTimeoutMs,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
    if (options.nodeShell === undefined) {
      this.#shellPods = new NodeShellPods(this.#clients.core, this.#clients.exec, {
        namespace: this.#deployment.namespace,
        runId,
        lab: this.#facts.lab,
        linuxImage: settings.evidenceImage ?? images.linux,
        windowsImage: images.windows,
        ...(extras.pullSecret === undefined ? {} : { pullSecret: extras.pullSecret }),
        nodes: this.#evidenceNodes().map((n) => ({
          name: n.name,
          nodeHostname: this.#nodeHostname(n.name),
          os: n.os,
        })),
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      });
    }
    const started = await this.#deployment.start();
    const deployed = { ...started, hostNetwork: await this.#hostIdentities(started.hostNetwork) };
    this.#workloads =
      this.#facts.provider === 'existing'
        ? { ...deployed, unreachable: await this.#reachability(deployed) }
        : deployed;
    return this.#workloads;
  }

  /** The health-check Services' load balancer class; where there is none, the user is told why. */
  #loadBalancerClass(): string | undefined {
    const { loadBalancerClass, note } = healthCheckLoadBalancer(
      this.info.kubernetesVersion,
      this.#facts.provider === 'existing',
    );
    if (note?.warn === true) {
      this.#log.warn(note.text);
      const warn =
        this.#options.warn ?? ((text) => process.stderr.write(`hybrid-lab: warning: ${text}\n`));
      warn(note.text);
    } else if (note !== undefined) this.#log.info(note.text);
    return loadBalancerClass;
  }

  /**
   * On a cluster the harness did not make: which nodes the outside cannot reach at all, and which
   * get no answer from the echo on their own network (reachability.ts); said to the user, since
   * each one skips cells. The labs the harness made have both by construction.
   */
  async #reachability(workloads: Workloads): Promise<NonNullable<Workloads['unreachable']>> {
    const { items } = await this.#clients.core.listNode().catch(() => ({ items: [] }));
    const ports = Object.fromEntries(
      items.flatMap((n) => {
        const port = n.status?.daemonEndpoints?.kubeletEndpoint?.Port;
        return port === undefined || n.metadata?.name === undefined
          ? []
          : [[n.metadata.name, port]];
      }),
    );
    const unreachable = await checkReachability(
      workloads,
      ports,
      this.#options.reachability ?? {
        fromOutside: (request, timeoutMs) => this.probeFromOutside(request, timeoutMs),
        fromNode: (node, request, timeoutMs) => this.probeFromNode(node, request, timeoutMs),
      },
    );
    const say =
      this.#options.warn ?? ((text) => process.stderr.write(`hybrid-lab: warning: ${text}\n`));
    for (const [node, why] of Object.entries(unreachable.outside))
      say(`the outside cannot reach ${node}: ${why}; its cells from outside are skipped`);
    for (const [node, why] of Object.entries(unreachable.echo))
      say(`${node} cannot reach the external echo: ${why}; its cells to the echo are skipped`);
    this.#log.info({ unreachable }, 'reachability before the matrix');
    return unreachable;
  }

  /** The host netexecs with what each Windows one says its name is (host-identity.ts). */
  async #hostIdentities(hosts: readonly HostNetexec[]): Promise<HostNetexec[]> {
    const windows = new Set(this.nodes.filter((n) => n.os === 'windows').map((n) => n.name));
    const { hosts: named, differ } = await windowsHostIdentities(hosts, windows, (node, request) =>
      this.probeFromNode(
        node,
        request,
        Math.min(HOST_IDENTITY_TIMEOUT_MS, this.#settings.podsReadyTimeoutMs),
      ),
    );
    for (const d of differ)
      this.#log.info(d, 'a Windows host answers /hostname with its own name, not its node label');
    return named;
  }

  /**
   * Path evidence of a failing cell over the lab's own node shells, or, on a cluster the harness
   * did not make, over a privileged pod on each node: the cell's nodes and those of the cluster
   * DNS pods for lookups. Linux nodes trace a retry with nftables, Windows nodes capture another
   * with pktmon and show HNS's view; packets between the run's pods there (and, on Linux, those
   * nodes' pod networks), the nodes, the Services, the cluster DNS and the echo.
   */
  async pathEvidence(cell: CellMeta, spec: ProbeSpec, timeoutMs: number): Promise<PathEvidence> {
    const pods = this.#shellPods;
    const shellOf = this.#options.nodeShell ?? pods?.shell.bind(pods);
    const workloads = this.#workloads;
    if (shellOf === undefined || workloads === undefined)
      throw new Error('nothing deployed: no path to look at');
    const dns = cell.via === 'dns' ? await this.#clusterDns() : { nodes: [], addresses: [] };
    const onPath = [
      ...new Set([cell.source.node, ...cell.target.node.split(','), ...dns.nodes]),
    ].flatMap((name) => this.nodes.filter((n) => n.name === name));
    const names = onPath.map((n) => n.name);
    const flow = [
      ...new Set([
        ...workloads.pods.filter((p) => names.includes(p.node)).map((p) => p.ip),
        ...onPath.map((n) => n.ip),
        ...[...workloads.services, ...workloads.hairpin].map((s) => s.clusterIP),
        ...featureAddresses(workloads.features),
        workloads.apiServiceIP,
        ...dns.addresses,
        workloads.external.address,
        workloads.outsideAddress,
      ]),
    ].filter((a) => a !== '');
    const retry = () => sendProbe(this, workloads, spec, timeoutMs);
    const linux = onPath.filter((n) => n.os === 'linux').map((n) => n.name);
    const traced =
      linux.length === 0
        ? undefined
        : await collectPathEvidence(shellOf, {
            nodes: linux,
            addresses: flow,
            networks: await this.#podNetworks(linux),
            retry,
            retryMs: probeProgramMs(spec.request, timeoutMs),
          });
    // Windows nodes capture around a retry of their own: nftables tracing is Linux's.
    const windows = onPath.filter((n) => n.os === 'windows').map((n) => n.name);
    const captures = await Promise.all(
      windows.map(async (node) => ({
        node,
        ...(await collectWindowsEvidence(shellOf(node), flow, retry)),
      })),
    );
    return withWindowsEvidence(traced, captures);
  }

  /** The pod CIDRs of `names` as their Node objects give them (none when unreadable). */
  async #podNetworks(names: readonly string[]): Promise<string[]> {
    const { items } = await this.#clients.core.listNode().catch(() => ({ items: [] }));
    return items
      .filter((n) => names.includes(n.metadata?.name ?? ''))
      .flatMap((n) => n.spec?.podCIDR ?? []);
  }

  /** The cluster DNS: its Service address, its pods' addresses and nodes (none when unreadable). */
  async #clusterDns(): Promise<{ nodes: string[]; addresses: string[] }> {
    const byHostname = new Map(Object.entries(this.#hostnames).map(([node, host]) => [host, node]));
    try {
      const [service, pods] = await Promise.all([
        this.#clients.core.readNamespacedService({ name: 'kube-dns', namespace: 'kube-system' }),
        this.#clients.core.listNamespacedPod({
          namespace: 'kube-system',
          labelSelector: 'k8s-app=kube-dns',
        }),
      ]);
      return {
        nodes: pods.items.map(
          (p) => byHostname.get(p.spec?.nodeName ?? '') ?? p.spec?.nodeName ?? '',
        ),
        addresses: [service.spec?.clusterIP ?? '', ...pods.items.map((p) => p.status?.podIP ?? '')],
      };
    } catch (error) {
      this.#log.warn({ err: error }, 'cluster DNS not found for path evidence');
      return { nodes: [], addresses: [] };
    }
  }

  /**
   * Where outbound-NAT probes go: the lab's own echo (netns kubeadm labs: in the outside
   * namespace), else one this host starts at EXTERNAL_ECHO_ADDRESS, else at the lab's external
   * address, else (a cluster without a plan) at `hostAddress`, this host's address on the route
   * to the nodes.
   */
  #echo(hostAddress: string): DeploymentSettings['echo'] {
    const { outside, externalAddress } = this.#options;
    if (outside !== undefined && this.#settings.echoAddress === undefined) {
      // A lab's own echo is the emulated labs' netexec unless the lab names another.
      return { lab: { hostname: EXTERNAL_ECHO_HOSTNAME, ...outside.echo } };
    }
    const address = this.#settings.echoAddress ?? externalAddress ?? hostAddress;
    return { address, port: this.#settings.echoPort };
  }

  async probeFromPod(
    pod: DeployedPod,
    request: ProbeRequest,
    timeoutMs: number,
  ): Promise<ProbeReply> {
    if (request.kind === 'endpoints') requireEndpoints(request);
    const namespace = this.#deployment?.namespace;
    if (namespace === undefined) return { result: 'error', error: 'nothing is deployed' };
    const target = { namespace, pod: pod.name, container: NETEXEC_CONTAINER };
    if (request.kind === 'udp' && isIP(request.host) === 0) {
      // agnhost's dialer does not say whom it reached: look the name up, then send to that address.
      const lookup: ProbeRequest = { kind: 'dns', name: request.host, port: NETEXEC_HTTP_PORT };
      const found = await this.#execProbe(
        target,
        probeCommand(pod.os, lookup, timeoutMs),
        lookup,
        timeoutMs,
        pod.os,
      );
      const address = found.addresses?.[0];
      if (found.result !== 'ok' || address === undefined)
        return { ...found, error: `looking up ${request.host}: ${found.error ?? 'no address'}` };
      return this.probeFromPod(pod, { ...request, host: address }, timeoutMs);
    }
    if (request.kind === 'perf') return this.#measure(target, request, timeoutMs);
    const command = probeCommand(pod.os, request, timeoutMs);
    const once = () => this.#execProbe(target, command, request, timeoutMs, pod.os);
    // One exec per connection: Windows pods have no shell to loop in, so the driver sweeps.
    return request.kind === 'endpoints' ? sweepEndpoints(request, once) : once();
  }

  /**
   * One perf measure from `source`; a stream first starts the iperf3 server in the pod (or the
   * host-network pod) whose address it goes to, once per pod: the run namespace's end stops it.
   */
  async #measure(
    source: ExecTarget,
    request: Extract<ProbeRequest, { kind: 'perf' }>,
    timeoutMs: number,
  ): Promise<ProbeReply> {
    const grace = this.#options.execGraceMs ?? 10_000;
    try {
      if (request.measure !== 'tcp-rr' && request.measure !== 'tcp-crr') {
        const failed = await this.#startIperf(
          source,
          new URL(request.base).hostname,
          timeoutMs + grace,
        );
        if (failed !== undefined) return { result: 'error', error: failed };
      }
      // rr/crr may run a last batch of requests past the duration; a stream whole seconds.
      const runs = Math.ceil(request.durationMs / 1000) * 1000 + timeoutMs * 2;
      return perfReply(
        request,
        await execInPod(this.#clients.exec, source, perfCommand(request), runs + grace),
      );
    } catch (error) {
      if (!(error instanceof ExecError)) throw error;
      return { result: error.kind === 'timeout' ? 'timeout' : 'error', error: error.message };
    }
  }

  /** Starts iperf3's server in the suite pod at `host` unless it runs; why not, when it cannot. */
  async #startIperf(
    source: ExecTarget,
    host: string,
    limitMs: number,
  ): Promise<string | undefined> {
    const server =
      this.#workloads?.pods.find((p) => p.ip === host)?.name ??
      this.nodes.filter((n) => n.ip === host).map((n) => hostNetworkPod(n.name))[0];
    if (server === undefined) return `no suite pod at ${host} to run an iperf3 server in`;
    if (this.#iperfServers.has(server)) return undefined;
    const started = await execInPod(
      this.#clients.exec,
      { ...source, pod: server },
      iperfServerCommand(host),
      limitMs,
    );
    if (started.exitCode !== 0)
      return `iperf3 server in ${server} did not start: ${started.stderr.trim() || started.stdout.trim()}`;
    this.#iperfServers.add(server);
    return undefined;
  }

  /** Runs the probe in the node's host-network netexec pod: on the node's own network. */
  probeFromNode(node: string, request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
    const found = this.nodes.find((n) => n.name === node);
    if (found === undefined) return Promise.resolve({ result: 'error', error: `no node ${node}` });
    const pod = { name: hostNetworkPod(node), node, os: found.os, ip: found.ip, fqdn: '' };
    return this.probeFromPod(pod, request, timeoutMs);
  }

  /** Runs one probe command in the pod; an exec that fails or hangs is the probe's error or timeout. */
  async #execProbe(
    target: ExecTarget,
    command: string[],
    request: ProbeRequest,
    timeoutMs: number,
    os: Os,
  ): Promise<ProbeReply> {
    try {
      const grace = this.#options.execGraceMs ?? 10_000;
      return replyFromExec(
        request,
        await execInPod(this.#clients.exec, target, command, timeoutMs + grace),
        os,
      );
    } catch (error) {
      if (!(error instanceof ExecError)) throw error;
      this.#log.warn({ pod: target.pod, command, err: error }, 'probe exec failed');
      return { result: error.kind === 'timeout' ? 'timeout' : 'error', error: error.message };
    }
  }

  /** From this host, or where the lab's outside is (the probe program runs there). */
  async probeFromOutside(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
    const outside = this.#options.outside;
    if (outside === undefined) return probeFromHost(request, timeoutMs);
    const argv = probeArgv(probeArgs(request, timeoutMs), LOCAL_WORKLOADS);
    const programMs = probeProgramMs(request, timeoutMs);
    return parseProbe(await outside.exec(argv, { timeoutMs: programMs + 10_000 }));
  }

  /** deploy() waits for the images this long at most before its own clock starts. */
  get imagePullTimeoutMs(): number {
    return this.#settings.prePullTimeoutMs;
  }

  /** CHURN_SETTLE_MS; by default kube-proxy's --iptables-sync-period (Windows' --sync-period). */
  get churnSettleMs(): number {
    return this.#settings.churnSettleMs;
  }

  /** Makes `step` on the churn Service of `os`: deletes and creates its pods as churnChange says. */
  async churn(os: Os, step: ChurnStep): Promise<void> {
    const plan = churnPlan(this.nodes, os);
    const deployment = this.#deployment;
    if (plan === undefined || deployment === undefined)
      throw new Error(`no churn Service of ${os}`);
    const { remove, create } = churnChange(plan, step);
    await deployment.churnPods(
      remove,
      create.map(({ name, node }) => this.#podToRender(name, node)),
    );
  }

  /**
   * The nodes path evidence may put a node shell pod on: those the run uses. A node filter
   * (NODE_SELECTOR / NODES) narrows this list, so evidence never touches a node the run left out.
   */
  #evidenceNodes(): readonly SuiteNode[] {
    return this.nodes;
  }

  /** The node's `kubernetes.io/hostname` label, which pods are pinned by. */
  #nodeHostname(node: string): string {
    return this.#hostnames[node] ?? node;
  }

  #podToRender(name: string, node: string): PodToRender & { node: string } {
    const found = this.nodes.find((n) => n.name === node);
    if (found === undefined) throw new LabError(`pod ${name}: the lab has no node ${node}`);
    return {
      name,
      node,
      os: found.os,
      nodeHostname: this.#nodeHostname(node),
      localBackend: backsLocalService(this.nodes, node, name),
    };
  }

  pending(): string[] {
    return this.#deployment?.pending() ?? [];
  }

  /**
   * Deletes the node shell pods and the run namespace (waits, bounded; a slow one is a warning),
   * and stops the echo; idempotent.
   */
  /** Why a perf cell is skipped here (perf-in-pod.ts: Windows, other images, Service streams). */
  perfUnsupported(cell: PerfCell): string | undefined {
    return perfUnsupportedReason(cell, agnhostImages(this.#settings, this.#options.images).linux);
  }

  async cleanup(): Promise<void> {
    const deployment = this.#deployment;
    if (deployment === undefined) return;
    // Even a kept namespace (HYBRID_KEEP_RUN_NAMESPACE) keeps no privileged pod.
    let shellError: Error | undefined;
    try {
      await this.#shellPods?.stop();
    } catch (error) {
      shellError = new InfrastructureError(
        `cannot delete node shell pods: ${apiErrorText(error)}`,
        {
          cause: error,
        },
      );
    }
    await deployment.stop();
    if (this.#deployment === deployment) {
      this.#deployment = undefined;
      this.#workloads = undefined;
      this.#shellPods = undefined;
      this.#iperfServers.clear();
    }
    if (shellError !== undefined) throw shellError;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.cleanup();
  }
}
