/**
 * Disruptions of a real cluster: through the Kubernetes API where a pod does the work (kube-proxy,
 * a CNI agent such as flannel, the cluster DNS pods), and through the lab's own machines below
 * it (clusters the harness made). On clusters the harness did not make, only the named actions
 * that restart pods it can find, and never a node.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { CLUSTER_SUBJECT, type DisruptionAction } from '../../../lab/contracts/disruptions.ts';
import type { NodeActions } from '../../../lab/providers/lab-provider.ts';
import { pollFor } from '../../../lab/wait/poll.ts';
import type { Disruptor, MadeDisruption } from '../../model/over-time-driver.ts';
import { apiErrorText, type OverTimeClient } from './kube-clients.ts';
import { podProblem } from './pod-waits.ts';

/** kube-proxy's DaemonSet pods: kubeadm's on Linux, the project's HostProcess one on Windows. */
const KUBE_PROXY = ['k8s-app=kube-proxy', 'k8s-app=kube-proxy-windows'];
/** CNI agents that run as DaemonSet pods: flannel, and its Windows HostProcess one. */
const CNI_AGENTS = ['app=flannel', 'app=flannel-windows'];
/** Where such pods run. */
const SYSTEM_NAMESPACES = ['kube-system', 'kube-flannel'];
const DNS_PODS = 'k8s-app=kube-dns';
const BACK_MS = 300_000;
const POLL_MS = 2000;

export interface KubeDisruptorOptions {
  client: OverTimeClient;
  /** The node's `kubernetes.io/hostname` (pods name their node by it). */
  hostname(node: string): string;
  /** The lab's machines (labs the harness made); absent on an `existing` cluster. */
  nodeActions?: NodeActions;
  /** The cluster was not made by the harness. */
  existing: boolean;
}

const ready = (pod: V1Pod): boolean => podProblem(pod) === undefined;

export class KubeDisruptor implements Disruptor {
  readonly backOnReturn = false;

  constructor(private readonly options: KubeDisruptorOptions) {}

  unsupported(action: DisruptionAction, subject: string, named: boolean): string | undefined {
    const { existing, nodeActions } = this.options;
    if (existing && !named)
      return 'a cluster the harness did not make is disrupted only when DISRUPTIONS names the action';
    switch (action) {
      case 'kube-proxy-restart':
      case 'cni-restart':
        return undefined;
      case 'dns-pods-moved':
        if (subject !== CLUSTER_SUBJECT) return 'acts on the cluster';
        return existing
          ? 'on a cluster the harness did not make only kube-proxy and CNI agent pods are restarted'
          : undefined;
      case 'runtime-restart':
      case 'node-reboot':
        if (existing) return 'never on a cluster the harness did not make';
        return nodeActions === undefined
          ? "this lab's machines cannot be reached below the Kubernetes API"
          : undefined;
    }
  }

