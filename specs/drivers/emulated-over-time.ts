/**
 * The over-time rows and the disruption phase on an emulated lab: Services and pods through the
 * emulated cluster API, connections held in pod namespaces, and the emulated node actions.
 */
import type { Os } from '../../lab/contracts/cells.ts';
import { CLUSTER_SUBJECT, type DisruptionAction } from '../../lab/contracts/disruptions.ts';
import { POD_LABEL, RUN_LABEL, SLOT_LABEL } from '../../lab/contracts/kubernetes-names.ts';
import type { EmulatedCluster } from '../../lab/cluster/emulated-cluster.ts';
import { EmulatedNodeActions } from '../../lab/cluster/emulated-node-actions.ts';
import type { ServiceSpec } from '../../lab/cluster/control/cluster-state.ts';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import type { Workloads } from '../model/lab-driver.ts';
import type {
  Disruptor,
  MadeDisruption,
  OverTimeDriver,
  OverTimeService,
  OverTimeStep,
  OverTimeWorkloads,
} from '../model/over-time-driver.ts';
import { withChangedTwin } from '../model/over-time-driver.ts';
import {
  UDP_STATE_APP,
  changedTwinName,
  keptTwinName,
  udpStateBackends,
  udpStateServiceName,
} from '../model/over-time-names.ts';
import {
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
  SERVICE_SLOT,
  dnsLabel,
  SUITE_SERVICE_PORT,
} from '../model/workload-names.ts';
import { EmulatedHeld } from './emulated-held.ts';

const SETTLED: MadeDisruption = { settled: Promise.resolve() };

/** What the emulated driver knows of its run once deployed. */
export interface EmulatedRun {
  namespace: string;
  runId: string;
  workloads: Workloads;
}

export class EmulatedOverTime implements OverTimeDriver {
  /** The emulated kube-proxy has programmed every node when a change returns. */
  readonly settleMs = 0;
  readonly held: EmulatedHeld;
  readonly disruptor: Disruptor;
  #deployed: OverTimeWorkloads = { twin: [], udpState: [] };

  constructor(
    private readonly plan: LabPlan,
    private readonly cluster: EmulatedCluster,
    private readonly run: () => EmulatedRun,
  ) {
    this.held = new EmulatedHeld(cluster, () => run().namespace);
    this.disruptor = new EmulatedDisruptor(new EmulatedNodeActions(cluster));
  }

