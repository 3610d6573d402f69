/** The exact versions a kubeadm lab installs: the spec's Kubernetes version plus pinned helpers. */
import type { LabPlan } from '../plan/lab-plan.ts';
import { agnhostImagesOf, type KubeadmSpec } from '../spec/kubeadm-spec-schema.ts';

/** The image of the cluster DNS stand-in `vagrant/artifacts/kubernetes/build.sh` builds. */
export const HL_CLUSTER_DNS_IMAGE = 'hybrid-lab/cluster-dns:0.2.0';

export interface ComponentVersions {
  /** `v1.30.4`: kubeadm, kubelet, kubectl, kube-proxy. */
  kubernetes: string;
  /** `1.30`, for the pkgs.k8s.io repository path. */
  kubernetesMinor: string;
  crictl: string;
  flannel: string;
  flannelCniPlugin: string;
  /**
   * containerd per OS, without a `v`: the spec's `kubeadm.versions.containerd` on both; unset,
   * Linux keeps Debian's package (undefined) and Windows gets 1.7.22.
   */
  containerd: { linux: string | undefined; windows: string };
  windowsCniPlugins: string;
  /** The sandbox image kubeadm of this version expects; containerd is configured with it. */
  pauseImage: string;
  /** Base image of the Windows HostProcess DaemonSets (the binaries come from the host). */
  hostProcessImage: string;
  imageRepository: string;
  /** The cluster DNS: kubeadm's CoreDNS addon, or the hl-cluster-dns stand-in's image. */
  clusterDns: { kind: 'coredns' } | { kind: 'hl-cluster-dns'; image: string };
  /** The agnhost image per OS the nodes import for the suite, where the spec names one. */
  agnhostImages: Partial<Record<'linux' | 'windows', string>>;
  /** Linux nodes import the images of the cache's e2e/images.txt (upstream's e2e.test). */
  e2eImages?: boolean;
}

const vee = (v: string): string => (v.startsWith('v') ? v : `v${v}`);

/** The pause tag kubeadm of each minor version lists (`kubeadm config images list`). */
function pauseTag(minor: number): string {
  const byMinor: Record<number, string> = {
    20: '3.2',
    21: '3.4.1',
    22: '3.5',
    23: '3.6',
    24: '3.7',
    25: '3.8',
  };
  return byMinor[minor] ?? (minor < 20 ? '3.2' : minor >= 31 ? '3.10' : '3.9');
}

/** kubeadm's default registry: k8s.gcr.io until 1.24, registry.k8s.io from 1.25. */
function defaultImageRepository(minor: number): string {
  return minor < 25 ? 'k8s.gcr.io' : 'registry.k8s.io';
}

/** Resolves the versions for the plan's Kubernetes version, with the spec's `kubeadm` settings. */
export function componentVersions(
  plan: LabPlan,
  kubeadm: Partial<
    Pick<KubeadmSpec, 'versions' | 'imageRepository' | 'clusterDns' | 'agnhostImage' | 'e2eImages'>
  > = {},
): ComponentVersions {
  const overrides = kubeadm.versions ?? {};
  const kubernetes = vee(plan.kubernetes.version);
  const [major = '1', minorText = '0'] = plan.kubernetes.version.split('.');
  const minor = Number(minorText);
  const imageRepository = kubeadm.imageRepository ?? defaultImageRepository(minor);
  return {
    kubernetes,
    kubernetesMinor: `${major}.${minorText}`,
    crictl: vee(overrides.crictl ?? `${major}.${minorText}.0`),
    flannel: vee(overrides.flannel ?? '0.25.6'),
    flannelCniPlugin: overrides.flannelCniPlugin ?? 'v1.5.1-flannel2',
    containerd: {
      linux: overrides.containerd?.replace(/^v/, ''),
      windows: (overrides.containerd ?? '1.7.22').replace(/^v/, ''),
    },
    windowsCniPlugins: vee(overrides.windowsCniPlugins ?? '1.5.1'),
    pauseImage: overrides.pauseImage ?? `${imageRepository}/pause:${pauseTag(minor)}`,
    hostProcessImage:
      overrides.hostProcessImage ??
      'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0',
    imageRepository,
    clusterDns:
      kubeadm.clusterDns === 'hl-cluster-dns'
        ? { kind: 'hl-cluster-dns', image: HL_CLUSTER_DNS_IMAGE }
        : { kind: 'coredns' },
    agnhostImages: agnhostImagesOf(kubeadm.agnhostImage),
    ...(kubeadm.e2eImages === true ? { e2eImages: true } : {}),
  };
}

/** flannel's Linux images at the pinned versions. */
export function flannelImages(versions: ComponentVersions): { flannel: string; cniPlugin: string } {
  return {
    flannel: `docker.io/flannel/flannel:${versions.flannel}`,
    cniPlugin: `docker.io/flannel/flannel-cni-plugin:${versions.flannelCniPlugin}`,
  };
}
