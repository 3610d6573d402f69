/**
 * The emulated cluster's API: pods, Services, namespaces, exec. State lives in a JSON file, so
 * the suite can attach from another process; every change re-syncs the dataplane.
 */
import { join } from 'node:path';
import { ProviderError } from '../errors.ts';
import type { RunOptions, RunResult } from '../exec/command-runner.ts';
import type { Logger } from '../log/logger.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import { podDnsConfig, renderResolvConf } from './dataplane/cluster-dns.ts';
import type { ClusterHosts } from './cluster-hosts.ts';
import * as objects from './control/cluster-objects.ts';
import {
  ClusterStateStore,
  type ClusterState,
  type ExternalEcho,
  type KubeProxyQuirk,
  type PodRecord,
  type PodSpec,
  type ServicePort,
  type ServiceRecord,
  type ServiceSpec,
} from './control/cluster-state.ts';
import { syncDataplane, zoneFileOn, type SyncContext } from './cluster-sync.ts';
import { podNamespace, podVeth } from './dataplane/names.ts';
import { attachPod } from './dataplane/pod-network-attach.ts';
import { readWindowsCni, writeWindowsCni } from './dataplane/windows-cni-files.ts';
import {
  READY_LINE,
  dnsServerArgv,
  netexecArgv,
  type ProbeReply,
} from './runtime/workload-programs.ts';

export type { ProbeReply } from './runtime/workload-programs.ts';

export interface CreatedService {
  /** Absent for headless and ExternalName Services. */
  clusterIP?: string;
  /** Allocated NodePort per port name (NodePort and LoadBalancer Services). */
  nodePorts: Record<string, number>;
  /** LoadBalancer Services with externalTrafficPolicy Local. */
  healthCheckNodePort?: number;
}

export interface ServiceInfo extends ServiceRecord {
  endpoints: string[];
}

export interface ClusterListing {
  pods: PodRecord[];
  services: ServiceInfo[];
  externalEcho: ExternalEcho;
}

export class EmulatedCluster {
  readonly store: ClusterStateStore;
  private readonly sync: SyncContext;

  constructor(
    readonly plan: LabPlan,
    /** `<stateDir>/netns`: cluster.json, cni/ and, for pods of this host, logs/ and zone.json. */
    readonly dir: string,
    /** Where each node's pods and wiring run, and the outside world. */
    readonly hosts: ClusterHosts,
    log: Logger,
  ) {
    this.store = new ClusterStateStore(dir);
    this.sync = { plan, dir, log, hosts };
  }

  /** Starts a pod running netexec (HTTP 8080, UDP 8081) and returns its IP once it listens. */
  async createPod(spec: PodSpec): Promise<string> {
    return (await this.startPod(spec, 'netexec')).ip;
  }

  /** Used by bootstrap for the DNS pod; user pods go through createPod. */
  async startPod(spec: PodSpec, program: PodRecord['program'], system = false): Promise<PodRecord> {
    const pod = await this.store.update((state) => {
      const node = objects.checkPodSpec(this.plan, state, spec);
      const netns = podNamespace(this.plan.prefix, spec.namespace, spec.name);
      const record: PodRecord = {
        ...spec,
        labels: { ...spec.labels },
        ip: objects.allocatePodIp(node, state),
        netns,
        phase: 'Pending',
        program,
        logFile: join(this.hosts.pods(node.name).dataDir ?? this.dir, 'logs', `${netns}.log`),
        ...(system ? { system } : {}),
      };
      state.pods.push(record);
      return record;
    });
    try {
      const node = objects.planNode(this.plan, pod.node);
      const runtime = this.hosts.pods(node.name);
      const windowsCni = node.os === 'windows' ? readWindowsCni(this.dir, node) : undefined;
      await runtime.createSandbox(
        pod.netns,
        renderResolvConf(podDnsConfig(this.plan, node, pod.namespace, windowsCni)),
      );
      await attachPod(this.hosts.shell(node.name), this.plan, node, pod);
      const argv =
        program === 'dns'
          ? dnsServerArgv(zoneFileOn(runtime, this.dir), pod.ip, runtime.workloads)
          : netexecArgv(pod.hostname ?? pod.name, runtime.workloads);
      const { pid } = await runtime.start(pod.netns, argv, pod.logFile, READY_LINE);
      return await this.store.update(async (state) => {
        const record = objects.findPod(state, pod.namespace, pod.name);
        if (record === undefined)
          throw new ProviderError(`pod ${pod.namespace}/${pod.name} was deleted while starting`);
        Object.assign(record, { pid, phase: 'Running' });
        await syncDataplane(this.sync, state);
        return record;
      });
    } catch (error) {
      await this.removePods([pod]).catch((cleanup: unknown) => {
        this.sync.log.error(
          { provider: 'netns', err: cleanup, pod: pod.name },
          'cleanup of a failed pod failed',
        );
      });
      throw error;
    }
  }

