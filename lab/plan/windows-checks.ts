/**
 * What a kubeadm lab's Windows nodes need of the spec: a Kubernetes version that has every Windows
 * feature the provisioning uses, and images that carry a Windows variant. The floors are rows of
 * the Windows facts catalogue (lab/provision/windows-facts.ts), which names their sources.
 */
import type { SpecIssue } from '../errors.ts';
import { agnhostImagesOf } from '../spec/kubeadm-spec-schema.ts';
import type { LabSpec } from '../spec/lab-spec-schema.ts';

/** A Windows feature the lab relies on, and the first Kubernetes minor that has it as used here. */
export interface WindowsVersionFloor {
  /** The facts catalogue's row (lab/provision/windows-facts.ts) that says why, with its sources. */
  fact: string;
  /** What needs it, as the planner's error names it. */
  feature: string;
  /** `1.23`: major.minor. */
  since: string;
  /** Which labs rely on it: every one with a Windows kubeadm node, or those with windows.dsr too. */
  usedWhen: 'windows-node' | 'windows-dsr';
}

export const WINDOWS_VERSION_FLOORS: readonly WindowsVersionFloor[] = [
  {
    fact: 'hostprocess-version-floor',
    feature: 'HostProcess containers (flannel, kube-proxy and the suite on Windows nodes)',
    since: '1.23',
    usedWhen: 'windows-node',
  },
  {
    fact: 'kubelet-pki-path-floor',
    feature: "kubelet's absolute CA path under C:\\etc\\kubernetes\\pki (kubeadm's layout)",
    since: '1.23',
    usedWhen: 'windows-node',
  },
  {
    fact: 'windsr-version-floor',
    feature: 'kube-proxy --enable-dsr with the WinDSR feature gate (windows.dsr)',
    since: '1.14',
    usedWhen: 'windows-dsr',
  },
];

/** Images the artifact recipe builds (vagrant/artifacts/kubernetes/build.sh): linux/amd64 only. */
export const LINUX_ONLY_IMAGE_PREFIX = 'hybrid-lab/';

/** `1.23.4` → [1, 23]. */
function minorOf(version: string): [number, number] {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return [major, minor];
}

function below(version: string, floor: string): boolean {
  const [a, b] = minorOf(version);
  const [c, d] = minorOf(floor);
  return a < c || (a === c && b < d);
}

/** The floors a kubeadm lab with Windows nodes relies on, given whether it turns on DSR. */
export function floorsFor(windowsDsr: boolean): WindowsVersionFloor[] {
  return WINDOWS_VERSION_FLOORS.filter((f) => f.usedWhen === 'windows-node' || windowsDsr);
}

/** The floors above `version`, and the message naming them (undefined when none is). */
export function floorsMissing(
  version: string,
  windowsDsr: boolean,
): { floors: WindowsVersionFloor[]; message: string } | undefined {
  const floors = floorsFor(windowsDsr).filter((f) => below(version, f.since));
  if (floors.length === 0) return undefined;
  const floor = floors.map((f) => f.since).sort((a, b) => (below(a, b) ? 1 : -1))[0]!;
  const what = floors.map((f) => `${f.feature}: ${f.since}`).join('; ');
  return { floors, message: `Windows nodes need Kubernetes >= ${floor} (${what}), got ${version}` };
}

/** Problems of a spec's Windows kubeadm nodes, each naming its field. */
export function checkWindowsNodes(spec: LabSpec): SpecIssue[] {
  const kubeadm = spec.provider === 'libvirt' && (spec.cluster ?? 'kubeadm') === 'kubeadm';
  if (!kubeadm || !spec.nodes.some((n) => n.os === 'windows')) return [];
  const issues: SpecIssue[] = [];
  const missing = floorsMissing(spec.kubernetes.version, spec.windows.dsr);
  if (missing !== undefined) issues.push({ path: 'kubernetes.version', message: missing.message });
  const image = spec.kubeadm?.agnhostImage;
  const windows = agnhostImagesOf(image).windows;
  if (windows?.startsWith(LINUX_ONLY_IMAGE_PREFIX) === true) {
    issues.push({
      path: typeof image === 'string' ? 'kubeadm.agnhostImage' : 'kubeadm.agnhostImage.windows',
      message: `${windows} is built by vagrant/artifacts/kubernetes/build.sh for Linux only; Windows nodes need an image with a windows/amd64 variant: give { linux: ${agnhostImagesOf(image).linux ?? windows}, windows: <a Windows agnhost image> }`,
    });
  }
  return issues;
}
