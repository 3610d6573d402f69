/**
 * Test support: API objects for the fakes, taken from what a live Kubernetes v1.20.2 API server
 * answered the driver's own client calls — Linux nodes, /version, the system pods, Services, pod
 * statuses over time, ApiException codes and bodies, Warning events and exec frames. The files are
 * `kube-api-v1.20.2.*.json` next to this one, made by record-kube-api.ts; how, when and on which
 * cluster: kube-api-v1.20.2.README.md.
 *
 * Not recorded, and so hand-written, each marked where it is made: the Windows node (hand-written
 * from the API reference shapes (no Windows node can run here)), a node's NotReady condition and a
 * node without an InternalIP (states the recorded cluster was never put in), and Pod Security's 403
 * (recordings/pod-security-403.json: v1.20.2 has no Pod Security admission). Derived from a
 * recording, also marked: the status frame of an exit code no recorded run had, the status of a pod
 * the recording lacks (its slot's recorded pod stands in), and the pod addresses FakeCore gives.
 */
import { readFileSync } from 'node:fs';
import {
  ApiException,
  CoreV1Event,
  CoreV1EventList,
  V1Namespace,
  V1Node,
  V1NodeCondition,
  V1NodeSpec,
  V1NodeStatus,
  V1ObjectMeta,
  V1PodIP,
  V1PodList,
  V1PodStatus,
  V1Service,
  V1Status,
  V1StatusCause,
  V1StatusDetails,
  VersionInfo,
} from '@kubernetes/client-node';
import type { VersionClient } from '../drivers/kubernetes/kube-clients.ts';
import {
  recordingFile,
  type ExecRun,
  type Exchange,
  type PodSecurityRecording,
  type PodStatusSteps,
  type RecordedApiError,
  type Recordings,
  type Topic,
} from './kube-recording-format.ts';
import type { ExecScript } from './kube-fake-exec.ts';

/** The server version the recordings come from. */
export const RECORDED_VERSION = 'v1.20.2';
/** The hand-written Windows node's kubelet (windowsNode). */
const WINDOWS_KUBELET = 'v1.23.17';

function load<T extends Topic>(topic: T): Recordings[T] {
  const file = new URL(`recordings/${recordingFile(RECORDED_VERSION, topic)}`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as Recordings[T];
}

/** The recordings, as read from the files (treat as read-only: the helpers below hand out copies). */
export const RECORDED: Readonly<Recordings> = {
  cluster: load('cluster'),
  namespaces: load('namespaces'),
  services: load('services'),
  pods: load('pods'),
  podFailures: load('podFailures'),
  exec: load('exec'),
};

/** Pod Security's 403, in the form kube-apiserver 1.25+ answers it (its `source` says why not recorded). */
export const POD_SECURITY: Readonly<PodSecurityRecording> = JSON.parse(
  readFileSync(new URL('recordings/pod-security-403.json', import.meta.url), 'utf8'),
) as PodSecurityRecording;

/** Recorded JSON as an instance of the client's model class (nested objects stay plain, as the driver only reads fields). */
export function recorded<T extends object>(model: new () => T, json: object): T {
  return Object.assign(new model(), structuredClone(json));
}

/** What a recorded call resolved with, as the model class the client returns. */
export function recordedResponse<T extends object>(model: new () => T, exchange: Exchange): T {
  if (exchange.response === undefined) {
    throw new Error(`the recorded ${exchange.call} failed; it has no response`);
  }
  return recorded(model, exchange.response as object);
}

function apiErrorOf(exchange: Exchange): RecordedApiError {
  const error = exchange.error;
  if (error === undefined || !('code' in error)) {
    throw new Error(`the recorded ${exchange.call} did not fail with an API error`);
  }
  return error;
}

/**
 * The ApiException client-node threw for a recorded call: its code, body and content-type, built
 * as client-node builds it for a status its spec does not list. `name` re-addresses the body from
 * the recorded object (details.name) to another one, e.g. the fake's namespace.
 */
export function recordedApiError(exchange: Exchange, name?: string): ApiException<string> {
  const { body } = apiErrorOf(exchange);
  const recordedName = (JSON.parse(body) as { details?: { name?: string } }).details?.name;
  return readdressedApiError(
    exchange,
    name === undefined || recordedName === undefined ? {} : { [recordedName]: name },
  );
}

/** A recorded API error with every `from` text in its body replaced by its `to`. */
function readdressedApiError(
  exchange: Exchange,
  names: Record<string, string>,
): ApiException<string> {
  const { code, body, headers } = apiErrorOf(exchange);
  const text = Object.entries(names).reduce((t, [from, to]) => t.split(from).join(to), body);
  return new ApiException(code, 'Unknown API Status Code!', text, { ...headers });
}

/** The Status body of a recorded API error, parsed. */
export function recordedStatus(exchange: Exchange): V1Status {
  return recorded(V1Status, JSON.parse(apiErrorOf(exchange).body) as object);
}

// ---- nodes and /version ----------------------------------------------------------------------

function recordedNodes(): V1Node[] {
  const list = RECORDED.cluster.nodes.response as { items: object[] };
  return list.items.map((node) => recorded(V1Node, node));
}

/** A Linux node exactly as the recorded cluster listed it (cp1 control plane; lin1, lin2 workers). */
export function linuxNode(name: 'cp1' | 'lin1' | 'lin2'): V1Node {
  const node = recordedNodes().find((n) => n.metadata?.name === name);
  if (node === undefined) throw new Error(`no node ${name} in the recording`);
  return node;
}

/**
 * A Windows Server 2022 worker. Hand-written from the API reference shapes (no Windows node can
 * run here): labels, the os=windows taint and nodeInfo as kubelet on Windows reports them. Its
 * kubelet is 1.23, the first with HostProcess on by default, which the suite's Windows pods need
 * (a 1.20 kubelet, the recorded cluster's, would leave the node out).
 */
export function windowsNode(name: string, ip: string): V1Node {
  return recorded(V1Node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'windows',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'windows',
        'node.kubernetes.io/windows-build': '10.0.20348',
      },
    },
    spec: {
      podCIDR: `10.244.${ip.split('.')[3]}.0/24`,
      taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
        },
      ],
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: 'containerd://1.7.13',
        kernelVersion: '10.0.20348.2582',
        kubeProxyVersion: WINDOWS_KUBELET,
        kubeletVersion: WINDOWS_KUBELET,
        machineID: name,
        operatingSystem: 'windows',
        osImage: 'Windows Server 2022 Datacenter',
        systemUUID: '',
      },
    },
  });
}

