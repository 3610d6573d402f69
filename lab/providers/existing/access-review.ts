/**
 * Whether the kubeconfig's identity may do what a run does, asked of the API server itself
 * (SelfSubjectAccessReview, which every authenticated identity may create) before anything is
 * created: each permission it lacks is one problem naming the verb, the resource and the fix.
 */
import {
  V1ResourceAttributes,
  V1SelfSubjectAccessReview,
  V1SelfSubjectAccessReviewSpec,
  type AuthorizationV1Api,
} from '@kubernetes/client-node';
import type { PreflightProblem } from '../../errors.ts';
import {
  permissionText,
  SUITE_ROLES_PATH,
  type Permission,
  type SuiteRole,
} from './suite-roles.ts';

export type AccessReviewer = Pick<AuthorizationV1Api, 'createSelfSubjectAccessReview'>;

/** Resources without a namespace: asked for cluster-wide. */
const CLUSTER_SCOPED = new Set(['nodes', 'namespaces']);

/** The request for `permission`; namespaced ones in `namespace` (the run's, which may not exist yet). */
function review(permission: Permission, namespace: string): V1SelfSubjectAccessReview {
  const [resource, subresource] = permission.resource.split('/');
  const attributes = Object.assign(new V1ResourceAttributes(), {
    group: permission.group,
    resource,
    verb: permission.verb,
    ...(subresource === undefined ? {} : { subresource }),
    ...(CLUSTER_SCOPED.has(resource!) ? {} : { namespace }),
  });
  return Object.assign(new V1SelfSubjectAccessReview(), {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: Object.assign(new V1SelfSubjectAccessReviewSpec(), { resourceAttributes: attributes }),
  });
}

/** How to grant `role`, in one line. */
export function grantHint(role: SuiteRole): string {
  return `kubectl apply -f ${SUITE_ROLES_PATH}; kubectl create clusterrolebinding ${role} --clusterrole=${role} --user=NAME (or --serviceaccount=NAMESPACE:NAME); docs/existing.md, "What a run needs"`;
}

/**
 * The permissions of `role` the identity lacks, each as a problem; one problem if the API server
 * cannot be asked at all.
 */
export async function missingPermissions(
  reviewer: AccessReviewer,
  role: SuiteRole,
  permissions: readonly Permission[],
  namespace: string,
): Promise<PreflightProblem[]> {
  let answers;
  try {
    answers = await Promise.all(
      permissions.map((p) =>
        reviewer.createSelfSubjectAccessReview({ body: review(p, namespace) }),
      ),
    );
  } catch (error) {
    return [
      {
        what: `cannot ask the API server what this identity may do (SelfSubjectAccessReview): ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        fix: 'kubectl auth can-i --list, with the same kubeconfig',
      },
    ];
  }
  return answers.flatMap((answer, i) => {
    const status = answer.status;
    if (status?.allowed === true) return [];
    const permission = permissions[i]!;
    const scope = CLUSTER_SCOPED.has(permission.resource) ? '' : ' in the run namespace';
    const why = [status?.reason, status?.evaluationError].filter(Boolean).join('; ');
    return [
      {
        what: `this identity may not ${permissionText(permission)}${scope}${why === '' ? '' : ` (${why})`}: ClusterRole ${role} grants it`,
        fix: grantHint(role),
      },
    ];
  });
}
