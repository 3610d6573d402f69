/**
 * The artifact cache layout: exactly which files an offline kubeadm lab needs for its versions,
 * relative to the cache root, each with where to get it.
 */
import type { LabPlan, NodeOs, NodeRole } from '../plan/lab-plan.ts';
import { flannelImages, type ComponentVersions } from './component-versions.ts';

export type ArtifactKind = 'file' | 'deb' | 'image';

export interface Artifact {
  kind: ArtifactKind;
  /** Path below the cache root, `/`-separated; for a deb, the package name. */
  path: string;
  /** What needs it, in a few words. */
  what: string;
  /** Where to get it when staging, for a person. */
  from: string;
  /** The address that serves exactly this file: what a node without a cache downloads. */
  url?: string;
  /** Further addresses serving the same file, tried in order when `url` fails. */
  mirrors?: readonly string[];
  /** An archive's member the installing script takes out (`nssm-2.24/win64/nssm.exe`). */
  member?: string;
}

/** Debian packages of Linux nodes; the cache holds them with a Packages index (a flat repo). */
export const DEBIAN_REPO_DIR = 'debian/bookworm/amd64';
export const DEBIAN_PACKAGES = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'conntrack',
  'socat',
  'ethtool',
  'iptables',
  // The nodes fetch binaries with curl when the cache is a URL; minimal boxes lack it.
  'curl',
] as const;

/** The containerd of Debian bookworm's package, which Linux nodes run unless the spec pins one. */
export const DEBIAN_CONTAINERD = '1.6.20';

/** The Debian packages Linux nodes install: containerd among them only when the spec pins none. */
export function debianPackages(v: ComponentVersions): string[] {
  return DEBIAN_PACKAGES.filter((p) => p !== 'containerd' || v.containerd.linux === undefined);
}

const DL_K8S = 'https://dl.k8s.io/release';
/** The nssm 2.24 zip on the mirror sig-windows-tools' PrepareNode.ps1 downloads it from. */
export const NSSM_MIRROR =
  'https://k8stestinfrabinaries.blob.core.windows.net/nssm-mirror/nssm-2.24.zip';
const GITHUB = 'https://github.com';

/** Upstream's containerd release for `os`: always on Windows, on Linux only for a pinned version. */
export function containerdRelease(os: NodeOs, version: string): Artifact {
  const file = `containerd-${version}-${os}-amd64.tar.gz`;
  return {
    kind: 'file',
    path: `containerd/v${version}/${file}`,
    what: `containerd ${version} for ${os === 'linux' ? 'Linux' : 'Windows'}`,
    from: `${GITHUB}/containerd/containerd/releases/download/v${version}/${file}`,
    url: `${GITHUB}/containerd/containerd/releases/download/v${version}/${file}`,
  };
}

/** `registry.k8s.io/pause:3.9` → `images/linux/registry.k8s.io_pause_3.9.tar`. */
export function imageTarball(os: NodeOs, ref: string): string {
  return `images/${os}/${ref.replace(/[/:@]/g, '_')}.tar`;
}

/**
 * Upstream's e2e suite in the cache (vagrant/artifacts/kubernetes/e2e.sh): e2e.test and ginkgo,
 * KUBE_TEST_REPO_LIST, and the images its network tests run (`<lab ref> <upstream ref>` lines).
 */
export const E2E_ARTIFACTS = {
  e2eTest: 'e2e/linux/amd64/e2e.test',
  ginkgo: 'e2e/linux/amd64/ginkgo',
  repoList: 'e2e/repo-list.yaml',
  images: 'e2e/images.txt',
} as const;

/** The lab's image references of an `e2e/images.txt`. */
export function e2eImageRefs(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((ref) => ref !== '' && !ref.startsWith('#'));
}

/** `kubernetes/v1.20.2/linux/amd64/kubectl`: a Kubernetes binary in the cache. */
export function kubernetesBinary(v: Pick<ComponentVersions, 'kubernetes'>, bin: string): string {
  return `kubernetes/${v.kubernetes}/linux/amd64/${bin}`;
}