/** The recorded cluster's nodes, and a hand-written Windows worker (win1) beside them. */
export const NODES = {
  cp1: () => linuxNode('cp1'),
  lin1: () => linuxNode('lin1'),
  lin2: () => linuxNode('lin2'),
  win1: () => windowsNode('win1', '192.168.200.13'),
};

/** `node`, cordoned: spec.unschedulable and the taint, as the recorded cordoned node showed them. */
export function cordoned(node: V1Node): V1Node {
  const seen = (RECORDED.cluster.cordonedNode.response as { items: V1Node[] }).items[0]!;
  const copy = recorded(V1Node, node);
  const spec = (copy.spec ??= recorded(V1NodeSpec, {}));
  spec.unschedulable = true;
  spec.taints = structuredClone(seen.spec?.taints);
  return copy;
}

/**
 * A node's Ready condition as kubelet or the node controller posts it. Hand-written: the recorded
 * cluster never had a NotReady node (the messages are those of kubelet and the node controller).
 */
export const readyCondition = (
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
): V1NodeCondition => recorded(V1NodeCondition, { type: 'Ready', status, reason, message });

/** `node` with its Ready condition replaced. */
export function withReady(node: V1Node, ready: V1NodeCondition): V1Node {
  const copy = recorded(V1Node, node);
  const status = (copy.status ??= recorded(V1NodeStatus, {}));
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Ready'), ready];
  return copy;
}

/** `node` without an InternalIP address (hand-written: a state the recorded cluster never had). */
export function withoutInternalIp(node: V1Node): V1Node {
  const copy = recorded(V1Node, node);
  const status = (copy.status ??= recorded(V1NodeStatus, {}));
  status.addresses = (status.addresses ?? []).filter((a) => a.type !== 'InternalIP');
  return copy;
}

/** getCode() as recorded: the API server's /version. */
export const fakeVersion: VersionClient = {
  getCode: () => Promise.resolve(recordedResponse(VersionInfo, RECORDED.cluster.version)),
};

/** listNamespacedPod of kube-system or kube-flannel as cluster discovery got it (undefined: not recorded). */
export function systemPods(namespace: string): V1PodList | undefined {
  const exchange = RECORDED.cluster.systemPods.find((e) => e.args.namespace === namespace);
  return exchange === undefined ? undefined : recordedResponse(V1PodList, exchange);
}

// ---- namespaces and Services -----------------------------------------------------------------

