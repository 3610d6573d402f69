/**
 * The ClusterRoles the suite ships (manifests/rbac/hybrid-lab-suite.yaml): the one place that
 * says what a run may do on a cluster it did not build. The preflight asks for each of their
 * rules; a test keeps them equal to the API calls the code makes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** Where the roles are, from the repository's root (as a user applies them). */
export const SUITE_ROLES_PATH = 'manifests/rbac/hybrid-lab-suite.yaml';
export const SUITE_ROLES_FILE = fileURLToPath(
  new URL(`../../../${SUITE_ROLES_PATH}`, import.meta.url),
);

/** The roles: what every run needs, what path evidence adds, what IMAGE_PULL_SECRET adds. */
export const SUITE_ROLE = 'hybrid-lab-suite';
export const EVIDENCE_ROLE = 'hybrid-lab-evidence';
export const PULL_SECRET_ROLE = 'hybrid-lab-pull-secret';
export type SuiteRole = typeof SUITE_ROLE | typeof EVIDENCE_ROLE | typeof PULL_SECRET_ROLE;

/** One verb on one resource (`pods/exec`: a subresource), as a rule grants it. */
export interface Permission {
  /** '' for the core group. */
  group: string;
  resource: string;
  verb: string;
}

/** `create pods/exec`, `list nodes`, `get deployments.apps`. */
export function permissionText(p: Permission): string {
  return `${p.verb} ${p.resource}${p.group === '' ? '' : `.${p.group}`}`;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
}

/** Each role's rules, one permission per verb and resource. */
export function suiteRoles(file = SUITE_ROLES_FILE): Record<SuiteRole, Permission[]> {
  const roles = new Map<string, Permission[]>();
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const role = doc.toJS() as { kind?: string; metadata?: { name?: string }; rules?: Rule[] };
    if (role.kind !== 'ClusterRole' || role.metadata?.name === undefined) continue;
    roles.set(
      role.metadata.name,
      (role.rules ?? []).flatMap((rule) =>
        (rule.apiGroups ?? []).flatMap((group) =>
          (rule.resources ?? []).flatMap((resource) =>
            (rule.verbs ?? []).map((verb) => ({ group, resource, verb })),
          ),
        ),
      ),
    );
  }
  const role = (name: SuiteRole): Permission[] => {
    const found = roles.get(name);
    if (found === undefined) throw new Error(`${file} has no ClusterRole ${name}`);
    return found;
  };
  return {
    [SUITE_ROLE]: role(SUITE_ROLE),
    [EVIDENCE_ROLE]: role(EVIDENCE_ROLE),
    [PULL_SECRET_ROLE]: role(PULL_SECRET_ROLE),
  };
}