  async deletePod(name: string, namespace: string): Promise<void> {
    const pod = await this.store.update(async (state) => {
      const record = objects.findPod(state, namespace, name);
      if (record === undefined) throw new ProviderError(`no pod ${namespace}/${name}`);
      if (record.system === true)
        throw new ProviderError(
          `pod ${namespace}/${name} belongs to the lab; it goes with lab down`,
        );
      record.phase = 'Terminating';
      await syncDataplane(this.sync, state);
      return record;
    });
    await this.removePods([pod]);
  }

  async createService(spec: ServiceSpec): Promise<CreatedService> {
    const [created] = await this.createServices([spec]);
    return created!;
  }

  /**
   * Creates several Services and programs every node once for all of them. All or nothing: a
   * spec that fails its checks leaves no Service of the batch behind.
   */
  async createServices(specs: readonly ServiceSpec[]): Promise<CreatedService[]> {
    return this.store.update(async (state) => {
      const records = specs.map((spec) => {
        objects.checkServiceSpec(state, spec);
        const taken = new Set<number>();
        const allocate = (requested?: number): number => {
          const allocated = objects.allocateNodePort(this.plan, state, taken, requested);
          taken.add(allocated);
          return allocated;
        };
        const ports = spec.ports.map((port): ServicePort => {
          const { nodePort, ...rest } = port;
          return objects.hasNodePorts(spec.type) ? { ...rest, nodePort: allocate(nodePort) } : rest;
        });
        const { endpoints, ...rest } = spec;
        const record: ServiceRecord = { ...rest, selector: { ...spec.selector }, ports };
        if (endpoints !== undefined) record.staticEndpoints = [...endpoints];
        if (spec.type !== 'Headless' && spec.type !== 'ExternalName')
          record.clusterIP = objects.allocateClusterIp(this.plan, state);
        // As the API server does: from the node port range, for kube-proxy to serve.
        if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local')
          record.healthCheckNodePort = allocate();
        state.services.push(record);
        return record;
      });
      await syncDataplane(this.sync, state);
      return records.map((record) => ({
        ...(record.clusterIP === undefined ? {} : { clusterIP: record.clusterIP }),
        nodePorts: Object.fromEntries(
          record.ports.flatMap((p) => (p.nodePort === undefined ? [] : [[p.name, p.nodePort]])),
        ),
        ...(record.healthCheckNodePort === undefined
          ? {}
          : { healthCheckNodePort: record.healthCheckNodePort }),
      }));
    });
  }

  async deleteService(name: string, namespace: string): Promise<void> {
    await this.store.update(async (state) => {
      const record = objects.findService(state, namespace, name);
      if (record === undefined) throw new ProviderError(`no service ${namespace}/${name}`);
      if (record.system === true)
        throw new ProviderError(`service ${namespace}/${name} belongs to the lab`);
      state.services = state.services.filter((s) => s !== record);
      await syncDataplane(this.sync, state);
    });
  }

  /** Deletes every user pod and Service in the namespace (the lab's own objects stay). */
  async deleteNamespace(namespace: string): Promise<void> {
    const pods = await this.store.update(async (state) => {
      state.services = state.services.filter((s) => s.namespace !== namespace || s.system === true);
      const doomed = state.pods.filter((p) => p.namespace === namespace && p.system !== true);
      for (const pod of doomed) pod.phase = 'Terminating';
      await syncDataplane(this.sync, state);
      return doomed;
    });
    await this.removePods(pods);
  }

  list(): Promise<ClusterListing> {
    const state = this.store.read();
    const services = state.services.map((s) => ({
      ...s,
      endpoints: objects.endpointIps(s, state),
    }));
    return Promise.resolve({ pods: state.pods, services, externalEcho: state.externalEcho });
  }

