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
  healthServerArgv,
  netexecArgv,
} from './runtime/workload-programs.ts';
import { startApiServerStandIn } from './apiserver-standin.ts';
import { healthFiles } from './health-check-sync.ts';

const DNS_LABELS = { 'k8s-app': 'kube-dns' };
/** What the external echo's /hostname answers. */
export const EXTERNAL_ECHO_HOSTNAME = 'external';

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
    netexecArgv(EXTERNAL_ECHO_HOSTNAME, runtime.workloads, bind),
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
  const { hosts, plan } = cluster;
  const started = await Promise.all(
    plan.nodes.map(async (node) => {
      const runtime = hosts.pods(node.name);
      const { pid } = await runtime.start(
        hosts.nodeNetns(node.name),
        netexecArgv(node.name, runtime.workloads, undefined, HOST_NETEXEC_PORTS),
        join(runtime.dataDir ?? cluster.dir, 'logs', `host-netexec-${node.name}.log`),
        READY_LINE,
      );
      return [node.name, pid] as const;
    }),
  );
  return Object.fromEntries(started);
}

/**
 * Starts every node's kube-proxy health-check server (health-server.mjs) on the node's own network,
 * reading the list the first sync wrote.
 */
async function startHealthServers(cluster: EmulatedCluster): Promise<Record<string, number>> {
  const { hosts, plan } = cluster;
  const started = await Promise.all(
    plan.nodes.map(async (node) => {
      const runtime = hosts.pods(node.name);
      const files = healthFiles(runtime, cluster.dir, node.name);
      const { pid } = await runtime.start(
        hosts.nodeNetns(node.name),
        healthServerArgv(files.config, runtime.workloads),
        files.log,
        READY_LINE,
      );
      return [node.name, pid] as const;
    }),
  );
  return Object.fromEntries(started);
}

/**
 * Writes the initial state, the Windows CNI configs, the zone and the health-check lists, then
 * starts the DNS pod and on every node its host-network netexec and kube-proxy's health-check
 * server, and the API server stand-in on the control plane.
 */
export async function bootstrapCluster(
  cluster: EmulatedCluster,
  externalEcho: ExternalEcho,
): Promise<void> {
  cluster.store.write(initialState(cluster.plan, externalEcho));
  writeGeneratedWindowsCni(cluster.dir, cluster.plan);
  await cluster.resync();
  await cluster.startPod(dnsPodSpec(cluster.plan), 'dns', true);
  const [hostNetexec, healthServers, apiServer] = await Promise.all([
    startHostNetexecs(cluster),
    startHealthServers(cluster),
    startApiServerStandIn(cluster, controlPlane(cluster.plan)),
  ]);
  await cluster.store.update((state) => {
    Object.assign(state, { hostNetexec, healthServers, apiServer });
  });
}
