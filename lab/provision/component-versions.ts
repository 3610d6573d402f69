/** The exact versions a kubeadm lab installs: the spec's Kubernetes version plus pinned helpers. */
import type { LabPlan } from '../plan/lab-plan.ts';
import type { ComponentVersionOverrides } from '../spec/kubeadm-spec-schema.ts';

export interface ComponentVersions {
  /** `v1.30.4`: kubeadm, kubelet, kubectl, kube-proxy. */
  kubernetes: string;
  /** `1.30`, for the pkgs.k8s.io repository path. */
  kubernetesMinor: string;
  crictl: string;
  flannel: string;
  flannelCniPlugin: string;
  windowsContainerd: string;
  windowsCniPlugins: string;
  /** The sandbox image kubeadm of this version expects; containerd is configured with it. */
  pauseImage: string;
  /** Base image of the Windows HostProcess DaemonSets (the binaries come from the host). */
  hostProcessImage: string;
  imageRepository: string;
}

const vee = (v: string): string => (v.startsWith('v') ? v : `v${v}`);

/** kubeadm's pause image moved to 3.10 with Kubernetes 1.31. */
function pauseTag(minor: number): string {
  return minor >= 31 ? '3.10' : '3.9';
}

/** Resolves the versions for the plan's Kubernetes version, with the spec's overrides. */
export function componentVersions(
  plan: LabPlan,
  overrides: ComponentVersionOverrides = {},
  imageRepository = 'registry.k8s.io',
): ComponentVersions {
  const kubernetes = vee(plan.kubernetes.version);
  const [major = '1', minorText = '0'] = plan.kubernetes.version.split('.');
  const minor = Number(minorText);
  return {
    kubernetes,
    kubernetesMinor: `${major}.${minorText}`,
    crictl: vee(overrides.crictl ?? `${major}.${minorText}.0`),
    flannel: vee(overrides.flannel ?? '0.25.6'),
    flannelCniPlugin: overrides.flannelCniPlugin ?? 'v1.5.1-flannel2',
    windowsContainerd: (overrides.windowsContainerd ?? '1.7.22').replace(/^v/, ''),
    windowsCniPlugins: vee(overrides.windowsCniPlugins ?? '1.5.1'),
    pauseImage: overrides.pauseImage ?? `${imageRepository}/pause:${pauseTag(minor)}`,
    hostProcessImage:
      overrides.hostProcessImage ??
      'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0',
    imageRepository,
  };
}

/** flannel's Linux images at the pinned versions. */
export function flannelImages(versions: ComponentVersions): { flannel: string; cniPlugin: string } {
  return {
    flannel: `docker.io/flannel/flannel:${versions.flannel}`,
    cniPlugin: `docker.io/flannel/flannel-cni-plugin:${versions.flannelCniPlugin}`,
  };
}