  /** Runs argv inside the pod's network namespace; a non-zero exit resolves (check: false). */
  async exec(
    podName: string,
    namespace: string,
    argv: readonly string[],
    options: RunOptions = {},
  ): Promise<RunResult> {
    const pod = this.#pod(namespace, podName);
    return this.hosts.pods(pod.node).exec(pod.netns, argv, options);
  }

  #pod(namespace: string, podName: string): PodRecord {
    const pod = objects.findPod(this.store.read(), namespace, podName);
    if (pod === undefined) throw new ProviderError(`no pod ${namespace}/${podName}`);
    return pod;
  }

  /** Runs argv outside the cluster (the outside namespace, or the hypervisor host). */
  execOutside(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const { runtime, netns } = this.hosts.outside;
    return runtime.exec(netns, argv, options);
  }

  /** Runs one probe (probe.mjs's arguments) in the pod. */
  async probe(
    podName: string,
    namespace: string,
    args: readonly string[],
    options: RunOptions = {},
  ): Promise<ProbeReply> {
    const pod = this.#pod(namespace, podName);
    return this.hosts.pods(pod.node).probe(pod.netns, args, options);
  }

  /** Runs one probe on `node`'s own network (a host-network pod's view). */
  probeFromNode(
    node: string,
    args: readonly string[],
    options: RunOptions = {},
  ): Promise<ProbeReply> {
    objects.planNode(this.plan, node);
    return this.hosts.pods(node).probe(this.hosts.nodeNetns(node), args, options);
  }

  /** Runs one probe outside the cluster (NodePort checks from outside). */
  probeOutside(args: readonly string[], options: RunOptions = {}): Promise<ProbeReply> {
    const { runtime, netns } = this.hosts.outside;
    return runtime.probe(netns, args, options);
  }

  /** The Windows CNI config the node is using, as read back from its file. */
  windowsCniConfig(node: string): unknown {
    return readWindowsCni(this.dir, objects.planNode(this.plan, node));
  }

  /** Replaces a Windows node's CNI config (fault injection, experiments) and re-syncs. */
  async setWindowsCniConfig(node: string, config: unknown): Promise<void> {
    const planned = objects.planNode(this.plan, node);
    if (planned.os !== 'windows') throw new ProviderError(`node ${node} is not a Windows node`);
    await this.store.update(async (state) => {
      writeWindowsCni(this.dir, node, config);
      await syncDataplane(this.sync, state);
    });
  }

  /** The nodes whose workload endpoints `node`'s kube-proxy leaves out (fault injection). */
  staleProxyView(node: string): string[] {
    objects.planNode(this.plan, node);
    return this.store.read().staleProxy?.[node] ?? [];
  }

  /** Makes `node`'s kube-proxy leave out the workload endpoints on `ignored` nodes, and re-syncs. */
  async setStaleProxyView(node: string, ignored: readonly string[]): Promise<void> {
    objects.planNode(this.plan, node);
    for (const other of ignored) objects.planNode(this.plan, other);
    await this.store.update(async (state) => {
      const views = { ...state.staleProxy, [node]: [...ignored] };
      state.staleProxy = Object.fromEntries(Object.entries(views).filter(([, v]) => v.length > 0));
      await syncDataplane(this.sync, state);
    });
  }

  /** Whether `node`'s kube-proxy programs externalTrafficPolicy Local as Cluster (fault injection). */
  ignoresLocalPolicy(node: string): boolean {
    objects.planNode(this.plan, node);
    return this.store.read().ignoresLocalPolicy?.includes(node) === true;
  }

  /** Makes `node`'s kube-proxy ignore (or honour again) externalTrafficPolicy Local, and re-syncs. */
  async setIgnoresLocalPolicy(node: string, ignored: boolean): Promise<void> {
    objects.planNode(this.plan, node);
    await this.store.update(async (state) => {
      const others = (state.ignoresLocalPolicy ?? []).filter((n) => n !== node);
      const nodes = ignored ? [...others, node] : others;
      if (nodes.length > 0) state.ignoresLocalPolicy = nodes;
      else delete state.ignoresLocalPolicy;
      await syncDataplane(this.sync, state);
    });
  }

  /** Whether `node`'s kube-proxy keeps every endpoint it programmed, also once gone (fault injection). */
  keepsEndpoints(node: string): boolean {
    objects.planNode(this.plan, node);
    return this.store.read().keptEndpoints?.[node] !== undefined;
  }

  /** Makes `node`'s kube-proxy keep every endpoint it programs from now on (or forget them), and re-syncs. */
  async setKeepsEndpoints(node: string, keeps: boolean): Promise<void> {
    objects.planNode(this.plan, node);
    await this.store.update(async (state) => {
      const others = Object.fromEntries(
        Object.entries(state.keptEndpoints ?? {}).filter(([name]) => name !== node),
      );
      const nodes = keeps ? { ...others, [node]: {} } : others;
      if (Object.keys(nodes).length > 0) state.keptEndpoints = nodes;
      else delete state.keptEndpoints;
      await syncDataplane(this.sync, state);
    });
  }

  /** What `node`'s kube-proxy gets wrong now (fault injection). */
  proxyQuirks(node: string): KubeProxyQuirk[] {
    objects.planNode(this.plan, node);
    return this.store.read().proxyQuirks?.[node] ?? [];
  }

  /** Makes `node`'s kube-proxy get exactly `quirks` wrong (none: nothing), and re-syncs. */
  async setProxyQuirks(node: string, quirks: readonly KubeProxyQuirk[]): Promise<void> {
    objects.planNode(this.plan, node);
    await this.store.update(async (state) => {
      const all = { ...state.proxyQuirks, [node]: [...new Set(quirks)] };
      const left = Object.entries(all).filter(([, q]) => q.length > 0);
      if (left.length > 0) state.proxyQuirks = Object.fromEntries(left);
      else delete state.proxyQuirks;
      await syncDataplane(this.sync, state);
    });
  }

  /** Whether the cluster DNS answers `node`'s pods with an ExternalName's CNAME alone (fault injection). */
  bareCname(node: string): boolean {
    objects.planNode(this.plan, node);
    return this.store.read().bareCnameNodes?.includes(node) === true;
  }

  /** Makes the cluster DNS answer `node`'s pods with CNAMEs alone (or follow them again), and re-syncs. */
  async setBareCname(node: string, bare: boolean): Promise<void> {
    objects.planNode(this.plan, node);
    await this.store.update(async (state) => {
      const others = (state.bareCnameNodes ?? []).filter((n) => n !== node);
      const nodes = bare ? [...others, node] : others;
      if (nodes.length > 0) state.bareCnameNodes = nodes;
      else delete state.bareCnameNodes;
      await syncDataplane(this.sync, state);
    });
  }

  /** Re-applies every node's rules and the zone, changed or not. */
  async resync(): Promise<void> {
    await this.store.update((state: ClusterState) => syncDataplane(this.sync, state, true));
  }

  private async removePods(pods: PodRecord[]): Promise<void> {
    if (pods.length === 0) return;
    const nodes = [...new Set(pods.map((p) => p.node))];
    await Promise.all(
      nodes.map(async (node) => {
        const on = pods.filter((p) => p.node === node);
        await this.#removePodLinks(node, on);
        await this.hosts.pods(node).removeSandboxes(on.map((p) => p.netns));
      }),
    );
    const gone = new Set(pods.map((p) => `${p.namespace}/${p.name}`));
    await this.store.update(async (state) => {
      state.pods = state.pods.filter((p) => !gone.has(`${p.namespace}/${p.name}`));
      await syncDataplane(this.sync, state);
    });
  }

  /**
   * Deletes the node side of each pod's veth pair. Deleting a pod namespace alone leaves the
   * pair alive while anything (an orphaned socket) still holds the namespace, and a new pod
   * reusing the IP would collide with it; deleting one end removes both at once.
   */
  async #removePodLinks(node: string, pods: readonly PodRecord[]): Promise<void> {
    const planned = this.plan.nodes.find((n) => n.name === node);
    if (planned === undefined) return;
    const veths = pods.map((p) => podVeth(objects.podOffset(planned, p.ip)));
    const script = [
      'rc=0',
      'for link; do',
      '  out=$(ip link del "$link" 2>&1) || case $out in',
      '    *"Cannot find device"*) ;;',
      '    *) echo "$link: $out" >&2; rc=1 ;;',
      '  esac',
      'done',
      'exit $rc',
    ].join('\n');
    await this.hosts.shell(node).exec(['sh', '-c', script, 'sh', ...veths]);
  }
}
