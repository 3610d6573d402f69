/**
 * nftables tables that defeat kube-proxy's and flannel's rules on a node. The emulated kube-proxy
 * (like the real one) rewrites its iptables tables on every sync, so a deleted rule would come
 * back as soon as the suite creates its Services; a table of our own survives every sync.
 */
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';

export type NftFamily = 'ip' | 'netdev' | 'inet';

/** Our table for a fault: `hlfault_<id>`; nft names allow `_`, not `-`. */
export function faultTable(faultId: string): string {
  return `hlfault_${faultId.replace(/-/g, '_')}`;
}

/** Creating, deleting and creating again makes the load idempotent (nft has no `destroy` before 1.0.8). */
function table(name: string, chains: string[], family: NftFamily = 'ip'): string {
  return [
    `table ${family} ${name} {}`,
    `delete table ${family} ${name}`,
    `table ${family} ${name} {`,
    ...chains.map((c) => `  ${c}`),
    '}',
    '',
  ].join('\n');
}

function chain(name: string, hook: string, priority: string, rules: string[]): string {
  const body = rules.map((r) => `    ${r}`).join('\n');
  return `chain ${name} {\n    type ${hook.startsWith('nat:') ? 'nat' : 'filter'} hook ${hook.replace('nat:', '')} priority ${priority}; policy accept;\n${body}\n  }`;
}

/**
 * kube-proxy's NodePort rules gone: untracked packets skip NAT and reach no listener (refused),
 * arriving or sent by the node itself to its own address.
 */
export function nodePortsRemoved(plan: LabPlan, node: PlannedNode, name: string): string {
  const { min, max } = plan.kubernetes.nodePortRange;
  const ports = `meta l4proto { tcp, udp } th dport ${min}-${max} notrack comment "NodePort rules removed"`;
  return table(name, [
    chain('prerouting', 'prerouting', 'raw', [`fib daddr type local ${ports}`]),
    chain('output', 'output', 'raw', [`ip daddr ${node.ip} ${ports}`]),
  ]);
}

/** kube-proxy down on the node: nothing sent to a ClusterIP from here is DNATed (it is routed away). */
export function clusterIpsRemoved(plan: LabPlan, name: string): string {
  const rule = `ip daddr ${plan.kubernetes.serviceCIDR} notrack comment "ClusterIP rules removed"`;
  return table(name, [
    chain('prerouting', 'prerouting', 'raw', [rule]),
    chain('output', 'output', 'raw', [rule]),
  ]);
}

/** flannel's ip-masq off: an identity SNAT claims the connection before MASQUERADE can. */
export function masqueradeOff(plan: LabPlan, node: PlannedNode, name: string): string {
  return table(name, [
    chain('postrouting', 'nat:postrouting', 'srcnat - 10', [
      `ip saddr ${node.podCIDR} ip daddr != ${plan.kubernetes.podCIDR} snat to ip saddr comment "masquerade off"`,
    ]),
  ]);
}

/**
 * Hairpin traffic is not masqueraded (kube-proxy's hairpin SNAT, or the CNI's hairpin mode, gone):
 * an identity SNAT claims Service connections between pods of `podCidr` before MASQUERADE can, so
 * a pod reaching itself through a Service sees its own address as the source and answers itself
 * directly; the reply never comes back through the Service. Other Service traffic between the
 * node's pods was never masqueraded, so it is unchanged.
 */
export function hairpinMasqueradeMissing(podCidr: string, name: string): string {
  return table(name, [
    chain('postrouting', 'nat:postrouting', 'srcnat - 10', [
      `ct status dnat ip saddr ${podCidr} ip daddr ${podCidr} snat to ip saddr comment "hairpin masquerade missing"`,
    ]),
  ]);
}

/** Service traffic (DNATed: ClusterIP and NodePort) to these pod CIDRs is dropped; direct pod traffic and replies to them flow. */
export function endpointsBlackholed(podCidrs: readonly string[], name: string): string {
  const rule = `ct direction original ct status dnat ip daddr { ${podCidrs.join(', ')} } drop comment "Service endpoints blackholed"`;
  return table(name, [
    chain('forward', 'forward', 'filter', [rule]),
    chain('output', 'output', 'filter', [rule]),
  ]);
}

