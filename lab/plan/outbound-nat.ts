/**
 * What Windows pods reach without outbound NAT: the ExceptionList of the OutBoundNAT policy in
 * every Windows node's CNI config (lab/cni/windows-cni-config.ts renders it from here), and what
 * the planner keeps the external target out of, so outbound-NAT probes test NAT.
 */
import type { CniBackend, LabPlan } from './lab-plan.ts';

export interface NatNetworks {
  podCIDR: string;
  serviceCIDR: string;
  /** The lab network of the node addresses. */
  labCIDR: string;
  backend: CniBackend;
}

/** The exceptions, in ExceptionList order: l2bridge (host-gw) pods also reach the node network un-NATed. */
export function outboundNatExceptions(net: NatNetworks): string[] {
  const { podCIDR, serviceCIDR, labCIDR, backend } = net;
  return backend === 'host-gw' ? [podCIDR, serviceCIDR, labCIDR] : [podCIDR, serviceCIDR];
}

/**
 * Where outbound-NAT probes go, as every node routes it over its lab NIC (so traffic NATed to
 * the node leaves with the node's lab address): the external CIDR, else the given target.
 */
export function externalRoute(plan: LabPlan): string {
  return plan.external.managed ? plan.external.cidr : `${plan.external.address}/32`;
}
