/**
 * Disruptions of a kubeadm netns lab's node machines, done as to a machine: the CNI state the
 * bridge plugin has no agent for (routes, masquerade) removed and programmed again, containerd and
 * the kubelet restarted, and a reboot: every process killed, the node's mount and UTS namespaces
 * (its /run: containerd's state, the pods' network namespaces) and cgroups gone, its network
 * namespace left with an unconfigured NIC; its disk kept; then booted as `lab up` boots it.
 */
import { join } from 'node:path';
import { NETWORK_RESET_SCRIPT } from '../../../cluster/dataplane/network-reset.ts';
import { NODE_NIC, nodeNamespace } from '../../../cluster/dataplane/names.ts';
import { ProviderError } from '../../../errors.ts';
import { pollFor } from '../../../wait/poll.ts';
import type { NodeActions } from '../../lab-provider.ts';
import { CGROUP_CONTROLLERS, nodeCgroup, nodePins } from './node-host.ts';
import { comm, killAndWait, machinePids, removeCgroup } from './machine-teardown.ts';
import {
  bootMachine,
  machineShell,
  startContainerd,
  type MachineOptions,
} from './node-machines.ts';
import { STAGE } from '../../../provision/step-runner.ts';

const KUBELET_BACK_MS = 30_000;

/** The bridge plugin's node state (what cni-bridge.sh programs) removed; then the script again. */
const CNI_RESTART = [
  'set -u',
  `. ${STAGE.linux}/config/node.env`,
  'for route in $HL_POD_ROUTES; do ip route del "${route%=*}" 2>/dev/null; done',
  'iptables -w -t nat -D POSTROUTING -s "$HL_NODE_POD_CIDR" ! -d "$HL_POD_CIDR" -m comment --comment "hybrid-lab bridge masquerade" -j MASQUERADE 2>/dev/null',
  `exec bash ${STAGE.linux}/scripts/cni-bridge.sh`,
].join('\n');

export class NamespaceNodeActions implements NodeActions {
  constructor(private readonly options: MachineOptions) {}

  #node(name: string) {
    const node = this.options.plan.nodes.find((n) => n.name === name);
    if (node === undefined)
      throw new ProviderError(`lab ${this.options.plan.name} has no node ${name}`);
    return node;
  }

  #shell(node: string) {
    return machineShell(this.options.runner, this.options.plan.id, node);
  }

  #pids(node: string, names?: readonly string[]): number[] {
    const pids = machinePids(this.options.plan.id, node);
    return names === undefined ? pids : pids.filter((p) => names.includes(comm(p)));
  }

  async restartCni(node: string): Promise<void> {
    this.#node(node);
    await this.#shell(node).exec(['bash', '-c', CNI_RESTART]);
  }

  async restartRuntime(node: string): Promise<void> {
    this.#node(node);
    const { runner, plan, logDir } = this.options;
    await killAndWait(runner, this.#pids(node, ['containerd']), 'TERM');
    await startContainerd(runner, plan.id, node, logDir);
    // The kubelet's supervisor starts it again, as systemd restarts kubelet.service.
    const before = this.#pids(node, ['kubelet']);
    await killAndWait(runner, before, 'TERM');
    await pollFor(
      `a new kubelet on ${node}`,
      () => this.#pids(node, ['kubelet']).some((p) => !before.includes(p)),
      { timeoutMs: KUBELET_BACK_MS, intervalMs: 200 },
    );
  }

  async reboot(name: string): Promise<void> {
    const node = this.#node(name);
    const { runner, plan } = this.options;
    // Every process of the node, as the power goes; a second round for what a first one started.
    for (let round = 0; round < 5; round++) {
      const left = this.#pids(name);
      if (left.length === 0) break;
      await killAndWait(runner, left, round === 0 ? 'TERM' : 'KILL');
    }
    const left = this.#pids(name);
    if (left.length > 0)
      throw new ProviderError(`processes of ${name} outlived its stop: ${left.join(' ')}`);
    const pins = nodePins(plan.id, name);
    await runner.run('sh', [
      '-c',
      'for p; do mountpoint -q "$p" && umount "$p"; done; true',
      'sh',
      pins.mnt,
      pins.uts,
    ]);
    for (const controller of CGROUP_CONTROLLERS)
      removeCgroup(join('/sys/fs/cgroup', controller, nodeCgroup(plan.id, name).slice(1)));
    await runner.run('nsenter', [
      `--net=/run/netns/${nodeNamespace(plan.prefix, name)}`,
      'sh',
      '-c',
      NETWORK_RESET_SCRIPT,
      'reset',
      NODE_NIC,
    ]);
    await bootMachine(this.options, node);
    // What plays flannel's part programs the node's routes and masquerade as it starts.
    await this.#shell(name).exec(['bash', `${STAGE.linux}/scripts/cni-bridge.sh`]);
  }
}
