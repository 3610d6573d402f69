/**
 * The kubeadm configs, generated from the plan: the control plane's InitConfiguration,
 * ClusterConfiguration, KubeletConfiguration and KubeProxyConfiguration in one YAML stream, and
 * each worker's JoinConfiguration (its secrets filled in on the node).
 */
import { stringify } from 'yaml';
import { ProvisionError } from './provision-error.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { clusterNeeds } from './artifact-catalogue.ts';
import type { ComponentVersions } from './component-versions.ts';

/** containerd's CRI socket on Linux nodes. */
export const LINUX_CRI_SOCKET = 'unix:///run/containerd/containerd.sock';
/** containerd's CRI pipe on Windows nodes, as `kubeadm join --cri-socket` takes it. */
export const WINDOWS_CRI_SOCKET = 'npipe:////./pipe/containerd-containerd';

export type KubeadmApiVersion =
  'kubeadm.k8s.io/v1beta2' | 'kubeadm.k8s.io/v1beta3' | 'kubeadm.k8s.io/v1beta4';

/** Placeholders kubeadm-join.sh replaces with the token and CA hash it reads on standard input. */
export const JOIN_TOKEN_PLACEHOLDER = '@HL_JOIN_TOKEN@';
export const JOIN_CA_HASH_PLACEHOLDER = '@HL_JOIN_CA_HASH@';

/** kubeadm reads v1beta2 up to 1.21, v1beta3 from 1.22 to 1.30, v1beta4 from 1.31 on. */
export function kubeadmApiVersion(kubernetesVersion: string): KubeadmApiVersion {
  const minor = Number(kubernetesVersion.replace(/^v/, '').split('.')[1]);
  if (minor >= 31) return 'kubeadm.k8s.io/v1beta4';
  return minor >= 22 ? 'kubeadm.k8s.io/v1beta3' : 'kubeadm.k8s.io/v1beta2';
}

/** v1beta2 and v1beta3 take extra args as a map, v1beta4 as a list of name/value pairs. */
function extraArgs(api: KubeadmApiVersion, args: Readonly<Record<string, string>>): unknown {
  return api === 'kubeadm.k8s.io/v1beta4'
    ? Object.entries(args).map(([name, value]) => ({ name, value }))
    : { ...args };
}

/** The plan's single control-plane node. */
export function controlPlaneOf(plan: LabPlan): PlannedNode {
  const cps = plan.nodes.filter((n) => n.role === 'control-plane');
  const cp = cps[0];
  if (cp === undefined || cps.length > 1 || cp.os !== 'linux') {
    throw new ProvisionError(
      `kubeadm provisioning needs exactly one Linux control plane; plan ${plan.name} has ${cps.map((n) => `${n.name} (${n.os})`).join(', ') || 'none'}`,
      { node: cps[0]?.name ?? '-', step: 'plan' },
    );
  }
  return cp;
}

/** What kubeadm registers a node with: its name, CRI and kubelet flags (its address, its machine's). */
function nodeRegistration(
  api: KubeadmApiVersion,
  node: PlannedNode,
  kubeletArgs: Readonly<Record<string, string>>,
): Record<string, unknown> {
  return {
    name: node.name,
    criSocket: node.os === 'linux' ? LINUX_CRI_SOCKET : WINDOWS_CRI_SOCKET,
    ...(api === 'kubeadm.k8s.io/v1beta2' ? {} : { imagePullPolicy: 'IfNotPresent' }),
    kubeletExtraArgs: extraArgs(api, { 'node-ip': node.ip, ...kubeletArgs }),
  };
}

/**
 * The four documents `kubeadm init --config` reads, as plain objects. `kubeletArgs` are the
 * control plane's machine flags (a namespace node's cgroup root): per node, never in the
 * KubeletConfiguration every join downloads.
 */
