/**
 * The settings file every node script reads (`config/node.env` on Linux, `config\node.json` on
 * Windows): versions, addresses and exact artifact paths, from the plan and the catalogue.
 * Nothing secret goes in here.
 */
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import {
  artifactsFor,
  clusterNeeds,
  type Artifact,
  containerdRelease,
  DEBIAN_REPO_DIR,
  debianPackages,
} from './artifact-catalogue.ts';
import type { ComponentVersions } from './component-versions.ts';
import { nodeContainerd, versionParts } from './containerd-config.ts';
import {
  controlPlaneOf,
  kubeadmApiVersion,
  LINUX_CRI_SOCKET,
  WINDOWS_CRI_SOCKET,
} from './kubeadm-config.ts';
import type { ArtifactSource } from './provision-settings.ts';
import { STAGE } from './step-runner.ts';
import { windowsHostListeners } from './windows-host-listeners.ts';
import { externalRoute } from '../plan/outbound-nat.ts';

/** Where the node scripts look for artifacts (the cache itself on a node that shares this host's files) and what their messages tell the user. */
function artifactSettings(
  source: ArtifactSource,
  stage: string,
  sep: string,
  hostFiles = false,
): Record<string, string> {
  return {
    HL_ARTIFACTS_SOURCE: source.kind,
    HL_ARTIFACTS_DIR: hostFiles && source.kind === 'dir' ? source.dir : `${stage}${sep}artifacts`,
    HL_ARTIFACTS_URL: source.kind === 'url' ? source.url : '',
    HL_ARTIFACTS_HINT: source.kind === 'dir' ? source.dir : source.kind === 'url' ? source.url : '',
  };
}

/** Settings both OSes share. */
function common(plan: LabPlan, node: PlannedNode, v: ComponentVersions): Record<string, string> {
  const cp = controlPlaneOf(plan);
  return {
    HL_LAB_ID: plan.id,
    HL_NODE_NAME: node.name,
    HL_NODE_IP: node.ip,
    HL_NODE_ROLE: node.role,
    HL_NODE_POD_CIDR: node.podCIDR,
    HL_CONTROL_PLANE_ENDPOINT: `${cp.ip}:${plan.kubernetes.apiServerPort}`,
    HL_K8S_VERSION: v.kubernetes,
    HL_K8S_MINOR: v.kubernetesMinor,
    HL_PAUSE_IMAGE: v.pauseImage,
    HL_CLUSTER_DNS: plan.kubernetes.clusterDNS,
    HL_DNS_DOMAIN: plan.kubernetes.dnsDomain,
    HL_POD_CIDR: plan.kubernetes.podCIDR,
    HL_SERVICE_CIDR: plan.kubernetes.serviceCIDR,
    HL_NODEPORT_RANGE: `${plan.kubernetes.nodePortRange.min}-${plan.kubernetes.nodePortRange.max}`,
    HL_EXTERNAL_CIDR: externalRoute(plan),
    HL_LAB_GATEWAY: plan.network.gateway,
  };
}

/** Path of the first catalogue artifact whose path ends with `suffix`. */
function pathEnding(files: Artifact[], suffix: string): string {
  const found = files.find((f) => f.path.endsWith(suffix));
  if (found === undefined) throw new Error(`artifact catalogue has no ${suffix}`);
  return found.path;
}

/**
 * Flags of `kubeadm init` beyond its config: without CoreDNS, its addon is skipped and its
 * image (which kubeadm lists whatever the addon) is not pulled.
 */
export function kubeadmInitArgs(v: ComponentVersions): string[] {
  return v.clusterDns.kind === 'coredns'
    ? []
    : ['--skip-phases=addon/coredns', '--ignore-preflight-errors=ImagePull'];
}

/** host-gw routes of the bridge plugin: every other node's pod CIDR via its lab address. */
export function podRoutes(plan: LabPlan, node: PlannedNode): string[] {
  if (plan.cni.plugin !== 'bridge') return [];
  return plan.nodes.filter((n) => n !== node).map((n) => `${n.podCIDR}=${n.ip}`);
}

/**
 * containerd of a Linux node: with a pin, upstream's release (version, cache path, and its
 * download for a lab without a cache); without, Debian's package. Either way the major version
 * config/containerd.toml is written for.
 */
function linuxContainerd(v: ComponentVersions): Record<string, string> {
  const pinned = v.containerd.linux;
  const release = pinned === undefined ? undefined : containerdRelease('linux', pinned);
  return {
    HL_CONTAINERD_VERSION: pinned ?? '',
    HL_ARTIFACT_CONTAINERD: release?.path ?? '',
    HL_CONTAINERD_URL: release?.url ?? '',
    HL_CONTAINERD_MAJOR: String(versionParts(nodeContainerd('linux', v)).major),
  };
}

