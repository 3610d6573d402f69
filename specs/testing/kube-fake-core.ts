/**
 * Test support: a recorded fake of CoreV1Api — it records what is created, plays kubelet and the
 * namespace controller, and answers with recorded shapes. Unit level only; it opens no socket.
 */
import {
  ApiException,
  CoreV1EventList,
  V1Namespace,
  V1NodeList,
  V1PodList,
  V1Service,
  V1ServiceSpec,
  V1Status,
  type CoreV1Event,
  type V1Node,
  type V1Pod,
  type V1PodStatus,
} from '@kubernetes/client-node';
import type { CoreClient } from '../drivers/kubernetes/kube-clients.ts';
import { containerCreating, NODES, recorded, runningStatus } from './kube-recorded-objects.ts';

function apiError(code: number, reason: string, message: string): ApiException<string> {
  const body = JSON.stringify({ kind: 'Status', status: 'Failure', message, reason, code });
  return new ApiException(code, `HTTP-Code: ${code}`, body, {});
}

/** CoreV1Api fake: records what is created, plays kubelet with `podStatus`, deletes namespaces after `terminatingReads`. */
export class FakeCore implements CoreClient {
  nodes: V1Node[] = [NODES.cp1(), NODES.lin1(), NODES.win1()];
  readonly namespaces = new Map<string, V1Namespace>();
  readonly pods: V1Pod[] = [];
  readonly services: V1Service[] = [];
  readonly events: CoreV1Event[] = [];
  readonly calls: string[] = [];
  /** What kubelet reports for a pod on the n-th list (0-based); default Ready from the second list. */
  podStatus: (pod: V1Pod, list: number) => V1PodStatus = (pod, list) =>
    list === 0 ? containerCreating : runningStatus(this.podIp(pod));
  /** readNamespace calls that still see a Terminating namespace after delete. */
  terminatingReads = 1;
  #lists = 0;
  readonly #deleted = new Map<string, number>();

  /** The namespace controller finishes: the namespace is gone from now on. */
  purge(name: string): void {
    this.#deleted.set(name, 0);
  }

  /** 10.244.<node index>.<10 + pod index>: stable, so tests can name the address. */
  podIp(pod: V1Pod): string {
    const host = pod.spec?.nodeSelector?.['kubernetes.io/hostname'];
    const node = this.nodes.findIndex((n) => n.metadata?.name === host);
    return `10.244.${node}.${10 + this.pods.indexOf(pod)}`;
  }

  listNode: CoreClient['listNode'] = () => {
    this.calls.push('listNode');
    return Promise.resolve(recorded(V1NodeList, { items: structuredClone(this.nodes) }));
  };

  createNamespace: CoreClient['createNamespace'] = ({ body }) => {
    this.calls.push(`createNamespace ${body.metadata?.name}`);
    this.namespaces.set(body.metadata!.name!, body);
    return Promise.resolve(body);
  };

  readNamespace: CoreClient['readNamespace'] = ({ name }) => {
    this.calls.push(`readNamespace ${name}`);
    const left = this.#deleted.get(name);
    if (!this.namespaces.has(name) || left === 0) {
      return Promise.reject(apiError(404, 'NotFound', `namespaces "${name}" not found`));
    }
    if (left !== undefined) this.#deleted.set(name, left - 1);
    const phase = left === undefined ? 'Active' : 'Terminating';
    return Promise.resolve(recorded(V1Namespace, { metadata: { name }, status: { phase } }));
  };

  deleteNamespace: CoreClient['deleteNamespace'] = ({ name }) => {
    this.calls.push(`deleteNamespace ${name}`);
    const left = this.#deleted.get(name);
    if (!this.namespaces.has(name) || left === 0) {
      return Promise.reject(apiError(404, 'NotFound', `namespaces "${name}" not found`));
    }
    if (left !== undefined) {
      const message = `Operation cannot be fulfilled on namespaces "${name}": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.`;
      return Promise.reject(apiError(409, 'Conflict', message));
    }
    this.#deleted.set(name, this.terminatingReads);
    return Promise.resolve(recorded(V1Status, { kind: 'Status', status: 'Success' }));
  };

  createNamespacedPod: CoreClient['createNamespacedPod'] = ({ namespace, body }) => {
    this.calls.push(`createNamespacedPod ${namespace}/${body.metadata?.name}`);
    this.pods.push(structuredClone(body));
    return Promise.resolve(body);
  };

  listNamespacedPod: CoreClient['listNamespacedPod'] = ({ namespace }) => {
    this.calls.push(`listNamespacedPod ${namespace}`);
    const list = this.#lists++;
    const items = this.pods.map((pod) => {
      const seen = structuredClone(pod);
      seen.status = this.podStatus(pod, list);
      return seen;
    });
    return Promise.resolve(recorded(V1PodList, { items }));
  };

  listNamespacedEvent: CoreClient['listNamespacedEvent'] = ({ namespace }) => {
    this.calls.push(`listNamespacedEvent ${namespace}`);
    return Promise.resolve(recorded(CoreV1EventList, { items: this.events }));
  };

  createNamespacedService: CoreClient['createNamespacedService'] = ({ namespace, body }) => {
    this.calls.push(`createNamespacedService ${namespace}/${body.metadata?.name}`);
    const created = structuredClone(body);
    const index = this.services.length;
    const spec = (created.spec ??= recorded(V1ServiceSpec, {}));
    spec.clusterIP ??= `10.96.${100 + index}.${20 + index}`;
    if (spec.type === 'NodePort')
      for (const port of spec.ports ?? []) port.nodePort = 30080 + index;
    this.services.push(created);
    return Promise.resolve(created);
  };

  readNamespacedService: CoreClient['readNamespacedService'] = ({ name, namespace }) => {
    this.calls.push(`readNamespacedService ${namespace}/${name}`);
    if (namespace === 'default' && name === 'kubernetes') {
      const ports = [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }];
      return Promise.resolve(
        recorded(V1Service, { metadata: { name }, spec: { clusterIP: '10.96.0.1', ports } }),
      );
    }
    const found = this.services.find((s) => s.metadata?.name === name);
    if (found !== undefined) return Promise.resolve(found);
    return Promise.reject(apiError(404, 'NotFound', `services "${name}" not found`));
  };
}
