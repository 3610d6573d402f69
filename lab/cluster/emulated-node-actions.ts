/**
 * The disruption phase's actions on an emulated cluster (docs/disruption.md), each as faithful to what it
 * stands for as the emulation allows, and labelled emulated wherever its cells appear:
 * kube-proxy restarted (its rules rebuilt from the cluster state), flannel restarted (its routes
 * and VXLAN state removed and programmed again), the runtime restarted (pods keep running), a
 * reboot (processes, sandboxes, links, rules and conntrack gone; the node boots and its pods come
 * back), and the cluster DNS pod moved to another node.
 */
import { ProviderError } from '../errors.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { processAlive } from '../exec/process-alive.ts';
import { startHostNetexec } from './cluster-bootstrap.ts';
import { dnsPod } from './cluster-sync.ts';
import { NODE_NIC, vxlanDevice } from './dataplane/names.ts';
import { podNetworkScript, vxlanFdbScript } from './dataplane/pod-network.ts';
import { buildNode } from './dataplane/topology.ts';
import { NETWORK_RESET_SCRIPT } from './dataplane/network-reset.ts';
import type { EmulatedCluster } from './emulated-cluster.ts';

const batch = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

export class EmulatedNodeActions {
  constructor(private readonly cluster: EmulatedCluster) {}

  get plan(): LabPlan {
    return this.cluster.plan;
  }

  #node(name: string): PlannedNode {
    const node = this.plan.nodes.find((n) => n.name === name);
    if (node === undefined) throw new ProviderError(`lab ${this.plan.name} has no node ${name}`);
    return node;
  }

  /** Why `node` cannot be rebooted here: only nodes that are namespaces of this host can. */
  rebootUnsupported(node: string): string | undefined {
    return this.cluster.hosts.nodeNetns(node) === undefined
      ? `the emulated reboot restarts a node that is a namespace of this host; ${node} runs in a VM`
      : undefined;
  }

  kubeProxyRestart(node: string): Promise<void> {
    return this.cluster.restartKubeProxy(this.#node(node).name);
  }

  /**
   * flannel restarted: what it programs on the node (host-gw routes, or the VXLAN device with its
   * neighbour, route and FDB entries) is removed, then programmed again from the plan.
   */
  async cniRestart(name: string): Promise<void> {
    const node = this.#node(name);
    const shell = this.cluster.hosts.shell(name);
    if (this.plan.cni.backend === 'vxlan') {
      await shell.exec(['ip', 'link', 'del', vxlanDevice(this.plan)]);
    } else {
      const remotes = this.plan.nodes.filter((n) => n.name !== name);
      await shell.exec(['ip', '-batch', '-'], {
        input: batch(remotes.map((r) => `route del ${r.podCIDR}`)),
      });
    }
    await shell.exec(['ip', '-batch', '-'], { input: batch(podNetworkScript(this.plan, node)) });
    const fdb = vxlanFdbScript(this.plan, node);
    if (fdb.length > 0) await shell.exec(['bridge', '-batch', '-'], { input: batch(fdb) });
  }

  /**
   * containerd and the kubelet restarted: a pod's processes outlive both (containerd's shims hold
   * them), so nothing of the data plane changes; this checks the node's pods still run.
   */
  runtimeRestart(name: string): Promise<void> {
    const state = this.cluster.store.read();
    const stopped = state.pods.filter(
      (p) => p.node === this.#node(name).name && (p.pid === undefined || !processAlive(p.pid)),
    );
    if (stopped.length > 0 && this.cluster.hosts.nodeNetns(name) !== undefined) {
      const names = stopped.map((p) => `${p.namespace}/${p.name}`).join(', ');
      return Promise.reject(new ProviderError(`pods of ${name} are not running: ${names}`));
    }
    return Promise.resolve();
  }

  /**
   * Stops the node as a power cycle does (every process of its pods and its own, their sandboxes,
   * its links, addresses, routes, rules and conntrack gone; its state on disk kept), then boots
   * it: its network, kube-proxy, its host-network netexec, and its pods again at their addresses.
   */
  async reboot(name: string): Promise<void> {
    const why = this.rebootUnsupported(name);
    if (why !== undefined) throw new ProviderError(why);
    const node = this.#node(name);
    const { cluster } = this;
    const runtime = cluster.hosts.pods(name);
    const pods = await cluster.store.update((state) => {
      const on = state.pods.filter((p) => p.node === name && p.phase !== 'Terminating');
      for (const pod of on) {
        pod.phase = 'Pending';
        delete pod.pid;
      }
      const netexec = state.hostNetexec?.[name];
      if (netexec !== undefined && processAlive(netexec)) process.kill(netexec, 'SIGKILL');
      delete state.hostNetexec?.[name];
      state.applied.rules[name] = '';
      state.applied.udpFlows = { ...state.applied.udpFlows, [name]: [] };
      return on;
    });
    await runtime.removeSandboxes(pods.map((p) => p.netns));
    const shell = cluster.hosts.shell(name);
    await shell.exec(['sh', '-c', NETWORK_RESET_SCRIPT, 'reset', NODE_NIC]);
    await buildNode(shell, this.plan, node);
    await cluster.restartKubeProxy(name);
    const pid = await startHostNetexec(cluster, name);
    await cluster.store.update((state) => {
      state.hostNetexec = { ...state.hostNetexec, [name]: pid };
    });
    await cluster.restartPodsOn(name);
  }

  /** The node the cluster DNS pod runs on now. */
  dnsNode(): string {
    const pod = dnsPod(this.cluster.store.read());
    if (pod === undefined) throw new ProviderError(`lab ${this.plan.name} has no cluster DNS pod`);
    return pod.node;
  }

  /** Moves the DNS pod to the next Linux node after its own (plan order); returns where it went. */
  async moveDns(): Promise<string> {
    const from = this.dnsNode();
    const linux = this.plan.nodes.filter((n) => n.os === 'linux').map((n) => n.name);
    const to = linux[(linux.indexOf(from) + 1) % linux.length];
    if (to === undefined || to === from)
      throw new ProviderError(`lab ${this.plan.name} has no other Linux node for its DNS pod`);
    await this.cluster.moveDnsPod(to);
    return to;
  }

  /** Moves the DNS pod back to `node` unless it is there. */
  async moveDnsTo(node: string): Promise<void> {
    if (this.dnsNode() !== node) await this.cluster.moveDnsPod(node);
  }
}