/** New connections from `from` (a pod CIDR) to `to` are dropped where they are forwarded; replies and the other direction flow. */
export function newConnectionsDropped(from: string, to: readonly string[], name: string): string {
  const rule = `ip saddr ${from} ip daddr { ${to.join(', ')} } ct state new drop comment "pods cut from the other OS"`;
  return table(name, [chain('forward', 'forward', 'filter', [rule])]);
}

/**
 * UDP to the pods of `podCidr` is dropped where it is forwarded, except DNS (port 53 either way).
 * Two rules on purpose: nft 1.0.6 merges `udp sport != 53 udp dport != 53` into one 4-byte
 * compare that is true unless both ports are 53, and then drops the DNS answers too.
 */
export function udpToPodsDropped(podCidr: string, name: string): string {
  return table(name, [
    chain('forward', 'forward', 'filter', [
      'udp sport 53 accept comment "DNS answers pass"',
      `ip daddr ${podCidr} udp dport != 53 drop comment "UDP to pods dropped"`,
    ]),
  ]);
}

/** ICMP echo requests to the pods of `podCidr` are dropped where they are forwarded; TCP and UDP pass. */
export function icmpToPodsDropped(podCidr: string, name: string): string {
  return table(name, [
    chain('forward', 'forward', 'filter', [
      `ip daddr ${podCidr} icmp type echo-request drop comment "ICMP to pods dropped"`,
    ]),
  ]);
}

/**
 * DNS over TCP from the pods of `podCidr` is dropped as it enters the node, before kube-proxy's
 * DNAT (so whichever DNS endpoint it was bound for); DNS over UDP still passes.
 */
export function dnsOverTcpDropped(podCidr: string, name: string): string {
  return table(name, [
    chain('prerouting', 'prerouting', '-150', [
      `ip saddr ${podCidr} tcp dport 53 drop comment "DNS over TCP dropped"`,
    ]),
  ]);
}

/**
 * A link MTU enforced on what arrives: veth hands GSO packets of any size through, where a real
 * NIC or switch would drop every frame above the MTU, so large packets are dropped at ingress.
 */
export function ingressMtu(device: string, mtu: number, name: string): string {
  return table(
    name,
    [
      `chain ingress {\n    type filter hook ingress device "${device}" priority 0; policy accept;\n    meta length > ${mtu} drop comment "link MTU ${mtu}"\n  }`,
    ],
    'netdev',
  );
}

/**
 * A node drops its own pods' connections to its own address's NodePorts, before kube-proxy's
 * DNAT; other nodes' pods and the world outside still reach them.
 */
export function ownNodePortsFromPodsDropped(
  plan: LabPlan,
  node: PlannedNode,
  name: string,
): string {
  const { min, max } = plan.kubernetes.nodePortRange;
  return table(name, [
    chain('prerouting', 'prerouting', '-150', [
      `ip saddr ${node.podCIDR} ip daddr ${node.ip} meta l4proto { tcp, udp } th dport ${min}-${max} drop comment "own NodePorts dropped for its pods"`,
    ]),
  ]);
}

/**
 * A node drops its pods' connections to the API server's endpoint (`address`:`port`, a node's own
 * address), after kube-proxy's DNAT of the kubernetes Service and before any masquerade.
 */
export function apiServerFromPodsDropped(
  podCidr: string,
  address: string,
  port: number,
  name: string,
): string {
  const rule = `ip saddr ${podCidr} ip daddr ${address} tcp dport ${port} drop comment "API server blocked for pods"`;
  return table(name, [
    chain('forward', 'forward', 'filter', [rule]),
    chain('input', 'input', 'filter', [rule]),
  ]);
}

/**
 * One packet in `every` leaving `device` dropped at random (nftables `numgen random`; this kernel
 * has no netem): the node's own packets and those it forwards, VXLAN-encapsulated pod traffic too.
 */
export function egressLossy(device: string, every: number, name: string): string {
  return table(
    name,
    [
      chain('postrouting', 'postrouting', 'filter', [
        `oifname "${device}" numgen random mod ${every} 0 counter drop comment "1 in ${every} lost"`,
      ]),
    ],
    'inet',
  );
}