/** A namespace as createNamespace answered, for `body`'s name and labels. */
export function createdNamespace(body: V1Namespace): V1Namespace {
  const created = recordedResponse(V1Namespace, RECORDED.namespaces.create);
  Object.assign((created.metadata ??= recorded(V1ObjectMeta, {})), structuredClone(body.metadata));
  return created;
}

/** The 404 of a read of `account`, a service account that does not exist (yet). */
export function missingServiceAccount(account: string): ApiException<string> {
  return recordedApiError(RECORDED.namespaces.serviceAccountMissing, account);
}

/** The 403 the service-account admission answers a create of `pod` in `namespace` while its `account` does not exist. */
export function noServiceAccount(
  pod: string,
  namespace: string,
  account: string,
): ApiException<string> {
  const exchange = RECORDED.pods.createNoServiceAccount;
  const { details } = recordedStatus(exchange);
  return readdressedApiError(exchange, {
    [details!.name!]: pod,
    [String(exchange.args.namespace)]: namespace,
    'default-missing': account,
  });
}

/**
 * The 403 Pod Security admission answers a create of `pod` with where it enforces `level` (the
 * form's pod and level re-addressed). The check it names is the host network's, which every pod
 * it refuses here has; a HostProcess pod's real answer lists its hostProcess check as well.
 */
export function podSecurityRefused(pod: string, level = 'baseline'): ApiException<string> {
  const exchange = POD_SECURITY.createHostNetworkPod;
  const { details } = recordedStatus(exchange);
  return readdressedApiError(exchange, {
    [details!.name!]: pod,
    'baseline:latest': `${level}:latest`,
  });
}

/** What readNamespace answered on the n-th read (0-based) after the delete, while still Terminating. */
export function terminatingNamespace(name: string, read: number): V1Namespace {
  const answers = RECORDED.namespaces.readUntilGone.filter((s) => s.value.response !== undefined);
  let left = read;
  const step = answers.find((s) => (left -= s.polls) < 0) ?? answers.at(-1)!;
  const ns = recorded(V1Namespace, step.value.response as object);
  (ns.metadata ??= recorded(V1ObjectMeta, {})).name = name;
  return ns;
}

/** The recorded create response of one of the suite's Services (web-linux, web-windows, netexec). */
export function recordedService(name: string): V1Service | undefined {
  const exchange = RECORDED.services.create.find(
    (e) => (e.response as V1Service | undefined)?.metadata?.name === name,
  );
  return exchange === undefined ? undefined : recordedResponse(V1Service, exchange);
}

// ---- pod statuses and events -----------------------------------------------------------------

function stepAt(steps: PodStatusSteps, pod: string, poll: number): V1PodStatus | undefined {
  const seen = steps.pods[pod];
  if (seen === undefined) return undefined;
  const step = seen.filter((s) => s.poll <= poll).at(-1) ?? seen[0]!;
  return recorded(V1PodStatus, step.status as object);
}

/** The pods of the recorded run (two per node: cp1, lin1, lin2). */
export const RECORDED_RUN_PODS: readonly string[] = Object.keys(RECORDED.pods.untilReady.pods);

/**
 * The status kubelet posted for `pod` on the n-th listNamespacedPod after the creates, until Ready
 * (Pending without conditions, ContainerCreating, Running but not Ready, Ready). A pod the
 * recording does not have follows the recorded one of its kind on the last node: a host-network
 * pod, or a netexec pod of its slot.
 */
export function statusOnPoll(pod: string, poll: number): V1PodStatus {
  const steps = RECORDED.pods.untilReady;
  // Churn pods (slots c and d) are netexec pods of the same template: slot a's stand in.
  const slot = (name: string) => (['c', 'd'].includes(name.at(-1)!) ? 'a' : name.at(-1));
  const kind = (name: string) => (name.startsWith('host-') ? 'host' : `slot ${slot(name)}`);
  const stand =
    pod in steps.pods ? pod : RECORDED_RUN_PODS.filter((p) => kind(p) === kind(pod)).at(-1);
  if (stand === undefined) throw new Error(`no recorded pod stands in for ${pod}`);
  return stepAt(steps, stand, poll)!;
}

/** How many polls the recorded pods took to be Ready. */
export const POLLS_UNTIL_READY = RECORDED.pods.untilReady.polls;

/** A Ready pod's status as recorded, with `podIP` as its address (the fake's addressing). */
export function runningStatus(podIP: string, pod = RECORDED_RUN_PODS[0]!): V1PodStatus {
  return withPodIp(statusOnPoll(pod, Infinity), podIP);
}

