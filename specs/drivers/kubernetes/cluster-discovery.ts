/** What the driver learns from the API server before anything is deployed. */
import type { V1Node } from '@kubernetes/client-node';
import type { SuiteNode } from '../../model/lab-driver.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import type { CoreClient, VersionClient } from './kube-clients.ts';
import { CNI_NAMESPACES, cniOf } from './cni-detection.ts';

export const OS_LABEL = 'kubernetes.io/os';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

export interface ClusterFacts {
  nodes: SuiteNode[];
  /** Node name → its `kubernetes.io/hostname` label (usually, not always, the name). */
  hostnames: Record<string, string>;
  /** `gitVersion` from the API server's /version, e.g. v1.30.4. */
  kubernetesVersion: string;
  /** Node name → OS image and kernel, e.g. `Windows Server 2022 Datacenter (10.0.20348.2582)`. */
  osBuilds: Record<string, string>;
  /** The CNIs whose pods run (cni-detection.ts: `azure-cni`, `calico`, …), when one is known. */
  cni?: string;
  /** The cluster DNS behind the kube-dns Service, by its pods' image. */
  clusterDns?: string;
}

/** The CNI and the cluster DNS, read off the system pods (cni-detection.ts's namespaces). */
async function discoverAddons(core: CoreClient): Promise<Pick<ClusterFacts, 'cni' | 'clusterDns'>> {
  const lists = await Promise.all(
    CNI_NAMESPACES.map((namespace) =>
      core.listNamespacedPod({ namespace }).then(
        (list) => list.items,
        () => [],
      ),
    ),
  );
  const pods = lists.flat();
  const cni = cniOf(
    Object.fromEntries(
      CNI_NAMESPACES.map((ns, i) => [ns, lists[i]!.map((p) => p.metadata?.name ?? '')]),
    ),
  );
  const dnsImage = pods
    .filter((p) => p.metadata?.labels?.['k8s-app'] === 'kube-dns')
    .map((p) => p.spec?.containers[0]?.image ?? '')
    .find((image) => image !== '');
  const clusterDns =
    dnsImage === undefined
      ? undefined
      : /\/coredns:/.test(dnsImage)
        ? `CoreDNS ${dnsImage.split(':').pop() ?? ''}`
        : /cluster-dns/.test(dnsImage)
          ? `hl-cluster-dns (a stand-in for CoreDNS: ${dnsImage})`
          : dnsImage;
  return {
    ...(cni === undefined ? {} : { cni }),
    ...(clusterDns === undefined ? {} : { clusterDns }),
  };
}

/** Why a node cannot carry pods right now, or undefined when it can. */
export function notReadyReason(node: V1Node): string | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready === undefined) return 'no Ready condition yet';
  if (ready.status !== 'True') {
    const why = [ready.reason, ready.message].filter(Boolean).join(': ');
    return `Ready=${ready.status}${why === '' ? '' : ` (${why})`}`;
  }
  if (node.spec?.unschedulable === true) return 'cordoned (spec.unschedulable)';
  return undefined;
}

function toSuiteNode(node: V1Node): SuiteNode | undefined {
  const name = node.metadata?.name ?? '(unnamed)';
  const labels = node.metadata?.labels ?? {};
  const os = labels[OS_LABEL];
  // Nodes of other OSes cannot host a cell; they are left out rather than guessed.
  if (os !== 'linux' && os !== 'windows') return undefined;
  const ip = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (ip === undefined) {
    throw new InfrastructureError(`node ${name} reports no InternalIP address`, {
      hint: `kubectl get node ${name} -o jsonpath='{.status.addresses}'`,
    });
  }
  const role = CONTROL_PLANE_LABEL in labels ? 'control-plane' : 'worker';
  return { name, os, role, ip };
}

/** Lists the nodes (os, role, InternalIP), their OS builds and the server version. */
export async function discoverCluster(
  core: CoreClient,
  version: VersionClient,
): Promise<ClusterFacts> {
  const [list, info, addons] = await Promise.all([
    core.listNode(),
    version.getCode(),
    discoverAddons(core),
  ]);
  const facts: ClusterFacts = {
    nodes: [],
    hostnames: {},
    kubernetesVersion: info.gitVersion,
    osBuilds: {},
    ...addons,
  };
  for (const node of [...list.items].sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  )) {
    const suiteNode = toSuiteNode(node);
    if (suiteNode === undefined) continue;
    facts.nodes.push(suiteNode);
    facts.hostnames[suiteNode.name] = node.metadata?.labels?.[HOSTNAME_LABEL] ?? suiteNode.name;
    const nodeInfo = node.status?.nodeInfo;
    facts.osBuilds[suiteNode.name] =
      nodeInfo === undefined ? 'unknown' : `${nodeInfo.osImage} (${nodeInfo.kernelVersion})`;
  }
  if (facts.nodes.length === 0) {
    throw new InfrastructureError('the cluster has no Linux or Windows nodes', {
      hint: `check the ${OS_LABEL} label: kubectl get nodes -L ${OS_LABEL}`,
    });
  }
  return facts;
}
