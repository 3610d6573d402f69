/**
 * Test support: a fake of CoreV1Api that answers with what a live API server answered the same
 * calls (kube-recorded-objects.ts) — it keeps what is created, plays kubelet with the recorded pod
 * statuses and the namespace controller with the recorded Terminating reads, and fails as the server
 * failed (the recorded ApiException codes and bodies, re-addressed to the fake's object names). It
 * opens no socket.
 */
import {
  ApiException,
  CoreV1EventList,
  V1Secret,
  V1NodeList,
  V1ObjectMeta,
  V1Pod,
  V1PodList,
  V1EndpointAddress,
  V1Endpoints,
  V1EndpointSubset,
  V1Service,
  V1ServiceAccount,
  V1ServicePort,
  V1ServiceSpec,
  V1Status,
  type CoreV1Event,
  type V1Namespace,
  type V1Node,
  type V1PodStatus,
} from '@kubernetes/client-node';
import type { CoreClient } from '../drivers/kubernetes/kube-clients.ts';
import {
  createdNamespace,
  missingServiceAccount,
  NODES,
  noServiceAccount,
  podSecurityRefused,
  RECORDED,
  recorded,
  recordedApiError,
  recordedResponse,
  recordedService,
  statusOnPoll,
  systemPods,
  terminatingNamespace,
  withPodIp,
} from './kube-recorded-objects.ts';

/** CoreV1Api fake: records what is created, plays kubelet with `podStatus`, deletes namespaces after `terminatingReads`. */
export class FakeCore implements CoreClient {
  nodes: V1Node[] = [NODES.cp1(), NODES.lin1(), NODES.win1()];
  readonly namespaces = new Map<string, V1Namespace>();
  readonly pods: V1Pod[] = [];
  readonly services: V1Service[] = [];
  /** Endpoints created for Services without a selector. */
  readonly endpoints: V1Endpoints[] = [];
  /** Warning events listNamespacedEvent returns (tests push recorded ones). */
  readonly events: CoreV1Event[] = [];
  readonly calls: string[] = [];
  /** Secrets by `namespace/name` (IMAGE_PULL_SECRET's source, and its copies). */
  readonly secrets = new Map<string, V1Secret>();
  /**
   * What kubelet reports for a pod on the n-th list of its namespace (0-based). Default: the
   * recorded status sequence of the pod (or of its slot's stand-in), at the fake's pod address.
   */
  podStatus: (pod: V1Pod, list: number) => V1PodStatus = (pod, list) =>
    withPodIp(statusOnPoll(pod.metadata?.name ?? '', list), this.podIp(pod));
  /** readNamespace calls that still see a Terminating namespace after delete. */
  terminatingReads = 1;
  /** Pod creates answered as v1.20 answers one before the service-account token exists (500, retry after 1 s). */
  createsTooEarly = 0;
  /**
   * Reads of a new namespace's `default` service account answered 404 before the controller has
   * made it; until then its pod creates are refused as the admission refuses them (403).
   */
  serviceAccountLag = 0;
  /** Endpoints reads answered with no address yet (the endpoints controller lagging behind). */
  endpointsLag = 0;
  /**
   * Pod Security admission as a cluster runs it that enforces `level` where a namespace's
   * `pod-security.kubernetes.io/enforce` label sets none (Talos, hardened RKE2): host-network pods
   * are refused with its 403. `overridden`: a policy enforces `level` whatever the label says.
   */
  podSecurity: { level: 'baseline'; overridden: boolean } | undefined;
  /** Namespaces whose `default` service account is not there yet: reads left until it is. */
  readonly #accountLag = new Map<string, number>();
  readonly #lists = new Map<string, number>();
  /** Namespaces being deleted: reads left before they are gone (0: gone). */
  readonly #deleted = new Map<string, number>();
  readonly #reads = new Map<string, number>();

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

