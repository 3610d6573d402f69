/** The nodes a catalogue entry acts on, as its actions and impacts name them. */
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { FaultError } from './fault-error.ts';

export const names = (nodes: readonly PlannedNode[]): string[] => nodes.map((n) => n.name);

/** Every node of the plan but `node`. */
export const others = (plan: LabPlan, node: PlannedNode): PlannedNode[] =>
  plan.nodes.filter((n) => n.name !== node.name);

/** The one node a node-scoped fault acts on. */
export const only = <T>(list: readonly T[]): T => {
  const [first] = list;
  if (first === undefined || list.length !== 1) throw new FaultError('expected exactly one node');
  return first;
};