export function kubeadmInitDocuments(
  plan: LabPlan,
  versions: ComponentVersions,
  kubeletArgs: Readonly<Record<string, string>> = {},
): Record<string, unknown>[] {
  const cp = controlPlaneOf(plan);
  const api = kubeadmApiVersion(versions.kubernetes);
  const namespaceNodes = clusterNeeds(plan).runtime === 'provided';
  const { podCIDR, serviceCIDR, dnsDomain, clusterDNS, apiServerPort, nodePortRange } =
    plan.kubernetes;
  const init = {
    apiVersion: api,
    kind: 'InitConfiguration',
    localAPIEndpoint: { advertiseAddress: cp.ip, bindPort: apiServerPort },
    nodeRegistration: nodeRegistration(api, cp, kubeletArgs),
  };
  const cluster = {
    apiVersion: api,
    kind: 'ClusterConfiguration',
    clusterName: plan.id,
    kubernetesVersion: versions.kubernetes,
    controlPlaneEndpoint: `${cp.ip}:${apiServerPort}`,
    imageRepository: versions.imageRepository,
    networking: { podSubnet: podCIDR, serviceSubnet: serviceCIDR, dnsDomain },
    apiServer: {
      // Namespace nodes: the harness reaches the API server through a relay on its loopback.
      certSANs: [cp.ip, cp.name, ...(namespaceNodes ? ['127.0.0.1'] : [])],
      extraArgs: extraArgs(api, {
        'service-node-port-range': `${nodePortRange.min}-${nodePortRange.max}`,
      }),
    },
    // The harness gives every node the pod CIDR of the plan instead of the allocator's choice.
    // One control plane (controlPlaneOf), so leader election has no rival to arbitrate; with it,
    // a lease renewal slower than its 10 s deadline (QEMU-emulated VMs) made the controller
    // manager exit ("leaderelection lost"), and the workers' TLS bootstrap waited 4 of kubeadm
    // join's 5 minutes for the restarted one to sign their certificates.
    controllerManager: {
      extraArgs: extraArgs(api, { 'allocate-node-cidrs': 'false', 'leader-elect': 'false' }),
    },
    scheduler: { extraArgs: extraArgs(api, { 'leader-elect': 'false' }) },
  };
  const kubelet = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // Namespace nodes have no systemd: containerd and the kubelet use cgroupfs.
    cgroupDriver: namespaceNodes ? 'cgroupfs' : 'systemd',
    clusterDNS: [clusterDNS],
    clusterDomain: dnsDomain,
    ...(namespaceNodes ? { failSwapOn: false } : {}),
  };
  const proxy = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clusterCIDR: podCIDR,
    // nf_conntrack_max is read-only in a network namespace and the hash size is global: a
    // kube-proxy of a namespace node leaves both alone.
    ...(namespaceNodes ? { conntrack: { maxPerCore: 0, min: 0 } } : {}),
  };
  return [init, cluster, kubelet, proxy];
}

/** The file the control plane's `kubeadm init --config` reads. */
export function renderKubeadmInitConfig(
  plan: LabPlan,
  versions: ComponentVersions,
  kubeletArgs: Readonly<Record<string, string>> = {},
): string {
  return kubeadmInitDocuments(plan, versions, kubeletArgs)
    .map((doc) => stringify(doc, { lineWidth: 0 }))
    .join('---\n');
}

/** A worker's JoinConfiguration; the token and CA hash are placeholders the node fills in. */
export function kubeadmJoinDocument(
  plan: LabPlan,
  versions: ComponentVersions,
  node: PlannedNode,
  kubeletArgs: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const cp = controlPlaneOf(plan);
  const api = kubeadmApiVersion(versions.kubernetes);
  return {
    apiVersion: api,
    kind: 'JoinConfiguration',
    discovery: {
      bootstrapToken: {
        apiServerEndpoint: `${cp.ip}:${plan.kubernetes.apiServerPort}`,
        token: JOIN_TOKEN_PLACEHOLDER,
        caCertHashes: [JOIN_CA_HASH_PLACEHOLDER],
      },
    },
    nodeRegistration: nodeRegistration(api, node, kubeletArgs),
  };
}

/** The file a worker's kubeadm-join script completes with the secrets and passes to `kubeadm join`. */
export function renderKubeadmJoinConfig(
  plan: LabPlan,
  versions: ComponentVersions,
  node: PlannedNode,
  kubeletArgs: Readonly<Record<string, string>> = {},
): string {
  return stringify(kubeadmJoinDocument(plan, versions, node, kubeletArgs), { lineWidth: 0 });
}
