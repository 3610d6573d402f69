/**
 * The libvirt networks a lab defines itself (so vagrant-libvirt only attaches to them): one
 * management network per hypervisor (DHCP, NAT) and, for a single-hypervisor lab, the lab
 * network holding the gateway and, when the harness runs the external echo, its address.
 */
import { ProviderError } from '../../errors.ts';
import {
  formatCidr,
  nthAddress,
  numberToIp,
  overlaps,
  parseCidr,
  size,
  type Cidr,
} from '../../net/ipv4.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import { labNetworkName } from './libvirt-names.ts';

/** Management networks are /24s from here up (vagrant-libvirt's own default is the first). */
const MANAGEMENT_POOL = { first: '192.168.121.0', count: 134 };

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new ProviderError(`plan holds a bad CIDR: ${text}`);
  return parsed;
}

function netmask(prefix: number): string {
  return numberToIp(2 ** 32 - size({ base: 0, prefix }));
}

/** Subnets a management network must not overlap: everything the plan routes. */
export function planSubnets(plan: LabPlan): Cidr[] {
  return [
    cidr(plan.network.cidr),
    cidr(plan.kubernetes.podCIDR),
    cidr(plan.kubernetes.serviceCIDR),
    cidr(plan.external.cidr),
  ];
}

/** The first /24 of the pool that overlaps nothing in `used`. */
export function chooseManagementCidr(used: readonly Cidr[]): Cidr {
  const first = cidr(`${MANAGEMENT_POOL.first}/24`);
  for (let i = 0; i < MANAGEMENT_POOL.count; i++) {
    const candidate: Cidr = { base: first.base + i * 256, prefix: 24 };
    if (!used.some((u) => overlaps(u, candidate))) return candidate;
  }
  throw new ProviderError(
    `no free /24 for a management network in 192.168.121.0-192.168.254.255 (taken: ${used.map(formatCidr).join(', ')})`,
    { hint: 'remove unused libvirt networks (virsh net-list --all)' },
  );
}

/** DHCP on .2-.254, NAT out through the host like vagrant-libvirt's default network. */
export function managementNetworkXml(name: string, subnet: Cidr): string {
  const at = (n: number): string => nthAddress(subnet, n);
  return [
    '<network>',
    `  <name>${name}</name>`,
    "  <forward mode='nat'/>",
    `  <ip address='${at(1)}' netmask='${netmask(subnet.prefix)}'>`,
    `    <dhcp><range start='${at(2)}' end='${at(size(subnet) - 2)}'/></dhcp>`,
    '  </ip>',
    '</network>',
    '',
  ].join('\n');
}

/**
 * The isolated lab network: the plan's gateway (first address vagrant-libvirt expects) and,
 * when the harness runs the external echo, the external address on the same bridge.
 */
export function labNetworkXml(plan: LabPlan): string {
  const lab = cidr(plan.network.cidr);
  const external = cidr(plan.external.cidr);
  return [
    '<network>',
    `  <name>${labNetworkName(plan)}</name>`,
    "  <dns enable='no'/>",
    `  <ip address='${plan.network.gateway}' netmask='${netmask(lab.prefix)}'/>`,
    ...(plan.external.managed
      ? [`  <ip address='${plan.external.address}' netmask='${netmask(external.prefix)}'/>`]
      : []),
    '</network>',
    '',
  ].join('\n');
}
