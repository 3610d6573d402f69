/** Names of everything a netns lab creates; every namespace starts with the plan's prefix. */
import type { LabPlan } from '../../plan/lab-plan.ts';

/** Prefix of every hybrid-lab resource: what `lab reap` without a lab id removes. */
export const ALL_LABS_PREFIX = 'hl-';

/** Interface names inside a node namespace (names are per namespace, so fixed ones are fine). */
export const NODE_NIC = 'eth0';
export const POD_BRIDGE = 'cni0';
export const SWITCH_BRIDGE = 'br0';
export const OUTSIDE_PORT = 'out0';

export function vxlanDevice(plan: LabPlan): string {
  return `flannel.${plan.cni.vni}`;
}

/** The switch-side end of a node's lab NIC. */
export function switchPort(nodeIndex: number): string {
  return `n${nodeIndex}`;
}

/** Host-side veth of a pod, unique on its node because the offset in the node's pod CIDR is. */
export function podVeth(offsetInNodeCidr: number): string {
  return `veth${offsetInNodeCidr.toString(16)}`;
}

export function switchNamespace(prefix: string): string {
  return `${prefix}sw`;
}

export function outsideNamespace(prefix: string): string {
  return `${prefix}out`;
}

export function nodeNamespace(prefix: string, node: string): string {
  return `${prefix}node_${node}`;
}

/** `_` never occurs in Kubernetes names, so namespace and pod name cannot run together. */
export function podNamespace(prefix: string, namespace: string, pod: string): string {
  return `${prefix}pod_${namespace}_${pod}`;
}

/** The prefix `lab reap <id>` looks for: the planner stamps `<id>-` on every resource. */
export function prefixOfLab(labId: string): string {
  return labId.endsWith('-') ? labId : `${labId}-`;
}

/**
 * True when `name` was made by the lab with this prefix; `hl-a-` must not claim `hl-a-b-sw`,
 * and our suffixes (`sw`, `out`, `node_…`, `pod_…`) cannot start another lab's `<id>-`.
 */
export function ownedBy(prefix: string, name: string): boolean {
  if (prefix === ALL_LABS_PREFIX) return name.startsWith(ALL_LABS_PREFIX);
  if (!name.startsWith(prefix)) return false;
  return /^(sw|out|node_.+|pod_.+)$/.test(name.slice(prefix.length));
}

/** The lab id a namespace name carries, or undefined when it is not a hybrid-lab one. */
export function labIdOf(name: string): string | undefined {
  return /^(hl-[^_]+?)-(sw|out|node_.+|pod_.+)$/.exec(name)?.[1];
}