/** The list kubeadm prints for this version; the cache holds it so image tags are never guessed. */
export function kubeadmImageList(v: ComponentVersions): string {
  return `kubernetes/${v.kubernetes}/images.txt`;
}

/** What a lab's Linux nodes get from the cache, beyond kubeadm's own images. */
export interface ClusterNeeds {
  /**
   * install: VMs install containerd, runc and the CNI plugins from Debian packages (containerd
   * from upstream's release when the spec pins it); provided: the provider runs them (namespace
   * nodes).
   */
  runtime: 'install' | 'provided';
  cni: LabPlan['cni']['plugin'];
}

/** What the plan's Linux nodes need: packages only where the provisioner installs the runtime. */
export function clusterNeeds(plan: LabPlan): ClusterNeeds {
  return { runtime: plan.provider === 'netns' ? 'provided' : 'install', cni: plan.cni.plugin };
}

/** kubeadm's listed images a cluster uses: CoreDNS's only when CoreDNS is its DNS. */
export function kubeadmImagesUsed(listed: readonly string[], v: ComponentVersions): string[] {
  return v.clusterDns.kind === 'coredns'
    ? [...listed]
    : listed.filter((r) => !/\/coredns:/.test(r));
}

/** Images of `kubeadm config images list` that a node of `role` imports. */
export function kubeadmImagesFor(
  role: NodeRole,
  listed: readonly string[],
  v: ComponentVersions,
): string[] {
  const used = kubeadmImagesUsed(listed, v);
  return role === 'control-plane' ? used : used.filter((r) => /\/(kube-proxy|pause):/.test(r));
}

/** Images every Linux node imports besides kubeadm's: CNI, the DNS stand-in, the suite's agnhost. */
export function extraLinuxImages(v: ComponentVersions, needs: Pick<ClusterNeeds, 'cni'>): string[] {
  return [
    ...(needs.cni === 'flannel' ? Object.values(flannelImages(v)) : []),
    ...(v.clusterDns.kind === 'hl-cluster-dns' ? [v.clusterDns.image] : []),
    ...(v.agnhostImages.linux === undefined ? [] : [v.agnhostImages.linux]),
  ];
}

const BUILD_FROM_DEBIAN =
  "bash vagrant/artifacts/kubernetes/build.sh (Kubernetes 1.20.2 from Debian's source)";

function linuxFiles(v: ComponentVersions, needs: ClusterNeeds): Artifact[] {
  const k = v.kubernetes;
  const bins = ['kubeadm', 'kubelet', 'kubectl'].map((bin): Artifact => ({
    kind: 'file',
    path: kubernetesBinary(v, bin),
    what: `${bin} for Kubernetes ${k}`,
    from: `${DL_K8S}/${k}/bin/linux/amd64/${bin}, or ${BUILD_FROM_DEBIAN}`,
  }));
  const debs = debianPackages(v).map((pkg): Artifact => ({
    kind: 'deb',
    path: pkg,
    what: `Debian package ${pkg} (with a Packages index) in ${DEBIAN_REPO_DIR}`,
    from: 'vagrant/scripts/linux/stage-debian-packages.sh on a Debian bookworm host',
  }));
  const tarball = `crictl-${v.crictl}-linux-amd64.tar.gz`;
  const images = extraLinuxImages(v, needs).map((ref): Artifact => ({
    kind: 'image',
    path: imageTarball('linux', ref),
    what: `image ${ref}`,
    from: ref.startsWith('hybrid-lab/')
      ? BUILD_FROM_DEBIAN
      : `ctr -n k8s.io images pull --platform linux/amd64 ${ref} && ctr -n k8s.io images export --platform linux/amd64 FILE ${ref}`,
  }));
  const pinned = v.containerd.linux;
  const runtime = [...debs, ...(pinned === undefined ? [] : [containerdRelease('linux', pinned)])];
  return [
    ...(needs.runtime === 'install' ? runtime : []),
    ...bins,
    {
      kind: 'file',
      path: `kubernetes/${k}/linux/amd64/crictl`,
      what: 'crictl, the CRI client kubeadm runs',
      from: `crictl of https://github.com/kubernetes-sigs/cri-tools/releases/download/${v.crictl}/${tarball}, or ${BUILD_FROM_DEBIAN}`,
    },
    {
      kind: 'file',
      path: kubeadmImageList(v),
      what: `the image list of kubeadm ${k}`,
      from: `kubeadm config images list --kubernetes-version ${k} > images.txt`,
    },
    ...images,
  ];
}

