/**
 * `cluster: emulated` on VMs: the netns issue's dataplane installed inside the Linux VMs over
 * SSH, pods as namespaces inside each VM, traffic between VMs over the real virtual network.
 * The hypervisor host plays "outside": the external echo and NodePort probes run here.
 */
import { join } from 'node:path';
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { Logger } from '../../log/logger.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import type { PreflightProblem } from '../../errors.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { bootstrapCluster, startExternalEcho } from '../../cluster/cluster-bootstrap.ts';
import type { ClusterHosts } from '../../cluster/cluster-hosts.ts';
import { settleAll } from '../../wait/poll.ts';
import { EmulatedCluster } from '../../cluster/emulated-cluster.ts';
import { NetnsPodRuntime } from '../../cluster/runtime/pod-runtime.ts';
import { ShellPodRuntime } from '../../cluster/runtime/shell-pod-runtime.ts';
import { buildVmNode } from '../../cluster/dataplane/vm-node-setup.ts';
import { installNodePrograms } from '../../cluster/runtime/vm-programs.ts';
import { LAB_ID_ENV } from '../../exec/lab-processes.ts';

/** `.lab/<name>/emulated/`: the emulated cluster's state (cluster.json, cni/). */
export function emulatedDir(stateDir: string): string {
  return join(stateDir, 'emulated');
}

/** Pods in the VMs through their shells; outside is this host, the echo stamped with the lab id. */
export function vmHosts(
  plan: LabPlan,
  runner: CommandRunner,
  shell: (node: string) => NodeShell,
  hostDataDir: string,
): ClusterHosts {
  const runtimes = new Map<string, ShellPodRuntime>();
  const outside = new NetnsPodRuntime(runner, {
    dataDir: hostDataDir,
    env: { [LAB_ID_ENV]: plan.id },
  });
  return {
    pods: (node) => {
      let runtime = runtimes.get(node);
      if (runtime === undefined) {
        runtime = new ShellPodRuntime(shell(node));
        runtimes.set(node, runtime);
      }
      return runtime;
    },
    shell,
    // A VM is the node: its own network is the machine's.
    nodeNetns: () => undefined,
    outside: {
      runtime: outside,
      ...(plan.external.managed ? { bind: plan.external.address } : {}),
    },
  };
}

export function vmCluster(
  plan: LabPlan,
  stateDir: string,
  hosts: ClusterHosts,
  log: Logger,
): EmulatedCluster {
  return new EmulatedCluster(plan, emulatedDir(stateDir), hosts, log);
}

/** Wires every VM, starts the external echo here, then the cluster's own objects. */
export async function installEmulatedCluster(cluster: EmulatedCluster): Promise<void> {
  const { plan, hosts } = cluster;
  await settleAll(
    plan.nodes.map(async (node) => {
      const shell = hosts.shell(node.name);
      await installNodePrograms(shell);
      await buildVmNode(shell, plan, node);
    }),
  );
  const echo = await startExternalEcho(hosts.outside, plan, cluster.dir);
  await bootstrapCluster(cluster, echo);
}

/** IPv4 addresses of this host (of the network namespace the harness runs in). */
export async function hostAddresses(runner: CommandRunner): Promise<string[]> {
  const out = await runner.run('ip', ['-o', '-4', 'addr', 'show'], { check: false });
  return [...out.stdout.matchAll(/inet (\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1]!);
}

/**
 * The harness host plays "outside", so it must sit on the lab network: with a private network
 * the hypervisor must be this host; with a bridge this host must carry the gateway (and the
 * external address when the harness runs the echo).
 */
export function emulatedPreflight(plan: LabPlan, addresses: readonly string[]): PreflightProblem[] {
  if (plan.cluster !== 'emulated') return [];
  const problems: PreflightProblem[] = [];
  if (plan.nodes.some((n) => n.guestOs !== 'linux')) {
    problems.push({
      what: 'an emulated cluster runs every node on a Linux VM',
      fix: 'use Linux boxes (the planner does unless a node names a Windows box)',
    });
  }
  if (plan.network.mode === 'private') {
    const remote = plan.hypervisors.filter((h) => h.nodes.length > 0 && h.remote);
    if (remote.length > 0) {
      problems.push({
        what: `an emulated cluster's outside (external echo, NodePort probes) runs on this host, but the lab network lives on ${remote.map((h) => h.uri).join(', ')}`,
        fix: 'use qemu:///system here, or network mode bridge with the bridge on this host',
      });
    }
    return problems;
  }
  const wanted = [
    plan.network.gateway,
    ...(plan.external.managed ? [plan.external.address] : []),
  ].filter((a) => !addresses.includes(a));
  if (wanted.length > 0) {
    problems.push({
      what: `this host plays "outside" of the emulated cluster but lacks ${wanted.join(' and ')} on bridge ${plan.network.bridge ?? '?'}`,
      fix: `ip addr add ${plan.network.gateway}/${plan.network.cidr.split('/')[1] ?? '24'} dev ${plan.network.bridge ?? 'BRIDGE'}${plan.external.managed ? ` && ip addr add ${plan.external.address}/32 dev ${plan.network.bridge ?? 'BRIDGE'}` : ''}`,
    });
  }
  return problems;
}
