/**
 * Gives each Linux VM its plan address on the lab NIC (found by the plan's MAC): now with `ip`,
 * and for every later boot with a systemd-networkd file. One ssh round trip instead of Vagrant's
 * guest-detection dialogue, which costs a minute per VM under QEMU emulation.
 */
import { ProviderError } from '../../errors.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { nicWithMac } from '../../cluster/dataplane/vm-node-setup.ts';

export const NETWORKD_FILE = '/etc/systemd/network/50-hybrid-lab.network';

/** The networkd unit that gives the lab NIC its static address. */
export function labNicNetworkd(plan: LabPlan, node: PlannedNode): string {
  return [
    '# hybrid-lab: the lab network NIC, with its address from the plan',
    '[Match]',
    `MACAddress=${node.mac}`,
    '[Network]',
    `Address=${node.ip}/${plan.network.cidr.split('/')[1] ?? '24'}`,
    'LinkLocalAddressing=no',
    'IPv6AcceptRA=no',
    '',
  ].join('\n');
}

const APPLY = 'cat >"$1" && ip link set "$2" up && ip addr replace "$3" dev "$2"';

export async function configureLabNic(
  shell: NodeShell,
  plan: LabPlan,
  node: PlannedNode,
): Promise<string> {
  const nic = nicWithMac((await shell.exec(['ip', '-o', 'link'])).stdout, node.mac);
  if (nic === undefined) {
    throw new ProviderError(`VM ${node.name} has no NIC with the lab MAC ${node.mac}`, {
      hint: 'the domain was not defined from this plan; bring the lab down and up again',
    });
  }
  const address = `${node.ip}/${plan.network.cidr.split('/')[1] ?? '24'}`;
  await shell.exec(['sh', '-c', APPLY, 'sh', NETWORKD_FILE, nic, address], {
    input: labNicNetworkd(plan, node),
  });
  return nic;
}
