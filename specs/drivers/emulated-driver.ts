/** The suite's driver for emulated labs: pods are network namespaces, probes run probe.mjs in them. */
import type { EmulatedCluster } from '../../lab/cluster/emulated-cluster.ts';
import {
  LOCAL_BACKEND_LABEL,
  POD_LABEL,
  RUN_LABEL,
  SLOT_LABEL,
  runNamespace,
} from '../../lab/contracts/kubernetes-names.ts';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import type { StartedLab } from '../../lab/providers/lab-provider.ts';
import {
  HEADLESS_SERVICE,
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
  SERVICE_SLOT,
  backsLocalService,
  dnsLabel,
  hairpinServiceName,
  localServiceName,
  serviceName,
  slotOf,
  sourcePod,
  SUITE_SERVICE_PORT,
} from '../model/workload-names.ts';
import type { ChurnStep, Os } from '../../lab/contracts/cells.ts';
import { CHURN_APP, churnChange, churnPlan, churnServiceName } from '../model/churn.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import { planInfo } from './lab-info.ts';
import { collectPathEvidence, type PathEvidence } from '../../lab/cluster/path-evidence.ts';
import type { CellMeta } from '../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../model/cell-plan.ts';
import { probeArgs, probeProgramMs } from './probe-args.ts';
import { HOST_NETEXEC_PORTS } from '../../lab/cluster/runtime/workload-programs.ts';
import type {
  DeployedPod,
  LabDriver,
  ProbeReply,
  ProbeRequest,
  SuiteNode,
  Workloads,
} from '../model/lab-driver.ts';
import { sendProbe } from '../model/lab-driver.ts';
import { EmulatedOverTime } from './emulated-over-time.ts';
import { EXTERNAL_ECHO_HOSTNAME } from '../../lab/cluster/cluster-bootstrap.ts';
import { deployedFeatures, featureServiceSpecs } from './emulated-feature-services.ts';
import { featureAddresses } from '../model/service-features.ts';

export class EmulatedDriver implements LabDriver {
  readonly info;
  readonly nodes: readonly SuiteNode[];
  /**
   * The emulated kube-proxy has programmed every node before a pod change returns: a churn cell
   * is judged like any other (its retries leave room for a slow probe), with no settling time.
   */
  readonly churnSettleMs = 0;
  /** Long-lived, stateful UDP and twin-service cells, and the emulated disruptions. */
  readonly overTime: EmulatedOverTime;
  #namespace: string | undefined;
  #runId: string | undefined;
  #workloads: Workloads | undefined;

