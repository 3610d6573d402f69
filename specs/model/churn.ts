/**
 * Endpoint churn: each OS with nodes gets a Service of its own (`churn-<os>`), backed by one `c`
 * pod per node of that OS, so the other rows keep their endpoints while this one changes. The
 * steps (CHURN_STEPS) run in order; after each, every node's pods must reach exactly the backends
 * liveBackends() names, and no deleted one, within a bounded time.
 */
import type { ChurnStep, Os } from '../../lab/contracts/cells.ts';
import type { SuiteNode } from './lab-driver.ts';
import { dnsLabel } from './workload-names.ts';

/** The `app` label of churn pods: the suite's other Services (app netexec) leave them out. */
export const CHURN_APP = 'churn';
/** The slot of the churn Service's pods. */
export const CHURN_SLOT = 'c';
/** The slot of the pod that replaces the deleted backend (a new pod, a new name). */
export const CHURN_REPLACEMENT_SLOT = 'd';

export function churnServiceName(os: Os): string {
  return `churn-${os}`;
}

export function churnPod(node: string, slot = CHURN_SLOT): string {
  return dnsLabel(`netexec-${node}-${slot}`);
}

/** What a churn Service is made of: its backends, and which one the churn replaces. */
export interface ChurnPlan {
  os: Os;
  /** Every backend at the start and after `scaled-back`, one per node of `os`, in node order. */
  backends: { node: string; name: string }[];
  /** The backend `backend-deleted` deletes: the last node's. */
  deleted: string;
  /** The new pod `backend-recreated` creates on that node. */
  replacement: { node: string; name: string };
}

/** The churn plan of `os`'s Service on `nodes`; undefined when the lab has no node of `os`. */
export function churnPlan(nodes: readonly SuiteNode[], os: Os): ChurnPlan | undefined {
  const of = nodes.filter((n) => n.os === os).map((n) => n.name);
  const last = of.at(-1);
  if (last === undefined) return undefined;
  return {
    os,
    backends: of.map((node) => ({ node, name: churnPod(node) })),
    deleted: churnPod(last),
    replacement: { node: last, name: churnPod(last, CHURN_REPLACEMENT_SLOT) },
  };
}

/** The backends that must answer after `step` (none after `scaled-to-zero`). */
export function liveBackends(plan: ChurnPlan, step: ChurnStep): string[] {
  const others = plan.backends.map((b) => b.name).filter((b) => b !== plan.deleted);
  switch (step) {
    case 'backend-deleted':
      return others;
    case 'backend-recreated':
      return [...others, plan.replacement.name];
    case 'scaled-to-zero':
      return [];
    case 'scaled-back':
      return plan.backends.map((b) => b.name);
  }
}

/** The nodes of the backends live after `step`, in node order (a Service cell's target nodes). */
export function liveBackendNodes(plan: ChurnPlan, step: ChurnStep): string[] {
  const live = liveBackends(plan, step);
  const all = [...plan.backends, plan.replacement];
  const nodes = all.filter((b) => live.includes(b.name)).map((b) => b.node);
  return plan.backends.map((b) => b.node).filter((node) => nodes.includes(node));
}

/** What a driver does to the cluster for `step`: pods to delete, then pods to create. */
export function churnChange(
  plan: ChurnPlan,
  step: ChurnStep,
): { remove: string[]; create: { node: string; name: string }[] } {
  switch (step) {
    case 'backend-deleted':
      return { remove: [plan.deleted], create: [] };
    case 'backend-recreated':
      return { remove: [], create: [plan.replacement] };
    case 'scaled-to-zero':
      return { remove: liveBackends(plan, 'backend-recreated'), create: [] };
    case 'scaled-back':
      return { remove: [], create: [...plan.backends] };
  }
}
