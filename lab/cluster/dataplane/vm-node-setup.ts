/**
 * Turns a Linux VM into a node of the emulated dataplane, only through its NodeShell: the same
 * wiring a netns node gets (cni0, flannel vxlan/host-gw) on the VM's lab NIC. The VM keeps its
 * management NIC and default route for Vagrant.
 */
import { ProviderError } from '../../errors.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { podBridgeScript, podNetworkScript, prefixLength, vxlanFdbScript } from './pod-network.ts';
import { nodeSysctls } from './topology.ts';
import { externalRoute } from '../../plan/outbound-nat.ts';

/** The interface carrying `mac` in `ip -o link` output. */
export function nicWithMac(ipLink: string, mac: string): string | undefined {
  for (const line of ipLink.split('\n')) {
    const match = /^\d+:\s+([^:@\s]+)[:@].*link\/ether\s+([0-9a-f:]{17})/i.exec(line);
    if (match?.[2]?.toLowerCase() === mac.toLowerCase()) return match[1];
  }
  return undefined;
}

/** `ip -batch` lines for a VM node whose lab NIC is `nic` (its address may already be set). */
export function vmNodeScript(plan: LabPlan, node: PlannedNode, nic: string): string[] {
  return [
    `link set ${nic} up`,
    `addr replace ${node.ip}/${prefixLength(plan.network.cidr)} dev ${nic}`,
    `route replace ${externalRoute(plan)} via ${plan.network.gateway} dev ${nic}`,
    ...podBridgeScript(plan, node),
    ...podNetworkScript(plan, node, nic),
  ];
}

/** Wires the node as buildNode does a netns node (its pod programs are installed first: installNodePrograms). */
export async function buildVmNode(
  shell: NodeShell,
  plan: LabPlan,
  node: PlannedNode,
): Promise<void> {
  await shell.exec(['modprobe', '-a', 'br_netfilter', 'vxlan']);
  const links = await shell.exec(['ip', '-o', 'link']);
  const nic = nicWithMac(links.stdout, node.mac);
  if (nic === undefined) {
    throw new ProviderError(`node ${node.name}: no interface with the lab MAC ${node.mac}`, {
      hint: 'the VM was not created from this plan; bring the lab down and up again',
    });
  }
  await shell.exec(['sysctl', '-q', '-w', ...nodeSysctls(nic)]);
  await shell.exec(['ip', '-batch', '-'], {
    input: `${vmNodeScript(plan, node, nic).join('\n')}\n`,
  });
  const fdb = vxlanFdbScript(plan, node);
  if (fdb.length > 0) await shell.exec(['bridge', '-batch', '-'], { input: `${fdb.join('\n')}\n` });
}