/** Images every Windows node imports: the sandbox, the HostProcess base, the suite's agnhost if named. */
export function windowsImages(v: ComponentVersions): string[] {
  return [
    v.pauseImage,
    v.hostProcessImage,
    ...(v.agnhostImages.windows === undefined ? [] : [v.agnhostImages.windows]),
  ];
}

function windowsFiles(v: ComponentVersions): Artifact[] {
  const k = v.kubernetes;
  /** A file one URL serves as it is, saved under `path`. */
  const file = (
    path: string,
    what: string,
    url: string,
    member?: string,
    mirrors?: readonly string[],
  ): Artifact => ({
    kind: 'file',
    path,
    what,
    from: member === undefined ? url : `${url} (the script takes ${member} out of it)`,
    url,
    ...(member === undefined ? {} : { member }),
    ...(mirrors === undefined ? {} : { mirrors }),
  });
  const bins = ['kubelet', 'kubeadm', 'kubectl', 'kube-proxy'].map((bin) =>
    file(
      `kubernetes/${k}/windows/amd64/${bin}.exe`,
      `${bin}.exe for Kubernetes ${k}`,
      `${DL_K8S}/${k}/bin/windows/amd64/${bin}.exe`,
    ),
  );
  const cni = `cni-plugins-windows-amd64-${v.windowsCniPlugins}.tgz`;
  const fcni = `cni-plugin-flannel-windows-amd64-${v.flannelCniPlugin}.tgz`;
  const images = windowsImages(v).map((ref): Artifact => ({
    kind: 'image',
    path: imageTarball('windows', ref),
    what: `image ${ref}`,
    from: `ctr -n k8s.io images pull --platform windows/amd64 ${ref} && ctr -n k8s.io images export --platform windows/amd64 FILE ${ref}`,
  }));
  return [
    ...bins,
    containerdRelease('windows', v.containerd.windows),
    file(
      `cni-plugins/${v.windowsCniPlugins}/${cni}`,
      `CNI plugins ${v.windowsCniPlugins} (win-overlay, win-bridge)`,
      `${GITHUB}/containernetworking/plugins/releases/download/${v.windowsCniPlugins}/${cni}`,
    ),
    file(
      `flannel-cni-plugin/${v.flannelCniPlugin}/${fcni}`,
      `flannel CNI plugin ${v.flannelCniPlugin} for Windows`,
      `${GITHUB}/flannel-io/cni-plugin/releases/download/${v.flannelCniPlugin}/${fcni}`,
    ),
    file(
      `flannel/${v.flannel}/flanneld.exe`,
      `flanneld ${v.flannel} for Windows`,
      `${GITHUB}/flannel-io/flannel/releases/download/${v.flannel}/flanneld.exe`,
    ),
    file(
      'nssm/2.24/nssm-2.24.zip',
      'nssm 2.24 (runs kubelet as a service)',
      'https://nssm.cc/release/nssm-2.24.zip',
      'nssm-2.24/win64/nssm.exe',
      // nssm.cc is often unreachable; sig-windows-tools downloads the same zip from its mirror.
      [NSSM_MIRROR],
    ),
    ...images,
  ];
}

/** Every artifact nodes of `os` need, in a stable order. */
export function artifactsFor(
  os: NodeOs,
  versions: ComponentVersions,
  needs: ClusterNeeds = { runtime: 'install', cni: 'flannel' },
): Artifact[] {
  return os === 'linux' ? linuxFiles(versions, needs) : windowsFiles(versions);
}

/** Every artifact the plan's nodes need (each once). */
export function artifactsForPlan(plan: LabPlan, versions: ComponentVersions): Artifact[] {
  const oses = [...new Set(plan.nodes.map((n) => n.os))].sort();
  return oses.flatMap((os) => artifactsFor(os, versions, clusterNeeds(plan)));
}