  async #pods(selector: string, node?: string): Promise<{ pod: V1Pod; namespace: string }[]> {
    const { client } = this.options;
    const found = await Promise.all(
      SYSTEM_NAMESPACES.map(async (namespace) => {
        const { items } = await client
          .listNamespacedPod({ namespace, labelSelector: selector })
          .catch(() => ({ items: [] as V1Pod[] }));
        return items.map((pod) => ({ pod, namespace }));
      }),
    );
    const on = node === undefined ? undefined : this.options.hostname(node);
    return found.flat().filter(({ pod }) => on === undefined || pod.spec?.nodeName === on);
  }

  /** Deletes the node's pods of `selectors` (as `kubectl delete pod`); settled once new ones are Ready. */
  async #restartPods(
    selectors: readonly string[],
    node: string,
  ): Promise<MadeDisruption | undefined> {
    const pods = (await Promise.all(selectors.map((s) => this.#pods(s, node)))).flat();
    if (pods.length === 0) return undefined;
    const gone = new Set(pods.map(({ pod }) => pod.metadata?.uid));
    for (const { pod, namespace } of pods) {
      await this.options.client
        .deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace })
        .catch((error: unknown) => {
          throw new Error(
            `delete pod ${namespace}/${pod.metadata?.name ?? ''}: ${apiErrorText(error)}`,
          );
        });
    }
    const settled = pollFor(
      `new ${selectors.join(' or ')} pods on ${node} to be Ready`,
      async () => {
        const now = (await Promise.all(selectors.map((s) => this.#pods(s, node)))).flat();
        const fresh = now.filter(({ pod }) => !gone.has(pod.metadata?.uid));
        return fresh.length >= pods.length && fresh.every(({ pod }) => ready(pod));
      },
      { timeoutMs: BACK_MS, intervalMs: POLL_MS },
    );
    settled.catch(() => undefined);
    return { settled };
  }

  /** The node Ready again in the API (after its kubelet came back). */
  #nodeReady(node: string): Promise<void> {
    const name = this.options.hostname(node);
    const settled = pollFor(
      `node ${node} to be Ready`,
      async () => {
        const found = await this.options.client.readNode({ name }).catch(() => undefined);
        return (
          found?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
        );
      },
      { timeoutMs: BACK_MS, intervalMs: POLL_MS },
    );
    settled.catch(() => undefined);
    return settled;
  }

  async disrupt(action: DisruptionAction, subject: string): Promise<MadeDisruption> {
    const { nodeActions } = this.options;
    switch (action) {
      case 'kube-proxy-restart': {
        const made = await this.#restartPods(KUBE_PROXY, subject);
        if (made === undefined) throw new Error(`no kube-proxy pod runs on ${subject}`);
        return made;
      }
      case 'cni-restart': {
        const made = await this.#restartPods(CNI_AGENTS, subject);
        if (made !== undefined) return made;
        if (nodeActions === undefined)
          throw new Error(`no CNI agent pod (${CNI_AGENTS.join(', ')}) runs on ${subject}`);
        await nodeActions.restartCni(subject);
        return { settled: Promise.resolve() };
      }
      case 'runtime-restart':
        await nodeActions!.restartRuntime(subject);
        return { settled: this.#nodeReady(subject) };
      case 'node-reboot':
        await nodeActions!.reboot(subject);
        return { settled: this.#nodeReady(subject) };
      case 'dns-pods-moved':
        return this.#moveDns();
    }
  }

  /**
   * The cluster DNS pods deleted with their nodes cordoned, so their controller puts them on
   * other nodes; settled once as many are Ready elsewhere, and the nodes are uncordoned.
   */
  async #moveDns(): Promise<MadeDisruption> {
    const { client } = this.options;
    const pods = await this.#pods(DNS_PODS);
    if (pods.length === 0) throw new Error(`no cluster DNS pods (${DNS_PODS}) found`);
    const nodes = [...new Set(pods.map(({ pod }) => pod.spec?.nodeName ?? ''))].filter(
      (n) => n !== '',
    );
    const cordon = (unschedulable: boolean) =>
      Promise.all(
        nodes.map((name) =>
          // A JSON patch, the client's default content type for patches (`kubectl cordon`).
          client.patchNode({
            name,
            body: [{ op: 'add', path: '/spec/unschedulable', value: unschedulable }],
          }),
        ),
      );
    await cordon(true);
    const gone = new Set(pods.map(({ pod }) => pod.metadata?.uid));
    try {
      for (const { pod, namespace } of pods)
        await client.deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace });
    } catch (error) {
      await cordon(false);
      throw new Error(`delete the cluster DNS pods: ${apiErrorText(error)}`, { cause: error });
    }
    const settled = pollFor(
      `cluster DNS pods Ready on other nodes than ${nodes.join(', ')}`,
      async () => {
        const fresh = (await this.#pods(DNS_PODS)).filter(
          ({ pod }) => !gone.has(pod.metadata?.uid),
        );
        return fresh.length >= pods.length && fresh.every(({ pod }) => ready(pod));
      },
      { timeoutMs: BACK_MS, intervalMs: POLL_MS },
    ).finally(() => cordon(false));
    settled.catch(() => undefined);
    return { settled };
  }

  /** Real clusters keep their DNS pods where the scheduler put them. */
  restore(): Promise<void> {
    return Promise.resolve();
  }
}
