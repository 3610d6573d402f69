/** Whether a fault applies to a lab, and which nodes it acts on (`--node` or the scope's default). */
import type { LabPlan, NodeOs, PlannedNode } from '../plan/lab-plan.ts';
import { FaultError } from './fault-error.ts';
import type { FaultDefinition } from './fault-definition.ts';

/** What the lab offers beyond its plan. */
export interface LabCapabilities {
  /** True when the lab exposes the emulated cluster API (netns labs). */
  cluster: boolean;
}

/** Why the fault cannot be applied to this lab, or undefined when it can. */
export function notApplicable(
  fault: FaultDefinition,
  plan: LabPlan,
  capabilities: LabCapabilities,
): string | undefined {
  const { requires } = fault;
  if (!plan.emulated)
    return `faults act on emulated dataplanes; lab ${plan.name} runs provider ${plan.provider}`;
  if (requires.backend !== undefined && plan.cni.backend !== requires.backend)
    return `needs flannel ${requires.backend}; lab ${plan.name} runs ${plan.cni.backend}`;
  const missing = (requires.os ?? []).filter((os) => !plan.nodes.some((n) => n.os === os));
  if (missing.length > 0) return `needs ${missing.join(' and ')} nodes; lab ${plan.name} has none`;
  if (requires.cluster === true && !capabilities.cluster)
    return `needs the emulated cluster API, which provider ${plan.provider} does not offer`;
  return undefined;
}

function workersFirst(nodes: readonly PlannedNode[]): PlannedNode[] {
  return [...nodes.filter((n) => n.role === 'worker'), ...nodes.filter((n) => n.role !== 'worker')];
}

function ofOs(plan: LabPlan, os: NodeOs | undefined): PlannedNode[] {
  return plan.nodes.filter((n) => os === undefined || n.os === os);
}

function named(plan: LabPlan, fault: FaultDefinition, node: string, os?: NodeOs): PlannedNode {
  const found = plan.nodes.find((n) => n.name === node);
  if (found === undefined) {
    throw new FaultError(`--node ${node}: lab ${plan.name} has no such node`, {
      hint: `nodes: ${plan.nodes.map((n) => n.name).join(', ')}`,
    });
  }
  if (os !== undefined && found.os !== os) {
    throw new FaultError(
      `--node ${node}: fault ${fault.id} acts on ${os} nodes; ${node} is ${found.os}`,
      {
        hint: `${os} nodes: ${ofOs(plan, os)
          .map((n) => n.name)
          .join(', ')}`,
      },
    );
  }
  return found;
}

/** The nodes the fault acts on; a bad `--node` throws before anything changes. */
export function resolveTargets(
  fault: FaultDefinition,
  plan: LabPlan,
  node?: string,
): PlannedNode[] {
  const { scope } = fault;
  switch (scope.kind) {
    case 'lab':
      if (node !== undefined)
        throw new FaultError(`fault ${fault.id} acts on the whole lab; it takes no --node`);
      return [];
    case 'nodes':
      return node === undefined ? ofOs(plan, scope.os) : [named(plan, fault, node, scope.os)];
    case 'node': {
      if (node !== undefined) return [named(plan, fault, node, scope.os)];
      const preferred = workersFirst(ofOs(plan, scope.prefer ?? scope.os));
      const fallback = workersFirst(ofOs(plan, scope.os));
      const chosen = preferred[0] ?? fallback[0];
      if (chosen === undefined)
        throw new FaultError(`fault ${fault.id}: lab ${plan.name} has no node to act on`);
      return [chosen];
    }
  }
}

/** Which nodes the self-test runs a node fault on (`npm run selftest -- --nodes`). */
export const SELFTEST_NODE_CHOICES = ['ends', 'all', 'alternate'] as const;
export type SelftestNodeChoice = (typeof SELFTEST_NODE_CHOICES)[number];

/**
 * The `--node` choices the self-test runs a fault with: none for lab-wide faults; otherwise, for
 * each OS the fault may act on (workers first): its first and last node (`ends`), every node
 * (`all`), or one node, the first for the catalogue's even-numbered faults and the last for its
 * odd-numbered ones (`alternate`, `index` being the fault's place in the catalogue).
 */
export function selftestNodes(
  fault: FaultDefinition,
  plan: LabPlan,
  choice: SelftestNodeChoice,
  index = 0,
): (string | undefined)[] {
  const { scope } = fault;
  if (scope.kind === 'lab') return [undefined];
  const oses: (NodeOs | undefined)[] = scope.os === undefined ? ['windows', 'linux'] : [scope.os];
  return oses.flatMap((os) => {
    const nodes = workersFirst(ofOs(plan, os)).map((n) => n.name);
    const picked =
      choice === 'all'
        ? nodes
        : choice === 'ends'
          ? [nodes[0], nodes.at(-1)]
          : [index % 2 === 0 ? nodes[0] : nodes.at(-1)];
    return [...new Set(picked.filter((n) => n !== undefined))];
  });
}
