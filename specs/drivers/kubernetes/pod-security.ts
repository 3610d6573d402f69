/**
 * Pod Security admission and the run's pods: the level the run namespace asks for
 * (manifests/suite/namespace.yaml), and what a pod create it refuses becomes — an
 * InfrastructureError naming the pod's kind, the level that refused it and the label that lets it
 * in. https://kubernetes.io/docs/concepts/security/pod-security-admission/
 */
import { runNamespace } from '../../../lab/contracts/kubernetes-names.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import { apiErrorText, apiStatusCode } from './kube-clients.ts';

/** The namespace label that sets the level Pod Security admission enforces. */
export const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
/** The level every run namespace asks for: the host-network pods need it. */
export const RUN_LEVEL = 'privileged';

/** The suite's pods, as an error names them, and what of them a level below privileged refuses. */
export const POD_KINDS = {
  netexec: {
    name: 'netexec pod',
    why: 'agnhost netexec as root with the default capabilities and no seccomp profile, which the restricted level refuses',
  },
  churn: {
    name: 'churn netexec pod',
    why: 'agnhost netexec as root with the default capabilities and no seccomp profile, which the restricted level refuses',
  },
  hostNetworkLinux: {
    name: 'host-network netexec pod',
    why: "agnhost netexec on the node's own network (hostNetwork), which the baseline level refuses",
  },
  hostNetworkWindows: {
    name: 'HostProcess netexec pod',
    why: "agnhost netexec as a HostProcess container on the node's own network, which the baseline level refuses",
  },
  nodeShell: {
    name: 'node shell pod',
    why: "path evidence's shell on the node: privileged, with the node's network and PIDs, which the baseline level refuses",
  },
} as const;

export type PodKind = (typeof POD_KINDS)[keyof typeof POD_KINDS];

/** What kube-apiserver's Pod Security admission says of a pod it refuses (1.22 and later). */
const REFUSAL = /violates PodSecurity "([^"]*)"/;

/**
 * The error a refused create of `pod` in `namespace` becomes when Pod Security refused it (a 403
 * whose Status says `violates PodSecurity "<level>:<version>"`), else undefined.
 */
export function podSecurityRefusal(
  error: unknown,
  pod: { name: string; kind: PodKind },
  namespace: string,
): InfrastructureError | undefined {
  if (apiStatusCode(error) !== 403) return undefined;
  const text = apiErrorText(error);
  const enforced = REFUSAL.exec(text)?.[1];
  if (enforced === undefined) return undefined;
  const label = `${ENFORCE_LABEL}=${RUN_LEVEL}`;
  return new InfrastructureError(
    `Pod Security refused the ${pod.kind.name} ${pod.name} in ${namespace} (${pod.kind.why}): ${text}`,
    {
      cause: error,
      hint:
        `the run namespace needs the label ${label}, which the run gives it, yet "${enforced}" was ` +
        `enforced: something on the cluster overrides it. See what the namespace carries ` +
        `(kubectl get namespace ${namespace} --show-labels); a policy engine (Kyverno, Gatekeeper, ` +
        `Azure Policy) or a controller that rewrites namespace labels must exempt the namespaces ` +
        `named ${runNamespace('*')} or leave them ${label}`,
    },
  );
}
