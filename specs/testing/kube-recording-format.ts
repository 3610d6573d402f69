/**
 * Test support: the shape of the API recordings record-kube-api.ts writes and
 * kube-recorded-objects.ts reads. One file per topic, `kube-api-<gitVersion>.<topic>.json`.
 */
import type { ProbeRequest } from '../model/lab-driver.ts';

/** A failed call as client-node 1.4 threw it: ApiException's code and body (the body text, verbatim). */
export interface RecordedApiError {
  code: number;
  /** The response body as ApiException carries it: the API server's Status, as text. */
  body: string;
  /** Only content-type is kept (audit ids and dates say nothing to the driver). */
  headers: Record<string, string>;
}

/** Anything else that was thrown (a websocket error, a network error). */
export interface RecordedOtherError {
  name: string;
  message: string;
  /** What the thrown value was (`ErrorEvent`, `Error`, …), as ws and node-fetch make them. */
  type: string;
}

/** One call of the driver's API surface and what came back. */
export interface Exchange {
  /** The client method, e.g. `createNamespace`. */
  call: string;
  /** Its parameters, without the request body (the body is the rendered manifest). */
  args: Record<string, unknown>;
  /** Milliseconds since the step began (polls: since the first poll). */
  atMs: number;
  /** What the client resolved with, as JSON (client-node's model objects; dates as ISO text). */
  response?: unknown;
  error?: RecordedApiError | RecordedOtherError;
}

/** Consecutive identical answers of a poll, kept once with how many polls gave them. */
export interface PollStep<T> {
  atMs: number;
  polls: number;
  value: T;
}

/** One pod's status from the poll (0-based) where it first showed, for `polls` polls. */
export interface StatusStep {
  poll: number;
  atMs: number;
  polls: number;
  /** V1PodStatus as client-node returned it. */
  status: unknown;
}

/** Each pod's status over `polls` answers of listNamespacedPod: a step per change. */
export interface PodStatusSteps {
  polls: number;
  pods: Record<string, StatusStep[]>;
}

export interface ClusterRecording {
  /** getCode(): /version. */
  version: Exchange;
  /** listNode(), trimmed (status.images, managedFields). */
  nodes: Exchange;
  /** The lin2 node while cordoned (spec.unschedulable, and the taint the node controller adds). */
  cordonedNode: Exchange;
  /** listNamespacedPod of kube-system and kube-flannel, as cluster discovery reads them (trimmed). */
  systemPods: Exchange[];
}

export interface NamespaceRecording {
  create: Exchange;
  /** createNamespace again: 409 AlreadyExists. */
  createAgain: Exchange;
  /** readNamespace of a namespace that never existed: 404. */
  readMissing: Exchange;
  /** deleteNamespace of the run namespace (with its pods). */
  delete: Exchange;
  /** deleteNamespace again while Terminating, as a second cleanup does (v1.20: 200, the namespace). */
  deleteAgain: Exchange;
  /** readNamespace polled from the delete until the namespace is gone (Terminating …, then 404). */
  readUntilGone: PollStep<Omit<Exchange, 'atMs'>>[];
  /** deleteNamespace once it is gone: 404. */
  deleteGone: Exchange;
  /** readNamespacedServiceAccount of the run namespace's `default`, as the deploy first found it. */
  serviceAccount: Exchange;
  /** readNamespacedServiceAccount of an account that does not exist (`default-missing`): 404. */
  serviceAccountMissing: Exchange;
}

export interface ServiceRecording {
  /** createNamespacedService of the headless, web-linux and web-windows Services. */
  create: Exchange[];
  /** readNamespacedService of web-linux and web-windows once the pods are Ready. */
  read: Exchange[];
  /** readNamespacedService default/kubernetes. */
  kubernetes: Exchange;
  readMissing: Exchange;
  /** readNamespacedEndpoints of each Service, the deploy's last read: every selected pod ready. */
  endpoints: Exchange[];
  /** readNamespacedEndpoints of a Service that does not exist: 404. */
  endpointsMissing: Exchange;
  /** createNamespacedService of an existing Service: 409. */
  createAgain: Exchange;
  /** createNamespacedService with a nodePort outside the range: 422. */
  createInvalid: Exchange;
}

export interface PodRecording {
  /** createNamespacedPod of the first suite pod. */
  create: Exchange;
  /** Every pod's status on each listNamespacedPod poll from the creates until all were Ready. */
  untilReady: PodStatusSteps;
  /** readNamespacedPod of a pod that does not exist: 404. */
  readMissing: Exchange;
  /** createNamespacedPod with a bad name and a bad port: 422. */
  createInvalid: Exchange;
  /** createNamespacedPod of a pod that exists: 409. */
  createAgain: Exchange;
  /**
   * createNamespacedPod right after createNamespace, before the token controller has made the
   * default service account's token (Kubernetes before 1.24): 500 ServerTimeout, retry after 1 s.
   * A race the recorder has always met; when it does not, it writes nothing and says so.
   */
  createTooEarly: Exchange;
  /**
   * createNamespacedPod naming a service account that does not exist (`default-missing`): 403, as
   * every pod of a namespace is refused until the controller has made its `default` account.
   */
  createNoServiceAccount: Exchange;
}

export interface PodFailureRecording {
  /** Which pod shows which failure (pod name → what was done to it). */
  pods: Record<string, string>;
  /** Their statuses per poll until each showed its failure. */
  statuses: PodStatusSteps;
  /** listNamespacedEvent with fieldSelector type=Warning at the end, as the driver asks. */
  warnings: Exchange;
}

export interface RecordedFrame {
  /** v4.channel.k8s.io channel: 1 stdout, 2 stderr, 3 status (error channel). */
  channel: number;
  /** The frame's payload as UTF-8 text. */
  text: string;
}

export interface ExecRun {
  name: string;
  pod: string;
  command: string[];
  /** The driver's probe the command is (probeCommand's argv for this timeout), when it is one. */
  request?: ProbeRequest;
  timeoutMs: number;
  /** The frames after the channel byte, in arrival order (empty ones included). */
  frames: RecordedFrame[];
  /** What execInPod resolved with. */
  result?: { exitCode: number | null; stdout: string; stderr: string; status: unknown };
  /** What execInPod rejected with, and what client-node's exec() had thrown. */
  error?: { message: string; cause?: RecordedOtherError | RecordedApiError };
}

export interface ExecRecording {
  /** The websocket subprotocol the API server agreed to. */
  protocol: string;
  runs: ExecRun[];
}

/**
 * recordings/pod-security-403.json: the 403 Pod Security admission answers a pod create with (not
 * recorded from the v1.20.2 server, which has no Pod Security admission; `source` says where its
 * form comes from).
 */
export interface PodSecurityRecording {
  source: string[];
  /** createNamespacedPod of a host-network pod in a namespace that enforces baseline. */
  createHostNetworkPod: Exchange;
}

export interface Recordings {
  cluster: ClusterRecording;
  namespaces: NamespaceRecording;
  services: ServiceRecording;
  pods: PodRecording;
  podFailures: PodFailureRecording;
  exec: ExecRecording;
}

export type Topic = keyof Recordings;
export const TOPICS: readonly Topic[] = [
  'cluster',
  'namespaces',
  'services',
  'pods',
  'podFailures',
  'exec',
];

/** `kube-api-v1.20.2.podFailures.json` */
export function recordingFile(gitVersion: string, topic: Topic | 'README'): string {
  return `kube-api-${gitVersion}.${topic}.${topic === 'README' ? 'md' : 'json'}`;
}
