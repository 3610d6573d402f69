/** The slices of the Kubernetes API the driver uses; unit tests pass fakes of exactly these. */
import type { AccessReviewer } from '../../../lab/providers/existing/access-review.ts';
import { loadKubeConfig as loadKubeConfigFiles } from '../../../lab/providers/existing/kubeconfig-files.ts';
import type { Readable, Writable } from 'node:stream';
import {
  ApiException,
  AuthorizationV1Api,
  CoreV1Api,
  Exec,
  KubeConfig,
  VersionApi,
  type V1Status,
} from '@kubernetes/client-node';

export type CoreClient = Pick<
  CoreV1Api,
  | 'listNode'
  | 'createNamespace'
  | 'readNamespace'
  | 'deleteNamespace'
  | 'createNamespacedPod'
  | 'deleteNamespacedPod'
  | 'listNamespacedPod'
  | 'listNamespacedEvent'
  | 'createNamespacedService'
  | 'readNamespacedService'
  | 'readNamespacedServiceAccount'
  | 'readNamespacedEndpoints'
  | 'createNamespacedEndpoints'
  | 'readNamespacedSecret'
  | 'createNamespacedSecret'
>;
export type VersionClient = Pick<VersionApi, 'getCode'>;
export type { AccessReviewer } from '../../../lab/providers/existing/access-review.ts';

/** The part of the exec websocket the driver touches. */
export interface ExecSocket {
  close(): void;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** client-node's Exec: resolves when the websocket connects; the exit status comes by callback. */
export interface ExecClient {
  exec(
    namespace: string,
    podName: string,
    containerName: string,
    command: string | string[],
    stdout: Writable | null,
    stderr: Writable | null,
    stdin: Readable | null,
    tty: boolean,
    statusCallback?: (status: V1Status) => void,
  ): Promise<ExecSocket>;
}

/** What the over-time rows and the disruption phase use beyond CoreClient. */
export type OverTimeClient = Pick<
  CoreV1Api,
  | 'createNamespacedService'
  | 'deleteNamespacedService'
  | 'createNamespacedPod'
  | 'deleteNamespacedPod'
  | 'listNamespacedPod'
  | 'patchNode'
  | 'readNode'
>;

export interface KubeClients {
  core: CoreClient;
  version: VersionClient;
  exec: ExecClient;
  /** SelfSubjectAccessReviews: the preflight on clusters the harness did not make. */
  authorization?: AccessReviewer;
  /** Absent in tests that do not reach it. */
  overTime?: OverTimeClient;
}

/** A KubeConfig from a path, or a KUBECONFIG list of them merged as kubectl merges them, or the one given. */
export function loadKubeConfig(config: KubeConfig | string): KubeConfig {
  return typeof config === 'string' ? loadKubeConfigFiles(config) : config;
}

/** Real clients for the config, with any injected ones taking their place. */
export function makeClients(config: KubeConfig, injected: Partial<KubeClients> = {}): KubeClients {
  return {
    core: injected.core ?? config.makeApiClient(CoreV1Api),
    version: injected.version ?? config.makeApiClient(VersionApi),
    exec: injected.exec ?? new Exec(config),
    authorization: injected.authorization ?? config.makeApiClient(AuthorizationV1Api),
    overTime: injected.overTime ?? config.makeApiClient(CoreV1Api),
  };
}

/** The HTTP status of an API error, undefined for anything else (network errors, bugs). */
export function apiStatusCode(error: unknown): number | undefined {
  return error instanceof ApiException ? (error as ApiException<unknown>).code : undefined;
}

/** True when the API answered 404 Not Found. */
export function isNotFound(error: unknown): boolean {
  return apiStatusCode(error) === 404;
}

/** The Status an API error carries (its body, parsed when it is JSON text). */
function apiStatus(error: ApiException<unknown>): Record<string, unknown> | undefined {
  const { body } = error;
  if (typeof body === 'object' && body !== null) return body as Record<string, unknown>;
  if (typeof body !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Any thrown value's message: ws rejects with ErrorEvents, which are no Errors but carry one. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** An API error as one line: the HTTP code and the Status message, not client-node's full dump. */
export function apiErrorText(error: unknown): string {
  if (!(error instanceof ApiException)) return errorMessage(error);
  const { code, body } = error as ApiException<unknown>;
  const message = apiStatus(error as ApiException<unknown>)?.message ?? body;
  const text = typeof message === 'string' ? message.trim() : '';
  return `HTTP ${code}${text === '' ? '' : `: ${text}`}`;
}

/**
 * Seconds after which the API asks for the call again (a Status with reason ServerTimeout or
 * TooManyRequests and details.retryAfterSeconds), else undefined. A v1.20 server answers a pod
 * created before its namespace's service-account token exists with one of these.
 */
export function retryAfterSeconds(error: unknown): number | undefined {
  if (!(error instanceof ApiException)) return undefined;
  const status = apiStatus(error as ApiException<unknown>);
  if (status?.reason !== 'ServerTimeout' && status?.reason !== 'TooManyRequests') return undefined;
  const details = status.details as { retryAfterSeconds?: unknown } | undefined;
  return typeof details?.retryAfterSeconds === 'number' ? details.retryAfterSeconds : 1;
}
