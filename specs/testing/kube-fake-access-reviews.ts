/**
 * Test support: a fake of the API server's SelfSubjectAccessReview. It allows everything but
 * `denied` (`verb resource`, as `kubectl auth can-i` takes them). The answers are hand-written in
 * the shape of the API reference (status.allowed, status.reason), not recorded: the recorded
 * v1.20.2 cluster was never asked.
 */
import {
  V1ResourceAttributes,
  V1SelfSubjectAccessReview,
  V1SubjectAccessReviewStatus,
  type AuthorizationV1ApiCreateSelfSubjectAccessReviewRequest,
} from '@kubernetes/client-node';
import type { AccessReviewer } from '../drivers/kubernetes/kube-clients.ts';

export class FakeAccessReviews implements AccessReviewer {
  /** Permissions refused, as `verb resource` (`create endpoints`, `get pods/exec`). */
  readonly denied = new Set<string>();
  /** What was asked, as `verb resource[ -n namespace]`. */
  readonly asked: string[] = [];

  createSelfSubjectAccessReview = ({
    body,
  }: AuthorizationV1ApiCreateSelfSubjectAccessReviewRequest): Promise<V1SelfSubjectAccessReview> => {
    const a = body.spec.resourceAttributes ?? new V1ResourceAttributes();
    const what = `${a.verb ?? ''} ${a.resource ?? ''}${a.subresource === undefined ? '' : `/${a.subresource}`}`;
    this.asked.push(`${what}${a.namespace === undefined ? '' : ` -n ${a.namespace}`}`);
    const allowed = !this.denied.has(what);
    return Promise.resolve(
      Object.assign(new V1SelfSubjectAccessReview(), {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: body.spec,
        status: Object.assign(
          new V1SubjectAccessReviewStatus(),
          allowed
            ? {
                allowed,
                reason:
                  'RBAC: allowed by ClusterRoleBinding "hybrid-lab-suite" of ClusterRole "hybrid-lab-suite"',
              }
            : { allowed },
        ),
      }),
    );
  };
}
