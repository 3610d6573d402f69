/** What the driver learns from the API server before anything is deployed. */
import type { V1Node } from '@kubernetes/client-node';
import type { LeftOut, SuiteNode } from '../../model/lab-driver.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import type { CoreClient, VersionClient } from './kube-clients.ts';
import {
  chooseNodes,
  leftOutText,
  OS_LABEL,
  type NodeChoice,
} from '../../../lab/providers/existing/node-usability.ts';
import { CNI_NAMESPACES, cniOf } from './cni-detection.ts';

export { OS_LABEL } from '../../../lab/providers/existing/node-usability.ts';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

export interface ClusterFacts {
  /** The nodes the run uses. */
  nodes: SuiteNode[];
  /** The Linux and Windows nodes it leaves out, with why (node-usability.ts). */
  leftOut?: LeftOut[];
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

/** The node as the suite sees it; undefined for a node of another OS. */
function toSuiteNode(node: V1Node): SuiteNode | undefined {
  const name = node.metadata?.name ?? '(unnamed)';
  const labels = node.metadata?.labels ?? {};
  const os = labels[OS_LABEL];
  if (os !== 'linux' && os !== 'windows') return undefined;
  const ip = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '';
  const role = CONTROL_PLANE_LABEL in labels ? 'control-plane' : 'worker';
  return { name, os, role, ip };
}

/**
 * Lists the nodes (os, role, InternalIP), their OS builds and the server version; the nodes the
 * run cannot use or was told not to (`choice`) are left out with why. `windowsImage` gives the
 * Windows image's variants, asked only when the cluster has a Windows node.
 */
export async function discoverCluster(
  core: CoreClient,
  version: VersionClient,
  nodeChoice: NodeChoice = {},
  windowsImage?: () => Promise<NodeChoice['windowsImage']>,
): Promise<ClusterFacts> {
  const [list, info, addons] = await Promise.all([
    core.listNode(),
    version.getCode(),
    discoverAddons(core),
  ]);
  const hasWindows = list.items.some((n) => n.metadata?.labels?.[OS_LABEL] === 'windows');
  const variants = hasWindows && windowsImage !== undefined ? await windowsImage() : undefined;
  const choice = variants === undefined ? nodeChoice : { ...nodeChoice, windowsImage: variants };
  const facts: ClusterFacts = {
    nodes: [],
    leftOut: [],
    hostnames: {},
    kubernetesVersion: info.gitVersion,
    osBuilds: {},
    ...addons,
  };
  const sorted = [...list.items].sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  const { usable, leftOut, unknownNames } = chooseNodes(sorted, choice);
  if (unknownNames.length > 0) {
    throw new InfrastructureError(
      `NODES names ${unknownNames.join(', ')}, which the cluster does not have`,
      { hint: 'kubectl get nodes' },
    );
  }
  for (const out of leftOut) {
    const node = toSuiteNode(sorted.find((n) => n.metadata?.name === out.name)!);
    if (node !== undefined) facts.leftOut!.push({ node, why: out.why });
  }
  for (const node of usable) {
    const suiteNode = toSuiteNode(node)!;
    facts.nodes.push(suiteNode);
    facts.hostnames[suiteNode.name] = node.metadata?.labels?.[HOSTNAME_LABEL] ?? suiteNode.name;
    const nodeInfo = node.status?.nodeInfo;
    facts.osBuilds[suiteNode.name] =
      nodeInfo === undefined ? 'unknown' : `${nodeInfo.osImage} (${nodeInfo.kernelVersion})`;
  }
  if (facts.nodes.length === 0) {
    const why = leftOut.map(leftOutText).join('; ');
    throw new InfrastructureError(
      `the cluster has no node the suite can use${why === '' ? '' : `: ${why}`}`,
      {
        hint: `kubectl get nodes -L ${OS_LABEL}; NODE_SELECTOR, NODES and TOLERATIONS choose the nodes`,
      },
    );
  }
  return facts;
}
