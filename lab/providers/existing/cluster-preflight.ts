/**
 * The checks a run makes of a cluster it did not build before it creates anything: the API
 * server's version against the fields the run relies on, every permission of the shipped
 * ClusterRoles by SelfSubjectAccessReview, and which nodes it can use. `lab up` with provider
 * existing runs them too; the run adds a server-side dry run of each pod it creates
 * (specs/drivers/kubernetes), which needs its namespace.
 */
import type { CoreV1Api, VersionApi } from '@kubernetes/client-node';
import type { PreflightProblem } from '../../errors.ts';
import { missingPermissions, type AccessReviewer } from './access-review.ts';
import {
  belowVersion,
  chooseNodes,
  leftOutText,
  OS_LABEL,
  type LeftOutNode,
  type NodeChoice,
} from './node-usability.ts';
import { PULL_SECRET_ROLE, SUITE_ROLE, suiteRoles, type SuiteRole } from './suite-roles.ts';

/** A field of the API the run relies on, the first minor that has it, and what a run does without. */
export interface ApiFloor {
  field: string;
  since: string;
  /** `refuse`: the run cannot start; otherwise what the run does instead (its cells say so). */
  without: string;
}

export const API_FLOORS: readonly ApiFloor[] = [
  {
    // The run's dry run of each pod (dryRun=All): beta and on by default from 1.13, stable in 1.19
    // (https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/).
    field: 'server-side dry run (dryRun=All)',
    since: '1.13',
    without: 'refuse',
  },
  {
    field: 'Service spec.internalTrafficPolicy',
    since: '1.22',
    without: 'its internal-local cells are skipped',
  },
  {
    field: 'HostProcess pods (spec.securityContext.windowsOptions.hostProcess)',
    since: '1.23',
    without: 'Windows nodes are left out (their kubelet is older still)',
  },
];

/** Problems of `version` (a floor the run cannot do without), and notes of what it does without the others. */
export function versionFindings(version: string): {
  problems: PreflightProblem[];
  notes: string[];
} {
  const below = API_FLOORS.filter((f) => belowVersion(version, f.since));
  return {
    problems: below
      .filter((f) => f.without === 'refuse')
      .map((f) => ({
        what: `Kubernetes ${version} has no ${f.field} (from ${f.since})`,
        fix: `a cluster of Kubernetes ${f.since} or later`,
      })),
    notes: below
      .filter((f) => f.without !== 'refuse')
      .map((f) => `Kubernetes ${version} has no ${f.field} (from ${f.since}): ${f.without}`),
  };
}

export interface PreflightClients {
  reviewer: AccessReviewer;
  core: Pick<CoreV1Api, 'listNode'>;
  version: Pick<VersionApi, 'getCode'>;
}

export interface PreflightOptions {
  /** The run namespace's name (it need not exist): namespaced permissions are asked there. */
  namespace: string;
  choice: NodeChoice;
  /** IMAGE_PULL_SECRET is set: its role is asked for too. */
  pullSecret?: boolean;
}

export interface PreflightFindings {
  problems: PreflightProblem[];
  /** What the run will do without (old API fields), and the nodes it leaves out. */
  notes: string[];
  leftOut: LeftOutNode[];
  version: string;
}

/** The roles a run needs, as the options say. */
export function rolesFor(options: Pick<PreflightOptions, 'pullSecret'>): SuiteRole[] {
  return options.pullSecret === true ? [SUITE_ROLE, PULL_SECRET_ROLE] : [SUITE_ROLE];
}

/** Every check, none of which creates anything. */
export async function clusterPreflight(
  clients: PreflightClients,
  options: PreflightOptions,
): Promise<PreflightFindings> {
  const roles = suiteRoles();
  const [info, nodes, ...denied] = await Promise.all([
    clients.version.getCode(),
    clients.core.listNode(),
    ...rolesFor(options).map((role) =>
      missingPermissions(clients.reviewer, role, roles[role], options.namespace),
    ),
  ]);
  const { problems, notes } = versionFindings(info.gitVersion);
  problems.push(...denied.flat());
  const { usable, leftOut, unknownNames } = chooseNodes(nodes.items, options.choice);
  if (unknownNames.length > 0) {
    problems.push({
      what: `NODES names ${unknownNames.join(', ')}, which the cluster does not have`,
      fix: 'kubectl get nodes',
    });
  }
  if (usable.length === 0) {
    problems.push({
      what: `the cluster has no node the suite can use${leftOut.length === 0 ? '' : `: ${leftOut.map(leftOutText).join('; ')}`}`,
      fix: `kubectl get nodes -L ${OS_LABEL}; NODE_SELECTOR, NODES and TOLERATIONS choose the nodes`,
    });
  }
  return {
    problems,
    notes: [...notes, ...leftOut.map((l) => `left out: ${leftOutText(l)}`)],
    leftOut,
    version: info.gitVersion,
  };
}
