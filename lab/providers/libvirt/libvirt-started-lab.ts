/** A libvirt lab that is up: shells into its VMs, its emulated cluster (if any), and down(). */
import { ProviderError } from '../../errors.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import type { LabStatus, NodeStatus, ProviderContext, StartedLab } from '../lab-provider.ts';
import type { EmulatedCluster } from '../../cluster/emulated-cluster.ts';
import { emulatedDir, vmCluster, vmHosts } from './emulated-vms.ts';
import { domainName } from './libvirt-names.ts';
import type { LibvirtState } from './libvirt-state.ts';
import { labTarget, teardown } from './libvirt-teardown.ts';
import type { SshNodeShell } from '../../remote/ssh-node-shell.ts';
import { vmShell } from './vm-shell.ts';
import {
  restoreSnapshot,
  saveSnapshot,
  type RestoreTimings,
  type SnapshotRecord,
} from './lab-snapshots.ts';
import { scriptCommand } from '../../provision/step-runner.ts';
import { controlPlaneOf } from '../../provision/kubeadm-config.ts';
import { pollFor } from '../../wait/poll.ts';
import { Virsh } from './virsh.ts';

export class LibvirtStartedLab implements StartedLab {
  /** The emulated cluster inside the VMs (cluster: emulated); results must be labelled emulated. */
  readonly cluster: EmulatedCluster | undefined;
  /** The harness host plays outside: it sits on the lab network (the hypervisor, or the bridge). */
  readonly outside = undefined;
  #down: Promise<void> | undefined;

  constructor(
    readonly plan: LabPlan,
    private readonly context: ProviderContext,
    readonly state: LibvirtState,
  ) {
    this.cluster =
      plan.cluster === 'emulated'
        ? vmCluster(
            plan,
            context.stateDir,
            vmHosts(plan, context.runner, (node) => this.nodeShell(node), context.stateDir),
            context.log,
          )
        : undefined;
  }

  nodeShell(node: string): SshNodeShell {
    const planned = this.plan.nodes.find((n) => n.name === node);
    if (planned === undefined) {
      throw new ProviderError(`no node '${node}' in lab ${this.plan.id}`, {
        hint: `nodes: ${this.plan.nodes.map((n) => n.name).join(', ')}`,
      });
    }
    return vmShell(node, this.state.sshConfig, this.context.runner, planned.guestOs);
  }

  /** `lab ssh NODE`: an interactive login over the lab's ssh_config. */
  shellCommand(node: string): string[] {
    return this.nodeShell(node).interactiveArgv();
  }

  /** Idempotent: later calls return the first call's promise. */
  down(): Promise<void> {
    this.#down ??= teardown(
      this.context.runner,
      this.context.log,
      labTarget(this.context.runner, this.plan, this.context.stateDir),
    ).then(() => undefined);
    return this.#down;
  }

  /** `lab snapshot NAME`: every domain at once, memory included. */
  snapshot(name: string): Promise<SnapshotRecord> {
    return saveSnapshot(this.context, this.plan, this.state, name);
  }

  /** `lab up --from NAME`: back to the snapshot, then waits until the lab is ready again. */
  restore(name: string): Promise<RestoreTimings> {
    return restoreSnapshot(
      this.context,
      this.plan,
      this.state,
      name,
      (node) => this.nodeShell(node),
      () => this.#ready(),
    );
  }

  /** A kubeadm lab: every node Ready (asked on the control plane); else every VM answers. */
  async #ready(): Promise<void> {
    if (this.plan.cluster === 'kubeadm') {
      const cp = controlPlaneOf(this.plan);
      await this.nodeShell(cp.name).exec(scriptCommand('linux', 'wait-nodes-ready.sh', []), {
        timeoutMs: 11 * 60_000,
      });
      return;
    }
    await pollFor('every VM of the lab answering', async () => (await this.status()).ready, {
      timeoutMs: 5 * 60_000,
      intervalMs: 2000,
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.down();
  }

  async status(): Promise<LabStatus> {
    const { plan, state } = this;
    const uriOf = new Map(state.hypervisors.map((h) => [h.name, h.uri]));
    const nodes = await Promise.all(
      plan.nodes.map(async (n): Promise<NodeStatus> => {
        const uri = uriOf.get(n.hypervisor) ?? '';
        const domain = domainName(plan, n.name);
        const running =
          (await new Virsh(this.context.runner, uri).domainState(domain)) === 'running';
        const ssh = running
          ? await this.nodeShell(n.name)
              .exec(['true'], { check: false, timeoutMs: 30_000 })
              .then((r) => r.exitCode === 0)
          : false;
        const os = n.os === n.guestOs ? n.os : `${n.os} (emulated: Linux VM)`;
        return {
          name: n.name,
          ready: running && ssh,
          detail: `${os} ${n.ip} domain ${domain} on ${n.hypervisor} ${running ? 'running' : 'not running'}${running && !ssh ? ', ssh does not answer' : ''}`,
        };
      }),
    );
    const clusterUp = this.cluster === undefined || this.cluster.store.exists();
    const facts: Record<string, string> = {
      hypervisors: state.hypervisors
        .map((h) => `${h.name}=${h.uri} (driver ${h.driver}: ${h.driverReason})`)
        .join('; '),
      network:
        plan.network.mode === 'bridge'
          ? `bridge ${plan.network.bridge ?? ''}`
          : `private ${plan.network.cidr}`,
      ssh: state.sshConfig,
    };
    if (this.cluster !== undefined) {
      facts.dataplane = `emulated inside the VMs (pods are network namespaces), flannel ${plan.cni.backend}`;
      facts.state = emulatedDir(this.context.stateDir);
    }
    return {
      provider: 'libvirt',
      emulated: plan.emulated,
      ready: clusterUp && nodes.every((n) => n.ready),
      nodes,
      facts,
    };
  }
}
