/**
 * The over-time rows on a real cluster: the twin and stateful UDP Services and pods in the run's
 * namespace, connections held in agnhost pods, the workloads read again after a disruption.
 */
import type { V1Service } from '@kubernetes/client-node';
import type { Os } from '../../../lab/contracts/cells.ts';
import type { Logger } from '../../../lab/log/logger.ts';
import type { SuiteNode, Workloads } from '../../model/lab-driver.ts';
import type {
  Disruptor,
  OverTimeDriver,
  OverTimeService,
  OverTimeStep,
  OverTimeWorkloads,
} from '../../model/over-time-driver.ts';
import { withChangedTwin } from '../../model/over-time-driver.ts';
import {
  UDP_STATE_APP,
  changedTwinName,
  keptTwinName,
  udpStateBackends,
  udpStateServiceName,
} from '../../model/over-time-names.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import {
  apiErrorText,
  type CoreClient,
  type ExecClient,
  type OverTimeClient,
} from './kube-clients.ts';
import { KubeHeld } from './kube-held.ts';
import { forPodsGone, forPodsReady } from './pod-waits.ts';
import {
  renderNetexecPod,
  renderOverTimeService,
  type PodExtras,
  type PodToRender,
} from './suite-manifests.ts';

/** What the driver knows of its run once deployed. */
export interface KubeRun extends PodExtras {
  namespace: string;
  runId: string;
  lab: string;
  images: Record<Os, string>;
  dnsDomain: string;
  workloads: Workloads;
  /** The pod as rendered for a node (its hostname label, its OS). */
  podToRender(name: string, node: string): PodToRender;
}

export interface KubeOverTimeOptions {
  core: CoreClient;
  client: OverTimeClient;
  exec: ExecClient;
  nodes: readonly SuiteNode[];
  run: () => KubeRun | undefined;
  settleMs: number;
  podsReadyTimeoutMs: number;
  disruptor?: Disruptor;
  log: Logger;
}

export class KubeOverTime implements OverTimeDriver {
  readonly held: KubeHeld;
  readonly settleMs: number;
  readonly disruptor?: Disruptor;
  #deployed: OverTimeWorkloads = { twin: [], udpState: [] };

  constructor(private readonly options: KubeOverTimeOptions) {
    this.held = new KubeHeld(options.exec, () => options.run()?.namespace);
    this.settleMs = options.settleMs;
    if (options.disruptor !== undefined) this.disruptor = options.disruptor;
  }

  #run(): KubeRun {
    const run = this.options.run();
    if (run === undefined) throw new InfrastructureError('nothing is deployed');
    return run;
  }

  async #api<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new InfrastructureError(`${what} failed: ${apiErrorText(error)}`, { cause: error });
    }
  }

  #service(created: V1Service): OverTimeService {
    const { namespace, dnsDomain } = this.#run();
    const name = created.metadata?.name ?? '';
    return {
      name,
      clusterIP: created.spec?.clusterIP ?? '',
      port: created.spec?.ports?.[0]?.port ?? 0,
      fqdn: `${name}.${namespace}.svc.${dnsDomain}`,
    };
  }

  async #createService(kind: 'twin' | 'udp-state', name: string, os: Os): Promise<V1Service> {
    const run = this.#run();
    const body = renderOverTimeService(run, kind, name, os);
    return this.#api(`create service ${name}`, () =>
      this.options.client.createNamespacedService({ namespace: run.namespace, body }),
    );
  }

  async #startPods(os: Os, pods: readonly { name: string; node: string }[]): Promise<void> {
    const run = this.#run();
    for (const { name, node } of pods) {
      const body = renderNetexecPod(run, run.podToRender(name, node), UDP_STATE_APP);
      await this.#api(`create pod ${name}`, () =>
        this.options.client.createNamespacedPod({ namespace: run.namespace, body }),
      );
    }
    await forPodsReady(
      this.options.core,
      run.namespace,
      pods.map((p) => p.name),
      {
        timeoutMs: this.options.podsReadyTimeoutMs,
      },
    );
    this.options.log.info({ os, pods: pods.map((p) => p.name) }, 'over-time pods ready');
  }

  async deploy(workloads: Workloads): Promise<OverTimeWorkloads> {
    const oses = [...new Set(workloads.pods.map((p) => p.os))];
    const twin = [];
    for (const os of oses) {
      const kept = this.#service(await this.#createService('twin', keptTwinName(os), os));
      const changed = this.#service(await this.#createService('twin', changedTwinName(os), os));
      twin.push({ os, kept, changed });
    }
    const udpState = [];
    for (const os of oses) {
      const backends = udpStateBackends(this.options.nodes, os);
      if (backends === undefined) continue;
      const created = await this.#createService('udp-state', udpStateServiceName(os), os);
      await this.#startPods(os, [backends.first]);
      udpState.push({
        os,
        service: { ...this.#service(created), nodePort: created.spec?.ports?.[0]?.nodePort ?? 0 },
        ...backends,
      });
    }
    this.#deployed = { twin, udpState };
    return this.#deployed;
  }

  async step(os: Os, step: OverTimeStep): Promise<OverTimeWorkloads> {
    const { namespace } = this.#run();
    const { client } = this.options;
    switch (step) {
      case 'udp-backend-switched': {
        const udp = this.#deployed.udpState.find((u) => u.os === os);
        if (udp === undefined)
          throw new InfrastructureError(`no ${udpStateServiceName(os)} was deployed`);
        await this.#startPods(os, [udp.second]);
        await this.#api(`delete pod ${udp.first.name}`, () =>
          client.deleteNamespacedPod({ name: udp.first.name, namespace, gracePeriodSeconds: 0 }),
        );
        await forPodsGone(this.options.core, namespace, [udp.first.name], {
          timeoutMs: this.options.podsReadyTimeoutMs,
        });
        break;
      }
      case 'twin-deleted':
        await this.#api(`delete service ${changedTwinName(os)}`, () =>
          client.deleteNamespacedService({ name: changedTwinName(os), namespace }),
        );
        this.#deployed = withChangedTwin(this.#deployed, os, undefined);
        break;
      case 'twin-recreated': {
        const changed = this.#service(await this.#createService('twin', changedTwinName(os), os));
        this.#deployed = withChangedTwin(this.#deployed, os, changed);
        break;
      }
    }
    return this.#deployed;
  }

  /** The run's pods' addresses as the API has them now (a pod back from a reboot has a new one). */
  async refresh(): Promise<Workloads> {
    const { namespace, workloads } = this.#run();
    const { items } = await this.options.client.listNamespacedPod({ namespace });
    for (const pod of workloads.pods) {
      const ip = items.find((p) => p.metadata?.name === pod.name)?.status?.podIP;
      if (ip !== undefined && ip !== '') pod.ip = ip;
    }
    return workloads;
  }
}