/** `config/node.env` of a Linux node: shell assignments, single-quoted. */
export function linuxNodeEnv(
  plan: LabPlan,
  node: PlannedNode,
  v: ComponentVersions,
  source: ArtifactSource,
  imageTarballs: readonly string[],
  hostFiles = false,
): string {
  const needs = clusterNeeds(plan);
  const files = artifactsFor('linux', v, needs);
  const values: Record<string, string> = {
    ...common(plan, node, v),
    ...artifactSettings(source, STAGE.linux, '/', hostFiles),
    HL_CRI_SOCKET: LINUX_CRI_SOCKET,
    HL_DEBIAN_REPO: DEBIAN_REPO_DIR,
    HL_DEBIAN_PACKAGES: debianPackages(v).join(' '),
    ...linuxContainerd(v),
    HL_ARTIFACT_KUBEADM: pathEnding(files, '/kubeadm'),
    HL_ARTIFACT_KUBELET: pathEnding(files, '/kubelet'),
    HL_ARTIFACT_KUBECTL: pathEnding(files, '/kubectl'),
    HL_ARTIFACT_CRICTL: pathEnding(files, '/crictl'),
    HL_IMAGE_TARBALLS: imageTarballs.join(' '),
    HL_KUBEADM_INIT_ARGS: kubeadmInitArgs(v).join(' '),
    HL_CNI_PLUGIN: plan.cni.plugin,
    HL_POD_ROUTES: podRoutes(plan, node).join(' '),
  };
  const lines = Object.entries(values).map(([k, val]) => `${k}='${val.replace(/'/g, `'\\''`)}'`);
  return `# Written by hybrid-lab for ${node.name}; read by vagrant/scripts/linux/lib.sh.\n${lines.join('\n')}\n`;
}

/** `config\node.json` of a Windows node. */
export function windowsNodeJson(
  plan: LabPlan,
  node: PlannedNode,
  v: ComponentVersions,
  source: ArtifactSource,
  imageTarballs: readonly string[],
): string {
  const files = artifactsFor('windows', v);
  // The archive whose member is nssm.exe.
  const nssm = files.find((f) => f.member?.endsWith('/nssm.exe') === true);
  if (nssm === undefined) throw new Error('artifact catalogue has no nssm archive');
  const values = {
    ...common(plan, node, v),
    ...artifactSettings(source, STAGE.windows, '\\'),
    HL_CRI_SOCKET: WINDOWS_CRI_SOCKET,
    HL_KUBEADM_API: kubeadmApiVersion(v.kubernetes),
    HL_KUBE_NETWORK: plan.cni.windowsNetworkName,
    HL_CNI_BACKEND: plan.cni.backend,
    HL_FIREWALL_RULES: windowsHostListeners(plan),
    HL_CONTAINERD_VERSION: v.containerd.windows,
    HL_ARTIFACT_KUBELET: pathEnding(files, '/kubelet.exe'),
    HL_ARTIFACT_KUBEADM: pathEnding(files, '/kubeadm.exe'),
    HL_ARTIFACT_KUBECTL: pathEnding(files, '/kubectl.exe'),
    HL_ARTIFACT_KUBE_PROXY: pathEnding(files, '/kube-proxy.exe'),
    HL_ARTIFACT_CONTAINERD: containerdRelease('windows', v.containerd.windows).path,
    HL_ARTIFACT_CNI_PLUGINS: pathEnding(
      files,
      `cni-plugins-windows-amd64-${v.windowsCniPlugins}.tgz`,
    ),
    HL_ARTIFACT_FLANNEL_CNI: pathEnding(
      files,
      `cni-plugin-flannel-windows-amd64-${v.flannelCniPlugin}.tgz`,
    ),
    HL_ARTIFACT_FLANNELD: pathEnding(files, '/flanneld.exe'),
    HL_ARTIFACT_NSSM: nssm.path,
    HL_NSSM_MEMBER: nssm.member ?? '',
    HL_IMAGE_TARBALLS: imageTarballs.join(' '),
    // Each file's downloads, in the order the script tries them.
    HL_UPSTREAM: Object.fromEntries(
      files.flatMap((f) => (f.url === undefined ? [] : [[f.path, [f.url, ...(f.mirrors ?? [])]]])),
    ),
  };
  return `${JSON.stringify(values, null, 2)}\n`;
}
