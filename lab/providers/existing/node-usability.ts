/**
 * Which nodes a run can put its pods on, and why each other one is left out: not chosen
 * (NODES, NODE_SELECTOR), not Ready, cordoned, a taint the suite's pods do not tolerate, no
 * address, no HostProcess on a Windows node, no variant of the Windows image for its build. The
 * run goes on over the rest; the cells that need
 * a left-out node are skipped naming it and this reason.
 */
import type { Os } from '../../contracts/cells.ts';
import { WINDOWS_VERSION_FLOORS } from '../../plan/windows-checks.ts';
import { selects, taintText, tolerates, type NodeFilter, type Toleration } from './node-filter.ts';

/** The fields of a Node object the choice reads; a client-node V1Node has them. */
export interface NodeObject {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: {
    unschedulable?: boolean;
    taints?: { key: string; value?: string; effect: string }[];
  };
  status?: {
    addresses?: { type: string; address: string }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    nodeInfo?: { kubeletVersion: string; containerRuntimeVersion: string };
  };
}

export const OS_LABEL = 'kubernetes.io/os';
/** The Windows build a node runs (`10.0.20348`), set by the kubelet on Windows nodes. */
export const WINDOWS_BUILD_LABEL = 'node.kubernetes.io/windows-build';

/**
 * What every suite pod of an OS tolerates before TOLERATIONS: control-plane nodes (tainted
 * `master` before 1.24, `control-plane` from then), and Windows nodes tainted `os=windows`, as
 * sig-windows' guides taint them, or `os=Windows`, as OpenShift's Windows Machine Config Operator
 * does (https://docs.openshift.com/container-platform/4.16/windows_containers/scheduling-windows-workloads.html).
 */