/** `status` carrying `podIP` (and podIPs) where it carries an address at all. */
export function withPodIp(status: V1PodStatus, podIP: string): V1PodStatus {
  if (status.podIP === undefined) return status;
  const copy = recorded(V1PodStatus, status);
  copy.podIP = podIP;
  copy.podIPs = [recorded(V1PodIP, { ip: podIP })];
  return copy;
}

/** Which recorded failing pod shows what (podFailures.pods): name by failure. */
export const FAILING_PODS = {
  /** nodeSelector on a Windows node the cluster does not have: PodScheduled=False, Unschedulable. */
  unschedulable: 'netexec-win1-a',
  /** An image from a registry that does not resolve: ErrImagePull, then ImagePullBackOff. */
  imagePull: 'netexec-lin1-a',
  /** A sandbox the runtime cannot start: ContainerCreating; the reason only in an event. */
  sandbox: 'netexec-lin2-b',
} as const;

/** The recorded image the image-pull pod could not pull. */
export const UNPULLABLE_IMAGE = 'mirror.local:5000/e2e/agnhost:2.52';

/** The last status the recording holds for a failing pod (FAILING_PODS). */
export function failedStatus(pod: string): V1PodStatus {
  const status = stepAt(RECORDED.podFailures.statuses, pod, Infinity);
  if (status === undefined) throw new Error(`no failing pod ${pod} in the recording`);
  return status;
}

/** Every status the recording holds for a failing pod, in order. */
export function failedStatuses(pod: string): V1PodStatus[] {
  return (RECORDED.podFailures.statuses.pods[pod] ?? []).map((s) =>
    recorded(V1PodStatus, s.status as object),
  );
}

/** The Warning events of the failing pods, as listNamespacedEvent(type=Warning) listed them. */
export function recordedWarnings(): CoreV1Event[] {
  return recordedResponse(CoreV1EventList, RECORDED.podFailures.warnings).items.map((e) =>
    recorded(CoreV1Event, e),
  );
}

// ---- exec ------------------------------------------------------------------------------------

/** A recorded exec run by name (record-kube-api.ts: stdout, stdout-stderr-exit-3, http-refused, …). */
export function execRun(name: string): ExecRun {
  const run = RECORDED.exec.runs.find((r) => r.name === name);
  if (run === undefined) throw new Error(`no exec run ${name} in the recording`);
  return structuredClone(run);
}

/** A FakeExec script that replays a recorded run's frames. */
export function replay(name: string, delayMs?: number): ExecScript {
  return { frames: execRun(name).frames, ...(delayMs === undefined ? {} : { delayMs }) };
}

/** The status frame a recorded run ended with. */
export function statusFrame(name: string): V1Status {
  const frame = execRun(name).frames.find((f) => f.channel === 3);
  if (frame === undefined) throw new Error(`exec run ${name} has no status frame`);
  return recorded(V1Status, JSON.parse(frame.text) as object);
}

/**
 * The status frame of a command that exited with `code`: the recorded frame for that code when a
 * run exited so (0, 1, 3, 6, 7, 28), else the recorded exit-3 frame with the code put in its place.
 */
export function exitStatus(code: number): V1Status {
  const run = RECORDED.exec.runs.find((r) => r.result?.exitCode === code);
  if (run !== undefined) return statusFrame(run.name);
  const frame = statusFrame('stdout-stderr-exit-3');
  frame.message = frame.message?.replace(/exit code 3$/, `exit code ${code}`);
  const cause = recorded(V1StatusCause, { reason: 'ExitCode', message: String(code) });
  frame.details = recorded(V1StatusDetails, { causes: [cause] });
  return frame;
}

/**
 * What client-node's exec() rejected with when the API server refused the websocket upgrade
 * (recorded: exec into a missing pod). ws hands client-node an ErrorEvent, which is not an Error;
 * this is that shape with the recorded message.
 */
export class ErrorEvent {
  readonly type = 'error';
  readonly error: Error;
  constructor(readonly message: string) {
    this.error = new Error(message);
  }
}

export function recordedConnectError(name = 'missing-pod'): ErrorEvent {
  const cause = execRun(name).error?.cause;
  if (cause === undefined || !('type' in cause) || cause.type !== 'ErrorEvent') {
    throw new Error(`exec run ${name} did not fail to connect with an ErrorEvent`);
  }
  return new ErrorEvent(cause.message);
}
