/** The CNI ADD of the flannel bridge delegate for one pod, run through the node's shell. */
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { podOffset } from '../control/cluster-objects.ts';
import { POD_BRIDGE, podVeth } from './names.ts';
import { macForIp, podMtu, prefixLength } from './pod-network.ts';

export interface PodAttachment {
  netns: string;
  ip: string;
}

/** Node side: a veth into the pod, enslaved to cni0 with hairpin on (pod → own service → itself). */
export function nodeSideScript(plan: LabPlan, node: PlannedNode, pod: PodAttachment): string[] {
  const veth = podVeth(podOffset(node, pod.ip));
  const mtu = podMtu(plan);
  return [
    `link add ${veth} mtu ${mtu} type veth peer name eth0 address ${macForIp(pod.ip)} mtu ${mtu} netns ${pod.netns}`,
    `link set ${veth} master ${POD_BRIDGE}`,
    `link set ${veth} type bridge_slave hairpin on`,
    `link set ${veth} up`,
  ];
}

/** Pod side: its address out of the node's pod CIDR and a default route via cni0. */
export function podSideScript(node: PlannedNode, pod: PodAttachment): string[] {
  return [
    'link set lo up',
    'link set eth0 up',
    `addr add ${pod.ip}/${prefixLength(node.podCIDR)} dev eth0`,
    `route add default via ${node.podGateway} dev eth0`,
  ];
}

/** Wires the pod's sandbox namespace to the node; the sandbox must exist already. */
export async function attachPod(
  shell: NodeShell,
  plan: LabPlan,
  node: PlannedNode,
  pod: PodAttachment,
): Promise<void> {
  await shell.exec(['ip', '-batch', '-'], {
    input: `${nodeSideScript(plan, node, pod).join('\n')}\n`,
  });
  await shell.exec(['ip', '-n', pod.netns, '-batch', '-'], {
    input: `${podSideScript(node, pod).join('\n')}\n`,
  });
}