export const SUITE_TOLERATIONS: Readonly<Record<Os, readonly Toleration[]>> = {
  linux: [
    { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
  ],
  windows: [
    { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
    { key: 'os', operator: 'Equal', value: 'Windows', effect: 'NoSchedule' },
  ],
};

/** The tolerations of every suite pod of `os`: its own and the user's (TOLERATIONS). */
export function suiteTolerations(os: Os, extra: readonly Toleration[] = []): Toleration[] {
  return [...SUITE_TOLERATIONS[os], ...extra];
}

export interface NodeChoice extends NodeFilter {
  /** TOLERATIONS. */
  tolerations?: readonly Toleration[];
  /**
   * The suite's Windows image and the builds its variants are for (`10.0.20348.2582`, … from its
   * index); unset when they could not be read, and then no node is judged by them.
   */
  windowsImage?: { image: string; variants: readonly string[] };
}

/** Whether a variant of `os.version` (`10.0.20348.2582`) runs on a node of build `10.0.20348`. */
function variantFits(build: string, variant: string): boolean {
  return variant === build || variant.startsWith(`${build}.`);
}

/**
 * Why the Windows image cannot run on the node: a process-isolated Windows container starts only
 * on a host of its own build (windows-facts.ts, `container-build-must-match-host`).
 */
function noImageVariant(node: NodeObject, image: NodeChoice['windowsImage']): string | undefined {
  const build = node.metadata?.labels?.[WINDOWS_BUILD_LABEL];
  if (image === undefined || build === undefined) return undefined;
  if (image.variants.some((v) => variantFits(build, v))) return undefined;
  const has =
    image.variants.length === 0
      ? 'no Windows variant'
      : `variants for ${image.variants.join(', ')} only`;
  return `runs Windows build ${build}, and ${image.image} has ${has}: a Windows container starts only on its own build (AGNHOST_IMAGE_WINDOWS to name an image that has one)`;
}

/** A node the run does not use, and why, as a phrase after its name. */
export interface LeftOutNode {
  name: string;
  /** `unknown` for a node of another OS, or without the label. */
  os: Os | 'unknown';
  why: string;
}

/** `lin2 has taint …`: the node and why it is left out, as skip reasons and logs say it. */
export function leftOutText(node: LeftOutNode): string {
  return `${node.name} ${node.why}`;
}

/** `v1.30.4`, `1.23.17-eks-…` → [1, 30]; undefined when it is no version. */
export function minorVersion(version: string | undefined): [number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

/** Whether `version` is below `floor` (`1.23`); an unknown version is not. */
export function belowVersion(version: string | undefined, floor: string): boolean {
  const have = minorVersion(version);
  const [major, minor] = minorVersion(floor)!;
  if (have === undefined) return false;
  return have[0] < major || (have[0] === major && have[1] < minor);
}

const HOSTPROCESS = WINDOWS_VERSION_FLOORS.find((f) => f.fact === 'hostprocess-version-floor')!;
/** HostProcess containers need containerd 1.6 or later (the same catalogue row). */
const HOSTPROCESS_CONTAINERD = '1.6';

/** Why a Windows node cannot run the suite's HostProcess pod, or undefined. */
function noHostProcess(node: NodeObject): string | undefined {
  const info = node.status?.nodeInfo;
  if (info === undefined) return undefined;
  if (belowVersion(info.kubeletVersion, HOSTPROCESS.since))
    return `runs kubelet ${info.kubeletVersion}; the suite's HostProcess pods need ${HOSTPROCESS.since} or later`;
  const [runtime, version] = info.containerRuntimeVersion.split('://');
  if (runtime !== 'containerd')
    return `runs ${info.containerRuntimeVersion}; the suite's HostProcess pods need containerd ${HOSTPROCESS_CONTAINERD} or later`;
  if (belowVersion(version, HOSTPROCESS_CONTAINERD))
    return `runs containerd ${version}; the suite's HostProcess pods need ${HOSTPROCESS_CONTAINERD} or later`;
  return undefined;
}

/** Why the node is not Ready or cordoned, or undefined. */
export function notSchedulable(node: NodeObject): string | undefined {
  const name = node.metadata?.name ?? '';
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready === undefined) return 'has no Ready condition yet';
  if (ready.status !== 'True') {
    const why = [ready.reason, ready.message].filter(Boolean).join(': ');
    return `is not Ready (Ready=${ready.status}${why === '' ? '' : `: ${why}`})`;
  }
  if (node.spec?.unschedulable === true)
    return `is cordoned (spec.unschedulable; kubectl uncordon ${name} to use it)`;
  return undefined;
}

/** Why the node is left out, or undefined when the run can use it. */
export function leftOutBecause(node: NodeObject, choice: NodeChoice): string | undefined {
  const name = node.metadata?.name ?? '';
  const labels = node.metadata?.labels ?? {};
  const os = labels[OS_LABEL];
  if (choice.names !== undefined && !choice.names.includes(name))
    return `is not in NODES=${choice.names.join(',')}`;
  if (choice.selector !== undefined && !selects(choice.selector.terms, labels))
    return `is not selected by NODE_SELECTOR=${choice.selector.text}`;
  if (os !== 'linux' && os !== 'windows')
    return `has ${OS_LABEL}=${os ?? '(none)'}; the suite runs on linux and windows nodes`;
  const unschedulable = notSchedulable(node);
  if (unschedulable !== undefined) return unschedulable;
  const tolerations = suiteTolerations(os, choice.tolerations);
  const untolerated = (node.spec?.taints ?? []).filter(
    (t) => t.effect !== 'PreferNoSchedule' && !tolerations.some((tol) => tolerates(tol, t)),
  );
  if (untolerated.length > 0) {
    const taints = untolerated.map(taintText).join(', ');
    return `has taint${untolerated.length === 1 ? '' : 's'} ${taints}, which the suite's pods do not tolerate (TOLERATIONS to add ${untolerated.length === 1 ? 'one' : 'them'})`;
  }
  if (!(node.status?.addresses ?? []).some((a) => a.type === 'InternalIP'))
    return `reports no InternalIP address (kubectl get node ${name} -o jsonpath='{.status.addresses}')`;
  if (os !== 'windows') return undefined;
  // The kubelet is never newer than the API server: its version bounds both.
  return noHostProcess(node) ?? noImageVariant(node, choice.windowsImage);
}

/** The nodes a run can use, and those it leaves out with why; names that match no node too. */
export function chooseNodes<N extends NodeObject>(
  nodes: readonly N[],
  choice: NodeChoice,
): { usable: N[]; leftOut: LeftOutNode[]; unknownNames: string[] } {
  const usable: N[] = [];
  const leftOut: LeftOutNode[] = [];
  for (const node of nodes) {
    const why = leftOutBecause(node, choice);
    if (why === undefined) {
      usable.push(node);
      continue;
    }
    const os = node.metadata?.labels?.[OS_LABEL];
    leftOut.push({
      name: node.metadata?.name ?? '(unnamed)',
      os: os === 'linux' || os === 'windows' ? os : 'unknown',
      why,
    });
  }
  const known = new Set(nodes.map((n) => n.metadata?.name));
  const unknownNames = (choice.names ?? []).filter((n) => !known.has(n));
  return { usable, leftOut, unknownNames };
}
