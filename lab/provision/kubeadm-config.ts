/**
 * The kubeadm config of the control plane, generated from the plan: InitConfiguration,
 * ClusterConfiguration, KubeletConfiguration and KubeProxyConfiguration in one YAML stream.
 */
import { stringify } from 'yaml';
import { ProvisionError } from './provision-error.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import type { ComponentVersions } from './component-versions.ts';

/** containerd's CRI socket on Linux nodes. */
export const LINUX_CRI_SOCKET = 'unix:///run/containerd/containerd.sock';
/** containerd's CRI pipe on Windows nodes, as `kubeadm join --cri-socket` takes it. */
export const WINDOWS_CRI_SOCKET = 'npipe:////./pipe/containerd-containerd';

export type KubeadmApiVersion = 'kubeadm.k8s.io/v1beta3' | 'kubeadm.k8s.io/v1beta4';

/** kubeadm reads v1beta4 from 1.31 on; 1.30 and older know only v1beta3. */
export function kubeadmApiVersion(kubernetesVersion: string): KubeadmApiVersion {
  const minor = Number(kubernetesVersion.replace(/^v/, '').split('.')[1]);
  return minor >= 31 ? 'kubeadm.k8s.io/v1beta4' : 'kubeadm.k8s.io/v1beta3';
}

/** v1beta3 takes extra args as a map, v1beta4 as a list of name/value pairs. */
function extraArgs(api: KubeadmApiVersion, args: Record<string, string>): unknown {
  return api === 'kubeadm.k8s.io/v1beta3'
    ? args
    : Object.entries(args).map(([name, value]) => ({ name, value }));
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

/** The four documents `kubeadm init --config` reads, as plain objects. */
export function kubeadmInitDocuments(
  plan: LabPlan,
  versions: ComponentVersions,
): Record<string, unknown>[] {
  const cp = controlPlaneOf(plan);
  const api = kubeadmApiVersion(versions.kubernetes);
  const { podCIDR, serviceCIDR, dnsDomain, clusterDNS, apiServerPort, nodePortRange } =
    plan.kubernetes;
  const init = {
    apiVersion: api,
    kind: 'InitConfiguration',
    localAPIEndpoint: { advertiseAddress: cp.ip, bindPort: apiServerPort },
    nodeRegistration: {
      name: cp.name,
      criSocket: LINUX_CRI_SOCKET,
      imagePullPolicy: 'IfNotPresent',
      kubeletExtraArgs: extraArgs(api, { 'node-ip': cp.ip }),
    },
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
      certSANs: [cp.ip, cp.name],
      extraArgs: extraArgs(api, {
        'service-node-port-range': `${nodePortRange.min}-${nodePortRange.max}`,
      }),
    },
    // The harness gives every node the pod CIDR of the plan instead of the allocator's choice.
    controllerManager: { extraArgs: extraArgs(api, { 'allocate-node-cidrs': 'false' }) },
  };
  const kubelet = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cgroupDriver: 'systemd',
    clusterDNS: [clusterDNS],
    clusterDomain: dnsDomain,
  };
  const proxy = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clusterCIDR: podCIDR,
  };
  return [init, cluster, kubelet, proxy];
}

/** The file the control plane's `kubeadm init --config` reads. */
export function renderKubeadmInitConfig(plan: LabPlan, versions: ComponentVersions): string {
  return kubeadmInitDocuments(plan, versions)
    .map((doc) => stringify(doc, { lineWidth: 0 }))
    .join('---\n');
}
