/**
 * Every Kubernetes API call the harness makes, with the permission it takes and who makes it: a
 * run on any cluster, path evidence, IMAGE_PULL_SECRET, or only labs the harness made. The
 * type makes each method of the driver's clients appear here; api-permissions.test.ts makes the
 * shipped ClusterRoles (manifests/rbac/hybrid-lab-suite.yaml) grant exactly these.
 */
import type { Permission } from '../../../lab/providers/existing/suite-roles.ts';
import type { CoreClient, OverTimeClient } from './kube-clients.ts';

/** Who makes a call: what the ClusterRoles hold, and what they do not need to. */
export type Caller =
  /** Every run (hybrid-lab-suite). */
  | 'run'
  /** Path evidence's node shell pods and lookups (hybrid-lab-evidence). */
  | 'evidence'
  /** IMAGE_PULL_SECRET (hybrid-lab-pull-secret). */
  | 'pull-secret'
  /** `lab reap`, through the existing provider (hybrid-lab-suite: it removes runs' namespaces). */
  | 'reap'
  /** Only on labs the harness made (the disruption phase cordons and reads nodes there). */
  | 'harness-labs';

export interface ApiCall {
  permission: Permission;
  callers: Caller[];
}

const core = (resource: string, verb: string, ...callers: Caller[]): ApiCall => ({
  permission: { group: '', resource, verb },
  callers,
});

/** The methods of the driver's clients, the exec websocket, and the existing provider's reap. */
type ApiMethod =
  keyof CoreClient | keyof OverTimeClient | 'execGet' | 'execCreate' | 'listNamespace';

export const API_CALLS: Readonly<Record<ApiMethod, ApiCall>> = {
  listNode: core('nodes', 'list', 'run', 'evidence'),
  createNamespace: core('namespaces', 'create', 'run'),
  readNamespace: core('namespaces', 'get', 'run'),
  deleteNamespace: core('namespaces', 'delete', 'run', 'reap'),
  listNamespace: core('namespaces', 'list', 'reap'),
  createNamespacedPod: core('pods', 'create', 'run', 'evidence'),
  deleteNamespacedPod: core('pods', 'delete', 'run', 'evidence'),
  listNamespacedPod: core('pods', 'list', 'run', 'evidence'),
  listNamespacedEvent: core('events', 'list', 'run'),
  createNamespacedService: core('services', 'create', 'run'),
  readNamespacedService: core('services', 'get', 'run', 'evidence'),
  deleteNamespacedService: core('services', 'delete', 'run'),
  readNamespacedServiceAccount: core('serviceaccounts', 'get', 'run'),
  readNamespacedEndpoints: core('endpoints', 'get', 'run'),
  createNamespacedEndpoints: core('endpoints', 'create', 'run'),
  readNamespacedSecret: core('secrets', 'get', 'pull-secret'),
  createNamespacedSecret: core('secrets', 'create', 'pull-secret'),
  // client-node's Exec opens a websocket: a GET; API servers from 1.35 also check create.
  execGet: core('pods/exec', 'get', 'run', 'evidence'),
  execCreate: core('pods/exec', 'create', 'run', 'evidence'),
  patchNode: core('nodes', 'patch', 'harness-labs'),
  readNode: core('nodes', 'get', 'harness-labs'),
};

/** `verb resource` of every call some caller in `callers` makes. */
export function permissionsOf(...callers: Caller[]): Permission[] {
  const seen = new Map<string, Permission>();
  for (const { permission, callers: by } of Object.values(API_CALLS)) {
    if (by.some((c) => callers.includes(c)))
      seen.set(`${permission.group}/${permission.resource}/${permission.verb}`, permission);
  }
  return [...seen.values()];
}
