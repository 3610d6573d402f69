/**
 * Outbound NAT of pod traffic leaving the cluster. Linux nodes: flannel's ip-masq rules.
 * Windows-emulated nodes: the OutBoundNAT endpoint policy read back from the node's CNI config,
 * judged on the original destination so service traffic counts by its service IP.
 */
import type { OutboundNat } from '../../cni/windows-cni-config.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { TableLines } from './kube-proxy-rules.ts';

export const FLANNEL_CHAIN = 'FLANNEL-POSTRTG';
export const WINDOWS_CHAIN = 'HL-WIN-OUTBOUNDNAT';
export const WINDOWS_ICMP_CHAIN = 'HL-WIN-ICMP';

/** flannel `--ip-masq`: pod↔pod keeps addresses, anything else from pods is masqueraded. */
export function linuxOutboundLines(plan: LabPlan, node: PlannedNode): TableLines {
  const pods = plan.kubernetes.podCIDR;
  const tag = '-m comment --comment "flanneld masq"';
  return {
    chains: [FLANNEL_CHAIN],
    rules: [
      `-A POSTROUTING ${tag} -j ${FLANNEL_CHAIN}`,
      `-A ${FLANNEL_CHAIN} -s ${pods} -d ${pods} ${tag} -j RETURN`,
      `-A ${FLANNEL_CHAIN} -s ${pods} ! -d 224.0.0.0/4 ${tag} -j MASQUERADE`,
      `-A ${FLANNEL_CHAIN} ! -s ${pods} -d ${node.podCIDR} ${tag} -j RETURN`,
      `-A ${FLANNEL_CHAIN} ! -s ${pods} -d ${pods} ${tag} -j MASQUERADE`,
    ],
  };
}

/** HNS OutBoundNAT: SNAT to the node IP unless the original destination is an exception. */
export function windowsOutboundLines(node: PlannedNode, policy: OutboundNat): TableLines {
  if (!policy.enabled) return { chains: [], rules: [] };
  const tag = '-m comment --comment "windows OutBoundNAT (emulated)"';
  return {
    chains: [WINDOWS_CHAIN],
    rules: [
      `-A POSTROUTING -s ${node.podCIDR} ${tag} -j ${WINDOWS_CHAIN}`,
      ...policy.exceptions.map(
        (cidr) => `-A ${WINDOWS_CHAIN} -m conntrack --ctorigdst ${cidr} -j RETURN`,
      ),
      `-A ${WINDOWS_CHAIN} ${tag} -j SNAT --to-source ${node.ip}`,
    ],
  };
}

/**
 * Windows' data plane cannot translate ICMP (a documented limitation): an echo its OutBoundNAT
 * would SNAT never gets its reply back. Emulated as the echo request dropped, so it ends the
 * same way (a timeout); to exception-list destinations ICMP is not translated and works.
 */
export function windowsIcmpLines(node: PlannedNode, policy: OutboundNat): TableLines {
  if (!policy.enabled) return { chains: [], rules: [] };
  const tag = '-m comment --comment "windows: NATed ICMP gets no reply (emulated)"';
  return {
    chains: [WINDOWS_ICMP_CHAIN],
    rules: [
      `-A FORWARD -s ${node.podCIDR} -p icmp --icmp-type echo-request -j ${WINDOWS_ICMP_CHAIN}`,
      ...policy.exceptions.map((cidr) => `-A ${WINDOWS_ICMP_CHAIN} -d ${cidr} -j RETURN`),
      `-A ${WINDOWS_ICMP_CHAIN} ${tag} -j DROP`,
    ],
  };
}