  #twinSpec(os: Os, name: string): ServiceSpec {
    return {
      name,
      namespace: this.run().namespace,
      type: 'ClusterIP',
      selector: { app: 'netexec', os, [SLOT_LABEL]: SERVICE_SLOT },
      ports: [
        { name: 'http', port: SUITE_SERVICE_PORT, targetPort: NETEXEC_HTTP_PORT, protocol: 'TCP' },
      ],
    };
  }

  #service(name: string, clusterIP: string | undefined): OverTimeService {
    const { namespace } = this.run();
    const domain = this.plan.kubernetes.dnsDomain;
    return {
      name,
      clusterIP: clusterIP ?? '',
      port: SUITE_SERVICE_PORT,
      fqdn: `${name}.${namespace}.svc.${domain}`,
    };
  }

  async #startPod(os: Os, pod: { name: string; node: string }): Promise<void> {
    const { namespace, runId } = this.run();
    await this.cluster.createPod({
      name: pod.name,
      namespace,
      node: pod.node,
      hostname: pod.name,
      labels: { app: UDP_STATE_APP, os, [RUN_LABEL]: runId, [POD_LABEL]: dnsLabel(pod.name) },
    });
  }

  async deploy(workloads: Workloads): Promise<OverTimeWorkloads> {
    const { namespace } = this.run();
    const oses = [...new Set(workloads.pods.map((p) => p.os))];
    const backends = oses.flatMap((os) => {
      const found = udpStateBackends(this.plan.nodes, os);
      return found === undefined ? [] : [{ os, ...found }];
    });
    await Promise.all(backends.map((b) => this.#startPod(b.os, b.first)));
    const created = await this.cluster.createServices([
      ...oses.flatMap((os) => [
        this.#twinSpec(os, keptTwinName(os)),
        this.#twinSpec(os, changedTwinName(os)),
      ]),
      ...backends.map(({ os }): ServiceSpec => ({
        name: udpStateServiceName(os),
        namespace,
        type: 'NodePort',
        selector: { app: UDP_STATE_APP, os },
        ports: [
          { name: 'udp', port: NETEXEC_UDP_PORT, targetPort: NETEXEC_UDP_PORT, protocol: 'UDP' },
        ],
      })),
    ]);
    this.#deployed = {
      twin: oses.map((os, i) => ({
        os,
        kept: this.#service(keptTwinName(os), created[2 * i]?.clusterIP),
        changed: this.#service(changedTwinName(os), created[2 * i + 1]?.clusterIP),
      })),
      udpState: backends.map(({ os, first, second }, i) => {
        const made = created[2 * oses.length + i];
        return {
          os,
          service: {
            ...this.#service(udpStateServiceName(os), made?.clusterIP),
            port: NETEXEC_UDP_PORT,
            nodePort: made?.nodePorts.udp ?? 0,
          },
          first,
          second,
        };
      }),
    };
    return this.#deployed;
  }

  async step(os: Os, step: OverTimeStep): Promise<OverTimeWorkloads> {
    const { namespace } = this.run();
    switch (step) {
      case 'udp-backend-switched': {
        const udp = this.#deployed.udpState.find((u) => u.os === os);
        if (udp === undefined) throw new Error(`no ${udpStateServiceName(os)} was deployed`);
        await this.#startPod(os, udp.second);
        await this.cluster.deletePod(udp.first.name, namespace);
        break;
      }
      case 'twin-deleted':
        await this.cluster.deleteService(changedTwinName(os), namespace);
        this.#deployed = withChangedTwin(this.#deployed, os, undefined);
        break;
      case 'twin-recreated': {
        const made = await this.cluster.createService(this.#twinSpec(os, changedTwinName(os)));
        const changed = this.#service(changedTwinName(os), made.clusterIP);
        this.#deployed = withChangedTwin(this.#deployed, os, changed);
        break;
      }
    }
    return this.#deployed;
  }

  /** The pods' addresses as the cluster has them now (the emulated reboot keeps them). */
  async refresh(): Promise<Workloads> {
    const { workloads, namespace } = this.run();
    const { pods } = await this.cluster.list();
    for (const pod of workloads.pods) {
      const now = pods.find((p) => p.name === pod.name && p.namespace === namespace);
      if (now !== undefined) pod.ip = now.ip;
    }
    return workloads;
  }
}

/** The disruption phase's actions on an emulated lab, each labelled emulated in its results. */
class EmulatedDisruptor implements Disruptor {
  readonly backOnReturn = true;
  #dnsHome: string | undefined;

  constructor(private readonly actions: EmulatedNodeActions) {}

  unsupported(action: DisruptionAction, subject: string): string | undefined {
    if (action === 'dns-pods-moved')
      return subject === CLUSTER_SUBJECT ? undefined : 'acts on the cluster';
    if (action === 'node-reboot') return this.actions.rebootUnsupported(subject);
    return undefined;
  }

  async disrupt(action: DisruptionAction, subject: string): Promise<MadeDisruption> {
    switch (action) {
      case 'kube-proxy-restart':
        await this.actions.kubeProxyRestart(subject);
        return SETTLED;
      case 'cni-restart':
        await this.actions.cniRestart(subject);
        return SETTLED;
      case 'runtime-restart':
        await this.actions.runtimeRestart(subject);
        return SETTLED;
      case 'node-reboot':
        await this.actions.reboot(subject);
        return SETTLED;
      case 'dns-pods-moved':
        this.#dnsHome ??= this.actions.dnsNode();
        await this.actions.moveDns();
        return SETTLED;
    }
  }

  /** The DNS pod back where it was, so later runs and the fault catalogue find it there. */
  async restore(): Promise<void> {
    if (this.#dnsHome !== undefined) await this.actions.moveDnsTo(this.#dnsHome);
    this.#dnsHome = undefined;
  }
}