  #exists(name: string): boolean {
    return this.namespaces.has(name) && this.#deleted.get(name) !== 0;
  }

  listNode: CoreClient['listNode'] = () => {
    this.calls.push('listNode');
    const list = recordedResponse(V1NodeList, RECORDED.cluster.nodes);
    list.items = structuredClone(this.nodes);
    return Promise.resolve(list);
  };

  createNamespace: CoreClient['createNamespace'] = ({ body }) => {
    const name = body.metadata!.name!;
    this.calls.push(`createNamespace ${name}`);
    if (this.#exists(name)) {
      return Promise.reject(recordedApiError(RECORDED.namespaces.createAgain, name));
    }
    const created = createdNamespace(body);
    this.namespaces.set(name, created);
    this.#deleted.delete(name);
    if (this.serviceAccountLag > 0) this.#accountLag.set(name, this.serviceAccountLag);
    return Promise.resolve(created);
  };

  readNamespace: CoreClient['readNamespace'] = ({ name }) => {
    this.calls.push(`readNamespace ${name}`);
    if (!this.#exists(name)) {
      return Promise.reject(recordedApiError(RECORDED.namespaces.readMissing, name));
    }
    const left = this.#deleted.get(name);
    if (left === undefined) return Promise.resolve(structuredClone(this.namespaces.get(name)!));
    this.#deleted.set(name, left - 1);
    const read = this.#reads.get(name) ?? 0;
    this.#reads.set(name, read + 1);
    return Promise.resolve(terminatingNamespace(name, read));
  };

  deleteNamespace: CoreClient['deleteNamespace'] = ({ name }) => {
    this.calls.push(`deleteNamespace ${name}`);
    if (!this.#exists(name)) {
      return Promise.reject(recordedApiError(RECORDED.namespaces.deleteGone, name));
    }
    // v1.20 answers the first delete and one while Terminating alike: 200 with the namespace,
    // phase Terminating, which client-node reads as a V1Status (keeping what fits).
    const first = !this.#deleted.has(name);
    if (first) {
      this.#deleted.set(name, this.terminatingReads);
      this.#reads.set(name, 0);
    }
    const answer = first ? RECORDED.namespaces.delete : RECORDED.namespaces.deleteAgain;
    return Promise.resolve(recordedResponse(V1Status, answer));
  };

  /** Creates a pod; with `dryRun: 'All'` admission answers as for a create, and nothing is stored. */
  createNamespacedPod: CoreClient['createNamespacedPod'] = ({ namespace, body, dryRun }) => {
    const name = body.metadata?.name ?? '';
    const dry = dryRun === 'All';
    this.calls.push(`${dry ? 'dryRunNamespacedPod' : 'createNamespacedPod'} ${namespace}/${name}`);
    if (this.#accountLag.has(namespace)) {
      return Promise.reject(noServiceAccount(name, namespace, 'default'));
    }
    const refused = this.#podSecurityRefusal(namespace, body);
    if (refused !== undefined) return Promise.reject(refused);
    if (this.createsTooEarly > 0) {
      this.createsTooEarly--;
      return Promise.reject(recordedApiError(RECORDED.pods.createTooEarly));
    }
    if (dry) return Promise.resolve(recorded(V1Pod, structuredClone(body)));
    if (this.pods.some((p) => p.metadata?.name === name && p.metadata.namespace === namespace)) {
      return Promise.reject(recordedApiError(RECORDED.pods.createAgain, name));
    }
    const created = recorded(V1Pod, body);
    (created.metadata ??= recorded(V1ObjectMeta, {})).namespace = namespace;
    this.pods.push(created);
    return Promise.resolve(structuredClone(created));
  };

  #podSecurityRefusal(namespace: string, pod: V1Pod): ApiException<string> | undefined {
    if (this.podSecurity === undefined || pod.spec?.hostNetwork !== true) return undefined;
    const { level, overridden } = this.podSecurity;
    const labels = this.namespaces.get(namespace)?.metadata?.labels ?? {};
    const enforced = overridden ? level : (labels['pod-security.kubernetes.io/enforce'] ?? level);
    return enforced === 'privileged'
      ? undefined
      : podSecurityRefused(pod.metadata?.name ?? '', enforced);
  }

  /** Deletes at once (grace 0, as the churn asks): the pod is gone from the next list on. */
  deleteNamespacedPod: CoreClient['deleteNamespacedPod'] = ({ name, namespace }) => {
    this.calls.push(`deleteNamespacedPod ${namespace}/${name}`);
    const at = this.pods.findIndex(
      (p) => p.metadata?.name === name && p.metadata.namespace === namespace,
    );
    if (at < 0) return Promise.reject(recordedApiError(RECORDED.pods.readMissing, name));
    const [gone] = this.pods.splice(at, 1);
    return Promise.resolve(structuredClone(gone!));
  };

  listNamespacedPod: CoreClient['listNamespacedPod'] = ({ namespace }) => {
    this.calls.push(`listNamespacedPod ${namespace}`);
    const system = systemPods(namespace);
    if (system !== undefined) return Promise.resolve(system);
    const list = this.#lists.get(namespace) ?? 0;
    this.#lists.set(namespace, list + 1);
    const items = this.pods
      .filter((pod) => pod.metadata?.namespace === namespace)
      .map((pod) => {
        const seen = structuredClone(pod);
        seen.status = this.podStatus(pod, list);
        return seen;
      });
    return Promise.resolve(recorded(V1PodList, { apiVersion: 'v1', kind: 'PodList', items }));
  };

  listNamespacedEvent: CoreClient['listNamespacedEvent'] = ({ namespace }) => {
    this.calls.push(`listNamespacedEvent ${namespace}`);
    return Promise.resolve(
      recorded(CoreV1EventList, { apiVersion: 'v1', kind: 'EventList', items: this.events }),
    );
  };

  /** Services get the clusterIP and nodePort the recorded server gave the same Service. */
  createNamespacedService: CoreClient['createNamespacedService'] = ({ namespace, body }) => {
    const name = body.metadata?.name ?? '';
    this.calls.push(`createNamespacedService ${namespace}/${name}`);
    if (
      this.services.some((s) => s.metadata?.name === name && s.metadata.namespace === namespace)
    ) {
      return Promise.reject(recordedApiError(RECORDED.services.createAgain, name));
    }
    const created = recorded(V1Service, body);
    (created.metadata ??= recorded(V1ObjectMeta, {})).namespace = namespace;
    const spec = (created.spec ??= recorded(V1ServiceSpec, {}));
    // The churn and feature Services are younger than the recordings: addresses of their own.
    const assigned = recordedService(name)?.spec ?? unrecordedService(name, body.spec);
    if (assigned === undefined) {
      return Promise.reject(
        new Error(`FakeCore: no recorded Service ${name} to copy addresses from`),
      );
    }
    spec.clusterIP = assigned.clusterIP;
    spec.clusterIPs = assigned.clusterIPs;
    (spec.ports ?? []).forEach((port, i) => {
      const nodePort = assigned.ports?.[i]?.nodePort;
      if (nodePort !== undefined) port.nodePort = nodePort;
    });
    if (assigned.healthCheckNodePort !== undefined)
      spec.healthCheckNodePort = assigned.healthCheckNodePort;
    this.services.push(created);
    return Promise.resolve(structuredClone(created));
  };

  /** Endpoints of a Service without a selector, as given (the API defaults nothing the suite reads). */
  createNamespacedEndpoints: CoreClient['createNamespacedEndpoints'] = ({ namespace, body }) => {
    const name = body.metadata?.name ?? '';
    this.calls.push(`createNamespacedEndpoints ${namespace}/${name}`);
    const created = recorded(V1Endpoints, body);
    (created.metadata ??= recorded(V1ObjectMeta, {})).namespace = namespace;
    this.endpoints.push(created);
    return Promise.resolve(structuredClone(created));
  };

  readNamespacedServiceAccount: CoreClient['readNamespacedServiceAccount'] = ({
    name,
    namespace,
  }) => {
    this.calls.push(`readNamespacedServiceAccount ${namespace}/${name}`);
    const lag = this.#accountLag.get(namespace);
    if (lag !== undefined) {
      if (lag <= 1) this.#accountLag.delete(namespace);
      else this.#accountLag.set(namespace, lag - 1);
    }
    if (!this.#exists(namespace) || name !== 'default' || lag !== undefined) {
      return Promise.reject(missingServiceAccount(name));
    }
    const account = recordedResponse(V1ServiceAccount, RECORDED.namespaces.serviceAccount);
    account.metadata!.namespace = namespace;
    return Promise.resolve(account);
  };

  /** A Service's Endpoints: the recorded shape, with this fake's pods its selector picks. */
  readNamespacedEndpoints: CoreClient['readNamespacedEndpoints'] = ({ name, namespace }) => {
    this.calls.push(`readNamespacedEndpoints ${namespace}/${name}`);
    const service = this.services.find(
      (s) => s.metadata?.name === name && s.metadata.namespace === namespace,
    );
    if (service === undefined) {
      return Promise.reject(recordedApiError(RECORDED.services.endpointsMissing, name));
    }
    const template =
      RECORDED.services.endpoints.find((e) => e.args.name === name) ??
      RECORDED.services.endpoints[0]!;
    const endpoints = recordedResponse(V1Endpoints, template);
    const metadata = (endpoints.metadata ??= recorded(V1ObjectMeta, {}));
    metadata.name = name;
    metadata.namespace = namespace;
    const selector = Object.entries(service.spec?.selector ?? {});
    const picked = this.pods.filter(
      (pod) =>
        pod.metadata?.namespace === namespace &&
        selector.every(([key, value]) => pod.metadata?.labels?.[key] === value),
    );
    const lagging = this.endpointsLag > 0;
    if (lagging) this.endpointsLag--;
    const addresses = lagging
      ? []
      : picked.map((pod) => recorded(V1EndpointAddress, { ip: this.podIp(pod) }));
    const [subset] = endpoints.subsets ?? [];
    endpoints.subsets = [recorded(V1EndpointSubset, { ports: subset?.ports, addresses })];
    return Promise.resolve(endpoints);
  };

  readNamespacedSecret: CoreClient['readNamespacedSecret'] = ({ name, namespace }) => {
    this.calls.push(`readNamespacedSecret ${namespace}/${name}`);
    const found = this.secrets.get(`${namespace}/${name}`);
    if (found !== undefined) return Promise.resolve(structuredClone(found));
    // Hand-written: the recordings hold no Secret; a Status as the API server answers any 404.
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: `secrets "${name}" not found`,
      reason: 'NotFound',
      details: { name, kind: 'secrets' },
      code: 404,
    });
    return Promise.reject(new ApiException(404, 'Not Found', body, {}));
  };

  createNamespacedSecret: CoreClient['createNamespacedSecret'] = ({ namespace, body }) => {
    const name = body.metadata?.name ?? '';
    this.calls.push(`createNamespacedSecret ${namespace}/${name}`);
    const created = Object.assign(new V1Secret(), structuredClone(body));
    created.metadata = Object.assign(new V1ObjectMeta(), structuredClone(body.metadata), {
      namespace,
    });
    this.secrets.set(`${namespace}/${name}`, created);
    return Promise.resolve(structuredClone(created));
  };

  readNamespacedService: CoreClient['readNamespacedService'] = ({ name, namespace }) => {
    this.calls.push(`readNamespacedService ${namespace}/${name}`);
    if (namespace === 'default' && name === 'kubernetes') {
      return Promise.resolve(recordedResponse(V1Service, RECORDED.services.kubernetes));
    }
    const found = this.services.find(
      (s) => s.metadata?.name === name && s.metadata.namespace === namespace,
    );
    if (found !== undefined) return Promise.resolve(structuredClone(found));
    return Promise.reject(recordedApiError(RECORDED.services.readMissing, name));
  };
}

