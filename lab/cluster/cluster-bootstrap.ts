/** What a fresh emulated cluster holds before any user object: the kubernetes and kube-dns Services and the DNS pod. */
import { join } from 'node:path';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import type { OutsideHost } from './cluster-hosts.ts';
import type { ClusterState, ExternalEcho, PodSpec } from './control/cluster-state.ts';
import type { EmulatedCluster } from './emulated-cluster.ts';
import { writeGeneratedWindowsCni } from './dataplane/windows-cni-files.ts';
import {
  HOST_NETEXEC_PORTS,
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
  READY_LINE,
  netexecArgv,
} from './runtime/workload-programs.ts';

const DNS_LABELS = { 'k8s-app': 'kube-dns' };

export function controlPlane(plan: LabPlan): PlannedNode {
  const node =
    plan.nodes.find((n) => n.role === 'control-plane' && n.os === 'linux') ?? plan.nodes[0];
  if (node === undefined) throw new Error(`plan ${plan.id} has no nodes`);
  return node;
}

export function dnsPodSpec(plan: LabPlan): PodSpec {
  return {
    name: 'coredns',
    namespace: 'kube-system',
    node: controlPlane(plan).name,
    labels: { ...DNS_LABELS },
  };
}

export function initialState(plan: LabPlan, externalEcho: ExternalEcho): ClusterState {
  const { apiServiceIP, clusterDNS, apiServerPort } = plan.kubernetes;
  return {
    format: 1,
    labId: plan.id,
    pods: [],
    services: [
      {
        name: 'kubernetes',
        namespace: 'default',
        type: 'ClusterIP',
        selector: {},
        clusterIP: apiServiceIP,
        ports: [{ name: 'https', port: 443, targetPort: apiServerPort, protocol: 'TCP' }],
        system: true,
        // The API server's endpoint is its node, not a pod.
        staticEndpoints: [controlPlane(plan).ip],
      },
      {
        name: 'kube-dns',
        namespace: 'kube-system',
        type: 'ClusterIP',
        selector: { ...DNS_LABELS },
        clusterIP: clusterDNS,
        ports: [
          { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, targetPort: 53, protocol: 'TCP' },
        ],
        system: true,
      },
    ],
    externalEcho,
    applied: { rules: {}, zone: '' },
  };
}

/** The echo server outside the cluster that outbound-NAT probes hit (netexec). */
export async function startExternalEcho(
  outside: OutsideHost,
  plan: LabPlan,
  dir: string,
): Promise<ExternalEcho> {
  const { runtime, netns, bind } = outside;
  const { pid } = await runtime.start(
    netns,
    netexecArgv('external', runtime.workloads, bind),
    join(runtime.dataDir ?? dir, 'logs', `${netns ?? 'external-echo'}.log`),
    READY_LINE,
  );
  return {
    address: plan.external.address,
    httpPort: NETEXEC_HTTP_PORT,
    udpPort: NETEXEC_UDP_PORT,
    pid,
  };
}

/**
 * Starts a netexec on every node's own network, answering /hostname with the node's name: what a
 * host-network pod (HostProcess on Windows) runs on a real cluster.
 */
async function startHostNetexecs(cluster: EmulatedCluster): Promise<Record<string, number>> {
  const started = await Promise.all(
    cluster.plan.nodes.map(
      async (node) => [node.name, await startHostNetexec(cluster, node.name)] as const,
    ),
  );
  return Object.fromEntries(started);
}

/** Starts `node`'s host-network netexec (at bring-up, and when the node boots again); its pid. */
export async function startHostNetexec(cluster: EmulatedCluster, node: string): Promise<number> {
  const runtime = cluster.hosts.pods(node);
  const { pid } = await runtime.start(
    cluster.hosts.nodeNetns(node),
    netexecArgv(node, runtime.workloads, undefined, HOST_NETEXEC_PORTS),
    join(runtime.dataDir ?? cluster.dir, 'logs', `host-netexec-${node}.log`),
    READY_LINE,
  );
  return pid;
}

/**
 * Writes the initial state, the Windows CNI configs and the zone, then starts the DNS pod and
 * every node's host-network netexec.
 */
export async function bootstrapCluster(
  cluster: EmulatedCluster,
  externalEcho: ExternalEcho,
): Promise<void> {
  cluster.store.write(initialState(cluster.plan, externalEcho));
  writeGeneratedWindowsCni(cluster.dir, cluster.plan);
  await cluster.resync();
  await cluster.startPod(dnsPodSpec(cluster.plan), 'dns', true);
  const hostNetexec = await startHostNetexecs(cluster);
  await cluster.store.update((state) => {
    state.hostNetexec = hostNetexec;
  });
}