  constructor(
    private readonly plan: LabPlan,
    private readonly lab: StartedLab,
    private readonly cluster: EmulatedCluster,
  ) {
    const host = plan.provider === 'libvirt' ? 'Linux VM, netns pods' : 'Linux netns';
    const osBuild = (os: Os) =>
      os === 'windows' ? `${host} emulating Windows (emulated)` : `${host} (emulated)`;
    this.info = {
      ...planInfo(plan),
      osBuilds: Object.fromEntries(plan.nodes.map((n) => [n.name, osBuild(n.os)])),
    };
    this.nodes = plan.nodes.map((n) => ({ name: n.name, os: n.os, role: n.role, ip: n.ip }));
    this.overTime = new EmulatedOverTime(plan, cluster, () => {
      if (this.#namespace === undefined || this.#workloads === undefined)
        throw new Error('nothing is deployed');
      return { namespace: this.#namespace, runId: this.#runId ?? '', workloads: this.#workloads };
    });
  }

  async checkReady(): Promise<void> {
    const status = await this.lab.status();
    if (!status.ready) {
      const bad = status.nodes.filter((n) => !n.ready).map((n) => `${n.name}: ${n.detail}`);
      throw new InfrastructureError(
        `lab ${this.plan.name} is not ready: ${bad.join('; ') || 'no nodes'}`,
        {
          hint: 'npm run lab:status shows the nodes; npm run lab:down && npm run lab:up rebuilds the lab',
        },
      );
    }
  }

  async deploy(runId: string, podNames: { node: string; name: string }[]): Promise<Workloads> {
    const namespace = runNamespace(runId);
    this.#namespace = namespace;
    this.#runId = runId;
    const domain = this.plan.kubernetes.dnsDomain;
    const osOf = new Map(this.plan.nodes.map((n) => [n.name, n.os]));
    const pods: DeployedPod[] = await Promise.all(
      podNames.map(async ({ node, name }) => {
        const os = osOf.get(node) ?? 'linux';
        const labels = {
          app: 'netexec',
          os,
          [RUN_LABEL]: runId,
          [SLOT_LABEL]: slotOf(name),
          [POD_LABEL]: dnsLabel(name),
          ...(backsLocalService(this.nodes, node, name) ? { [LOCAL_BACKEND_LABEL]: 'true' } : {}),
        };
        const ip = await this.cluster.createPod({
          name,
          namespace,
          node,
          hostname: name,
          subdomain: HEADLESS_SERVICE,
          labels,
        });
        return {
          name,
          node,
          os,
          ip,
          fqdn: `${name}.${HEADLESS_SERVICE}.${namespace}.svc.${domain}`,
        };
      }),
    );
    const port = {
      name: 'http',
      port: SUITE_SERVICE_PORT,
      targetPort: NETEXEC_HTTP_PORT,
      protocol: 'TCP' as const,
    };
    const udpPort = {
      name: 'udp',
      port: NETEXEC_UDP_PORT,
      targetPort: NETEXEC_UDP_PORT,
      protocol: 'UDP' as const,
    };
    const oses = [...new Set(pods.map((p) => p.os))];
    const nodes = [...new Set(pods.map((p) => p.node))];
    const churned = oses.flatMap((os) => churnPlan(this.nodes, os) ?? []);
    await Promise.all(
      churned.flatMap((plan) =>
        plan.backends.map((pod) => this.#startChurnPod(plan.os, pod.node, pod.name)),
      ),
    );
    const { externalEcho } = await this.cluster.list();
    const featureDeployment = {
      namespace,
      domain,
      oses,
      kubernetesVersion: this.plan.kubernetes.version,
      echo: {
        address: externalEcho.address,
        port: externalEcho.httpPort,
        hostname: EXTERNAL_ECHO_HOSTNAME,
      },
    };
    const featureSpecs = featureServiceSpecs(featureDeployment);
    // One batch: the emulated kube-proxy programs every node once for all of them.
    const [, ...created] = await this.cluster.createServices([
      {
        name: HEADLESS_SERVICE,
        namespace,
        type: 'Headless',
        selector: { app: 'netexec' },
        ports: [port],
      },
      ...oses.map((os) => ({
        name: serviceName(os),
        namespace,
        type: 'NodePort' as const,
        selector: { app: 'netexec', os, [SLOT_LABEL]: SERVICE_SLOT },
        ports: [port, udpPort],
      })),
      ...nodes.map((node) => ({
        name: hairpinServiceName(node),
        namespace,
        type: 'ClusterIP' as const,
        selector: { app: 'netexec', [POD_LABEL]: dnsLabel(sourcePod(node)) },
        ports: [port],
      })),
      ...oses.map((os) => ({
        name: localServiceName(os),
        namespace,
        type: 'NodePort' as const,
        selector: { app: 'netexec', os, [LOCAL_BACKEND_LABEL]: 'true' },
        ports: [port],
        externalTrafficPolicy: 'Local' as const,
      })),
      ...churned.map((plan) => ({
        name: churnServiceName(plan.os),
        namespace,
        type: 'ClusterIP' as const,
        selector: { app: CHURN_APP, os: plan.os },
        ports: [port],
      })),
      ...featureSpecs,
    ]);
    const features = deployedFeatures(
      featureDeployment,
      featureSpecs,
      created.slice(-featureSpecs.length),
    );
    const fqdn = (name: string) => `${name}.${namespace}.svc.${domain}`;
    const services = oses.map((os, i) => {
      const { clusterIP = '', nodePorts } = created[i]!;
      const name = serviceName(os);
      return {
        name,
        os,
        clusterIP,
        port: SUITE_SERVICE_PORT,
        nodePort: nodePorts.http ?? 0,
        udpPort: NETEXEC_UDP_PORT,
        udpNodePort: nodePorts.udp ?? 0,
        fqdn: fqdn(name),
      };
    });
    const hairpin = nodes.map((node, i) => {
      const name = hairpinServiceName(node);
      const clusterIP = created[oses.length + i]!.clusterIP ?? '';
      return { name, pod: sourcePod(node), clusterIP, port: SUITE_SERVICE_PORT, fqdn: fqdn(name) };
    });
    const local = oses.map((os, i) => ({
      name: localServiceName(os),
      os,
      nodePort: created[oses.length + nodes.length + i]!.nodePorts.http ?? 0,
    }));
    const churn = churned.map((plan, i) => ({
      os: plan.os,
      name: churnServiceName(plan.os),
      clusterIP: created[oses.length + nodes.length + oses.length + i]!.clusterIP ?? '',
      port: SUITE_SERVICE_PORT,
    }));
    this.#workloads = {
      namespace,
      pods,
      services,
      hairpin,
      local,
      churn,
      features,
      hostNetwork: this.plan.nodes.map((n) => ({
        node: n.name,
        address: n.ip,
        port: HOST_NETEXEC_PORTS.http,
        hostname: n.name,
      })),
      // The outside namespace (or the hypervisor host) reaches the nodes from the lab gateway.
      outsideAddress: this.plan.network.gateway,
      external: { address: externalEcho.address, port: externalEcho.httpPort },
      apiServiceIP: this.plan.kubernetes.apiServiceIP,
      dnsDomain: domain,
    };
    return this.#workloads;
  }

  /**
   * The nodes on the cell's path (source, target nodes; for lookups also the DNS pod's) traced
   * for packets between any two of the flow's addresses: those nodes and their pod networks, the
   * Services, the cluster DNS, outside and the external echo.
   */
  async pathEvidence(cell: CellMeta, spec: ProbeSpec, timeoutMs: number): Promise<PathEvidence> {
    const workloads = this.#workloads;
    if (workloads === undefined) throw new Error('nothing deployed: no path to look at');
    const planned = new Map(this.plan.nodes.map((n) => [n.name, n]));
    const { pods } = await this.cluster.list();
    const dnsPod = pods.find((p) => p.program === 'dns');
    const lookup = cell.via === 'dns' && dnsPod !== undefined ? [dnsPod.node] : [];
    const nodes = [
      ...new Set([cell.source.node, ...cell.target.node.split(','), ...lookup]),
    ].filter((n) => planned.has(n));
    const k8s = this.plan.kubernetes;
    const addresses = new Set([
      ...workloads.pods.filter((p) => nodes.includes(p.node)).map((p) => p.ip),
      ...nodes.map((n) => planned.get(n)!.ip),
      ...[...workloads.services, ...workloads.hairpin].map((s) => s.clusterIP),
      ...featureAddresses(workloads.features),
      workloads.apiServiceIP,
      ...(dnsPod === undefined ? [] : [dnsPod.ip]),
      k8s.clusterDNS,
      this.plan.network.gateway,
      this.plan.external.address,
    ]);
    const retry = () => sendProbe(this, workloads, spec, timeoutMs);
    return collectPathEvidence((node) => this.cluster.hosts.shell(node), {
      nodes,
      addresses: [...addresses].filter((a) => a !== ''),
      networks: nodes.map((n) => planned.get(n)!.podCIDR),
      retry,
      retryMs: probeProgramMs(spec.request, timeoutMs),
      // What HNS would show of a Windows node here: the CNI config its rules come from.
      nodeFiles: (node): Record<string, string> => {
        if (planned.get(node)?.os !== 'windows') return {};
        const config = JSON.stringify(this.cluster.windowsCniConfig(node), null, 2);
        return { 'windows-cni-config.json': `${config}\n` };
      },
    });
  }

  /** Makes `step` on the churn Service of `os`: its pods deleted or created, as churnChange says. */
  async churn(os: Os, step: ChurnStep): Promise<void> {
    const plan = churnPlan(this.nodes, os);
    const namespace = this.#namespace;
    if (plan === undefined || namespace === undefined) throw new Error(`no churn Service of ${os}`);
    const { remove, create } = churnChange(plan, step);
    for (const name of remove) await this.cluster.deletePod(name, namespace);
    await Promise.all(create.map((pod) => this.#startChurnPod(os, pod.node, pod.name)));
  }

  async #startChurnPod(os: Os, node: string, name: string): Promise<void> {
    await this.cluster.createPod({
      name,
      namespace: this.#namespace ?? '',
      node,
      hostname: name,
      labels: {
        app: CHURN_APP,
        os,
        [RUN_LABEL]: this.#runId ?? '',
        [POD_LABEL]: dnsLabel(name),
      },
    });
  }

  async probeFromPod(
    pod: DeployedPod,
    request: ProbeRequest,
    timeoutMs: number,
  ): Promise<ProbeReply> {
    const namespace = this.#namespace ?? '';
    return this.cluster.probe(pod.name, namespace, probeArgs(request, timeoutMs), {
      timeoutMs: probeProgramMs(request, timeoutMs) + 5000,
    });
  }

  async probeFromNode(node: string, request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
    return this.cluster.probeFromNode(node, probeArgs(request, timeoutMs), {
      timeoutMs: probeProgramMs(request, timeoutMs) + 5000,
    });
  }

  async probeFromOutside(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
    return this.cluster.probeOutside(probeArgs(request, timeoutMs), {
      timeoutMs: probeProgramMs(request, timeoutMs) + 5000,
    });
  }

  async cleanup(): Promise<void> {
    const namespace = this.#namespace;
    if (namespace !== undefined) await this.cluster.deleteNamespace(namespace);
    this.#namespace = undefined;
  }

  pending(): string[] {
    return this.#namespace === undefined ? [] : [`the run's pods in namespace ${this.#namespace}`];
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.cleanup();
  }
}