/** Services the recordings do not have: the churn and Service-feature ones. */
const UNRECORDED = [
  'churn-linux',
  'churn-windows',
  'affinity-linux',
  'affinity-windows',
  'affinity-timeout-linux',
  'affinity-timeout-windows',
  'dual-linux',
  'dual-windows',
  'internal-local-linux',
  'internal-local-windows',
  'health-linux',
  'health-windows',
  'external-echo',
  'external-name',
];

/**
 * Addresses for a Service not in the recordings, outside the recorded ones, as v1.20 gives them:
 * a ClusterIP (none for headless and ExternalName), node ports for a LoadBalancer, and a
 * health-check node port for one with externalTrafficPolicy Local.
 */
function unrecordedService(name: string, asked?: V1ServiceSpec): V1ServiceSpec | undefined {
  const at = UNRECORDED.indexOf(name);
  if (at < 0) return undefined;
  const none = asked !== undefined && (asked.clusterIP === 'None' || asked.type === 'ExternalName');
  const clusterIP = none ? asked.clusterIP : `10.96.250.${10 + at}`;
  const spec = recorded(V1ServiceSpec, {
    ...(clusterIP === undefined ? {} : { clusterIP, clusterIPs: [clusterIP] }),
  });
  if (asked?.type === 'LoadBalancer') {
    spec.ports = (asked.ports ?? []).map((p, i) =>
      Object.assign(new V1ServicePort(), p, { nodePort: 32000 + at * 4 + i }),
    );
    if (asked.externalTrafficPolicy === 'Local') spec.healthCheckNodePort = 32500 + at;
  }
  return spec;
}
