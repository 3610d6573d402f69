/** One node's whole iptables ruleset (kube-proxy + outbound NAT), applied atomically per table. */
import { createHash } from 'node:crypto';
import type { OutboundNat } from '../../cni/windows-cni-config.ts';
import { ProviderError } from '../../errors.ts';
import { isIpv4, parseCidr } from '../../net/ipv4.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { kubeProxyLines, type ServiceEndpoints, type TableLines } from './kube-proxy-rules.ts';
import { linuxOutboundLines, windowsIcmpLines, windowsOutboundLines } from './outbound-nat.ts';

const BUILTIN = {
  nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'],
  filter: ['INPUT', 'FORWARD', 'OUTPUT'],
} as const;

function table(name: keyof typeof BUILTIN, lines: TableLines): string[] {
  return [
    `*${name}`,
    ...BUILTIN[name].map((chain) => `:${chain} ACCEPT [0:0]`),
    ...lines.chains.map((chain) => `:${chain} - [0:0]`),
    ...lines.rules,
    'COMMIT',
  ];
}

function checkExceptions(node: PlannedNode, policy: OutboundNat): void {
  const bad = policy.exceptions.filter((e) => !isIpv4(e) && parseCidr(e) === undefined);
  if (bad.length > 0) {
    throw new ProviderError(
      `node ${node.name}: OutBoundNAT ExceptionList has entries that are not IPv4 CIDRs: ${bad.join(', ')}`,
      {
        hint: 'fix the Windows CNI config (setWindowsCniConfig)',
      },
    );
  }
}

/**
 * iptables-restore input for `node`. `windowsPolicy` is the OutBoundNAT read back from the
 * node's CNI config; it must be given for Windows nodes and is ignored for Linux ones.
 */
export function renderNodeRules(
  plan: LabPlan,
  node: PlannedNode,
  services: ServiceEndpoints[],
  windowsPolicy?: OutboundNat,
): string {
  const proxy = kubeProxyLines(plan, node, services);
  let outbound: TableLines;
  let icmp: TableLines = { chains: [], rules: [] };
  if (node.os === 'windows') {
    if (windowsPolicy === undefined)
      throw new ProviderError(`node ${node.name}: no Windows CNI config to read OutBoundNAT from`);
    checkExceptions(node, windowsPolicy);
    outbound = windowsOutboundLines(node, windowsPolicy);
    icmp = windowsIcmpLines(node, windowsPolicy);
  } else {
    outbound = linuxOutboundLines(plan, node);
  }
  // kube-proxy's POSTROUTING jump stays first: service SNAT wins over outbound NAT.
  const nat: TableLines = {
    chains: [...proxy.nat.chains, ...outbound.chains],
    rules: [...proxy.nat.rules, ...outbound.rules],
  };
  const filter: TableLines = {
    chains: [...proxy.filter.chains, ...icmp.chains],
    rules: [...proxy.filter.rules, ...icmp.rules],
  };
  return `${[...table('nat', nat), ...table('filter', filter)].join('\n')}\n`;
}

export function rulesHash(rules: string): string {
  return createHash('sha256').update(rules).digest('hex').slice(0, 16);
}

/** Replaces the node's nat and filter tables in one transaction. */
export async function applyNodeRules(shell: NodeShell, rules: string): Promise<void> {
  await shell.exec(['iptables-restore', '-w', '5'], { input: rules });
}
