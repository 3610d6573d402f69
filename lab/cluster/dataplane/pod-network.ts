/**
 * What flannel programs on a node so pods reach pods on other nodes: host-gw routes, or a
 * VXLAN device (VNI/port from the plan) with the FDB, neighbour and onlink route entries.
 */
import { nthAddress, parseCidr } from '../../net/ipv4.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import { NODE_NIC, POD_BRIDGE, vxlanDevice } from './names.ts';

/** The prefix length of a CIDR, for `ip addr add ADDRESS/LENGTH`. */
export function prefixLength(cidr: string): string {
  return cidr.split('/')[1] ?? '32';
}

/** VXLAN encapsulation costs 50 bytes; flannel shrinks the pod MTU by as much. */
export const VXLAN_OVERHEAD = 50;
const NIC_MTU = 1500;

/** MTU of cni0 and pod interfaces on a node. */
export function podMtu(plan: LabPlan): number {
  return plan.cni.backend === 'vxlan' ? NIC_MTU - VXLAN_OVERHEAD : NIC_MTU;
}

/** flannel's VTEP address on a node: the network address of the node's pod CIDR, as a /32. */
export function vtepAddress(node: PlannedNode): string {
  const cidr = parseCidr(node.podCIDR);
  if (cidr === undefined) throw new Error(`node ${node.name} has a bad podCIDR ${node.podCIDR}`);
  return nthAddress(cidr, 0);
}

/** A stable, locally administered unicast MAC for a node's VTEP (flannel publishes it). */
export function vtepMac(node: PlannedNode): string {
  const hex = (n: number): string => (n & 0xff).toString(16).padStart(2, '0');
  return `0e:6c:00:00:${hex(node.index >> 8)}:${hex(node.index)}`;
}

/** `ip -batch` lines for the inter-node pod network on `node`; `nic` is its lab-network NIC. */
export function podNetworkScript(plan: LabPlan, node: PlannedNode, nic = NODE_NIC): string[] {
  const remotes = plan.nodes.filter((n) => n.name !== node.name);
  if (plan.cni.backend === 'host-gw') {
    return remotes.map((r) => `route add ${r.podCIDR} via ${r.ip} dev ${nic}`);
  }
  const dev = vxlanDevice(plan);
  return [
    `link add ${dev} address ${vtepMac(node)} mtu ${podMtu(plan)} type vxlan id ${plan.cni.vni} ` +
      `local ${node.ip} dev ${nic} dstport ${plan.cni.port} nolearning`,
    `addr add ${vtepAddress(node)}/32 dev ${dev}`,
    `link set ${dev} up`,
    ...remotes.flatMap((r) => [
      `neigh add ${vtepAddress(r)} lladdr ${vtepMac(r)} dev ${dev} nud permanent`,
      `route add ${r.podCIDR} via ${vtepAddress(r)} dev ${dev} onlink`,
    ]),
  ];
}

/** `bridge -batch` lines: where to send frames for each remote VTEP MAC (vxlan only). */
export function vxlanFdbScript(plan: LabPlan, node: PlannedNode): string[] {
  if (plan.cni.backend !== 'vxlan') return [];
  const dev = vxlanDevice(plan);
  return plan.nodes
    .filter((n) => n.name !== node.name)
    .map((r) => `fdb append ${vtepMac(r)} dev ${dev} dst ${r.ip} self permanent`);
}

/**
 * A MAC from an IPv4 address (0a:58 + its four bytes), as the CNI bridge plugin used to set pod
 * MACs: a reused pod IP keeps its MAC, so neighbour entries other pods and the node still hold for
 * it (the DNS pod's, cni0's where the DNS pod keeps it up) stay right.
 */
export function macForIp(ip: string): string {
  const bytes = ip.split('.').map((b) => Number(b).toString(16).padStart(2, '0'));
  return ['0a', '58', ...bytes].join(':');
}

/**
 * The node's pod bridge with its gateway address. Its MAC is set, not left to the kernel: a
 * bridge without one takes its lowest port's, and changes it as pods come and go, leaving every
 * pod's neighbour entry for the gateway pointing nowhere.
 */
export function podBridgeScript(plan: LabPlan, node: PlannedNode): string[] {
  return [
    `link add ${POD_BRIDGE} address ${macForIp(node.podGateway)} mtu ${podMtu(plan)} type bridge`,
    `addr add ${node.podGateway}/${prefixLength(node.podCIDR)} dev ${POD_BRIDGE}`,
    `link set ${POD_BRIDGE} up`,
  ];
}
