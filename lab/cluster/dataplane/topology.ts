/**
 * The lab's wiring: a switch namespace bridging the lab network, an outside namespace (the
 * hypervisor host and the external world), and one namespace per node with cni0.
 * Script builders are pure; the apply functions spawn few processes (`ip -batch`).
 */
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import {
  NODE_NIC,
  OUTSIDE_PORT,
  SWITCH_BRIDGE,
  nodeNamespace,
  outsideNamespace,
  switchNamespace,
  switchPort,
} from './names.ts';
import { podBridgeScript, podNetworkScript, prefixLength, vxlanFdbScript } from './pod-network.ts';

/** Every namespace `up` creates before any pod exists, in creation order. */
export function labNamespaceNames(plan: LabPlan): string[] {
  return [
    switchNamespace(plan.prefix),
    outsideNamespace(plan.prefix),
    ...plan.nodes.map((n) => nodeNamespace(plan.prefix, n.name)),
  ];
}

/** The switch: one bridge, a veth per node and one for outside, peers landing as their eth0. */
export function switchScript(plan: LabPlan): string[] {
  const attach = (port: string, peerNs: string, mac?: string): string[] => [
    `link add ${port} type veth peer name ${NODE_NIC}${mac === undefined ? '' : ` address ${mac}`} netns ${peerNs}`,
    `link set ${port} master ${SWITCH_BRIDGE} up`,
  ];
  return [
    'link set lo up',
    `link add ${SWITCH_BRIDGE} type bridge`,
    `link set ${SWITCH_BRIDGE} up`,
    ...attach(OUTSIDE_PORT, outsideNamespace(plan.prefix)),
    ...plan.nodes.flatMap((n) =>
      attach(switchPort(n.index), nodeNamespace(plan.prefix, n.name), n.mac),
    ),
  ];
}

/** Outside holds the lab gateway and the external address (on lo: no dummy module needed). */
export function outsideScript(plan: LabPlan): string[] {
  return [
    'link set lo up',
    `addr add ${plan.external.address}/32 dev lo`,
    `link set ${NODE_NIC} up`,
    `addr add ${plan.network.gateway}/${prefixLength(plan.network.cidr)} dev ${NODE_NIC}`,
  ];
}

/** Forwarding on, no reverse-path filter (SNATed replies cross the tunnel), bridged pod traffic through iptables (kube-proxy needs it). */
export function nodeSysctls(nic: string): string[] {
  return [
    'net.ipv4.ip_forward=1',
    'net.ipv4.conf.all.rp_filter=0',
    'net.ipv4.conf.default.rp_filter=0',
    `net.ipv4.conf.${nic}.rp_filter=0`,
    'net.bridge.bridge-nf-call-iptables=1',
  ];
}

export const NODE_SYSCTLS = nodeSysctls(NODE_NIC);

/** A node's own network: lab NIC, default route to the gateway, cni0, and the pod network. */
export function nodeScript(plan: LabPlan, node: PlannedNode): string[] {
  return [
    'link set lo up',
    `link set ${NODE_NIC} up`,
    `addr add ${node.ip}/${prefixLength(plan.network.cidr)} dev ${NODE_NIC}`,
    `route add default via ${plan.network.gateway} dev ${NODE_NIC}`,
    ...podBridgeScript(plan, node),
    ...podNetworkScript(plan, node),
  ];
}

function batch(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** Creates all lab namespaces with one process. */
export async function createNamespaces(runner: CommandRunner, names: string[]): Promise<void> {
  await runner.run('ip', ['-batch', '-'], { input: batch(names.map((n) => `netns add ${n}`)) });
}

/** Builds the switch (and with it every node's and outside's eth0). */
export async function buildSwitch(runner: CommandRunner, plan: LabPlan): Promise<void> {
  await runner.run('ip', ['-n', switchNamespace(plan.prefix), '-batch', '-'], {
    input: batch(switchScript(plan)),
  });
}

export async function buildOutside(runner: CommandRunner, plan: LabPlan): Promise<void> {
  await runner.run('ip', ['-n', outsideNamespace(plan.prefix), '-batch', '-'], {
    input: batch(outsideScript(plan)),
  });
}

/** Configures one node through its shell, as a provisioner would on a VM. */
export async function buildNode(shell: NodeShell, plan: LabPlan, node: PlannedNode): Promise<void> {
  await shell.exec(['sysctl', '-q', '-w', ...NODE_SYSCTLS]);
  await shell.exec(['ip', '-batch', '-'], { input: batch(nodeScript(plan, node)) });
  const fdb = vxlanFdbScript(plan, node);
  if (fdb.length > 0) await shell.exec(['bridge', '-batch', '-'], { input: batch(fdb) });
}
