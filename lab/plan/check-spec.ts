/** Semantic checks of a schema-valid spec; each problem names its field path. */
import type { SpecIssue } from '../errors.ts';
import type { LabSpec } from '../spec/lab-spec-schema.ts';
import { boxCatalogue, DEFAULT_BOX } from './boxes.ts';
import { contains, formatCidr, overlaps, parseCidr, size, type Cidr } from '../net/ipv4.ts';
import { outboundNatExceptions } from './outbound-nat.ts';
import { checkWindowsNodes } from './windows-checks.ts';

/** Addresses below this offset on the lab network are left to the gateway and friends. */
export const FIRST_NODE_OFFSET = 10;
/** Every node gets a pod CIDR of this prefix length, as flannel's SubnetLen defaults to. */
export const NODE_POD_PREFIX = 24;

/** The hypervisors of a libvirt spec (one local default when none is listed). */
export function hypervisorsOf(spec: LabSpec): { name: string; uri: string }[] {
  if (spec.provider !== 'libvirt') return [];
  return spec.hypervisors ?? [{ name: 'hv1', uri: 'qemu:///system' }];
}

/** Which hypervisor each node lands on: explicit, else round-robin over the list. */
export function placement(spec: LabSpec): string[] {
  const hypervisors = hypervisorsOf(spec);
  if (hypervisors.length === 0) return spec.nodes.map(() => 'local');
  let next = 0;
  return spec.nodes.map((n) => n.hypervisor ?? hypervisors[next++ % hypervisors.length]!.name);
}

export function checkSpec(spec: LabSpec): SpecIssue[] {
  return [
    ...checkProvider(spec),
    ...checkNodes(spec),
    ...checkNetworks(spec),
    ...checkWindowsNodes(spec),
  ];
}

function checkProvider(spec: LabSpec): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const cluster = spec.cluster ?? (spec.provider === 'netns' ? 'emulated' : 'kubeadm');
  if (spec.provider === 'netns' && cluster === 'kubeadm') {
    spec.nodes.forEach((n, i) => {
      if (n.os === 'windows')
        add(
          `nodes[${i}].os`,
          'netns kubeadm labs run real Linux kubelets in namespaces; a Windows node needs a Windows VM (provider: libvirt)',
        );
    });
    if (spec.cni.plugin !== 'bridge')
      add(
        'cni.plugin',
        "netns kubeadm labs use the CNI bridge plugin (flannel's images cannot be built from Debian): set plugin: bridge",
      );
    if (spec.artifacts === undefined || !('dir' in spec.artifacts))
      add(
        'artifacts',
        'netns kubeadm labs run their nodes from an artifact cache folder: artifacts: { dir: … } (vagrant/artifacts/kubernetes/build.sh fills one)',
      );
    if (spec.kubeadm?.versions.containerd !== undefined)
      add(
        'kubeadm.versions.containerd',
        "namespace nodes run this host's containerd (Debian's package); the pin applies to VMs (provider: libvirt): remove it",
      );
  }
  if (spec.cni.plugin === 'bridge') {
    if (spec.provider !== 'existing' && cluster === 'emulated')
      add('cni.plugin', 'the emulated dataplane emulates flannel; bridge is for kubeadm clusters');
    if (spec.cni.backend !== 'host-gw')
      add(
        'cni.backend',
        'the bridge plugin routes between nodes like host-gw: set backend: host-gw',
      );
    spec.nodes.forEach((n, i) => {
      if (n.os === 'windows' && spec.provider !== 'netns')
        add(`nodes[${i}].os`, 'bridge clusters are Linux only (Windows nodes join flannel)');
    });
  }
  if (spec.provider === 'existing') {
    if (spec.cluster !== undefined)
      add('cluster', 'the existing provider uses the cluster as it is');
    if (spec.nodes.length > 0)
      add('nodes', 'the existing provider finds nodes in the cluster; remove this list');
  } else if (spec.kubeconfig !== undefined) {
    add('kubeconfig', 'only the existing provider reads a kubeconfig');
  }
  if (spec.provider !== 'libvirt') {
    if (spec.hypervisors !== undefined)
      add('hypervisors', `the ${spec.provider} provider uses no hypervisors`);
    if (spec.network.mode === 'bridge')
      add('network.mode', 'bridge mode applies to libvirt labs only');
    spec.nodes.forEach((n, i) => {
      if (n.hypervisor !== undefined)
        add(`nodes[${i}].hypervisor`, 'only libvirt labs place nodes on hypervisors');
    });
  }
  const hypervisors = hypervisorsOf(spec);
  const seen = new Map<string, number>();
  hypervisors.forEach((h, i) => {
    const first = seen.get(h.name);
    if (first !== undefined) add(`hypervisors[${i}].name`, `duplicate of hypervisors[${first}]`);
    else seen.set(h.name, i);
  });
  if (spec.provider === 'libvirt') {
    spec.nodes.forEach((n, i) => {
      if (n.hypervisor !== undefined && !seen.has(n.hypervisor)) {
        add(
          `nodes[${i}].hypervisor`,
          `unknown hypervisor "${n.hypervisor}" (known: ${[...seen.keys()].join(', ')})`,
        );
      }
    });
    const used = new Set(placement(spec));
    if (used.size > 1 && spec.network.mode !== 'bridge') {
      add(
        'network.mode',
        `nodes on ${used.size} hypervisors share the lab network only through a bridge: set mode: bridge and bridge: NAME`,
      );
    }
  }
  if (spec.network.mode === 'bridge' && spec.network.bridge === undefined) {
    add('network.bridge', 'required when network.mode is bridge');
  }
  return issues;
}

function checkNodes(spec: LabSpec): SpecIssue[] {
  if (spec.provider === 'existing') return [];
  const issues: SpecIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const kubeadm = spec.provider === 'libvirt' && (spec.cluster ?? 'kubeadm') === 'kubeadm';
  const boxes = boxCatalogue(spec.boxes);
  const names = new Map<string, number>();
  spec.nodes.forEach((node, i) => {
    const at = `nodes[${i}]`;
    const first = names.get(node.name);
    if (first !== undefined) add(`${at}.name`, `duplicate of nodes[${first}].name "${node.name}"`);
    else names.set(node.name, i);
    if (node.os === 'windows' && node.role === 'control-plane') {
      add(`${at}.role`, 'a Windows node cannot be a control plane; make it a worker');
    }
    const minMemory =
      node.os === 'windows' && kubeadm
        ? 2048
        : node.role === 'control-plane' && kubeadm
          ? 1700
          : 512;
    if (node.memory !== undefined && node.memory < minMemory) {
      add(
        `${at}.memory`,
        `${node.memory} MiB is below the ${minMemory} MiB a ${node.os} ${node.role} needs`,
      );
    }
    if (kubeadm && node.role === 'control-plane' && node.cpus !== undefined && node.cpus < 2) {
      add(`${at}.cpus`, 'kubeadm needs at least 2 CPUs on a control plane');
    }
    const guestOs = kubeadm ? node.os : 'linux';
    const box = node.box ?? DEFAULT_BOX[guestOs];
    const entry = boxes[box];
    if (entry === undefined) {
      const known = Object.keys(boxes).filter((k) => boxes[k]!.os === guestOs);
      add(`${at}.box`, `unknown box "${box}" (known ${guestOs} boxes: ${known.join(', ')})`);
    } else if (entry.os !== guestOs) {
      const why = guestOs === node.os ? '' : ' (an emulated cluster runs every node on Linux)';
      add(`${at}.box`, `box "${box}" carries ${entry.os}, this node needs ${guestOs}${why}`);
    }
  });
  if (spec.nodes.length === 0) add('nodes', 'a lab needs at least one node');
  else if (!spec.nodes.some((n) => n.os === 'linux' && n.role === 'control-plane')) {
    add('nodes', 'no Linux control plane: add a node with os: linux, role: control-plane');
  }
  return issues;
}

function checkNetworks(spec: LabSpec): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const fields: [string, string][] = [
    ['network.cidr', spec.network.cidr],
    ['kubernetes.podCIDR', spec.kubernetes.podCIDR],
    ['kubernetes.serviceCIDR', spec.kubernetes.serviceCIDR],
    ['external.cidr', spec.external.cidr],
  ];
  const parsed: [string, Cidr][] = [];
  for (const [path, text] of fields) {
    const cidr = parseCidr(text);
    if (cidr === undefined) continue;
    if (cidr.hostBitsSet) add(path, `${text} has host bits set; did you mean ${formatCidr(cidr)}?`);
    else parsed.push([path, cidr]);
  }
  // The external target against an OutBoundNAT exception has its own, more telling message.
  const exceptions = natExceptions(spec);
  const natChecked = (pa: string, a: Cidr, pb: string) =>
    pb.startsWith('external.') && exceptions.includes(formatCidr(a)) && pa !== 'external.cidr';
  for (let i = 0; i < parsed.length; i++) {
    for (let j = i + 1; j < parsed.length; j++) {
      const [pa, a] = parsed[i]!;
      const [pb, b] = parsed[j]!;
      if (overlaps(a, b) && !natChecked(pa, a, pb))
        add(pb, `${formatCidr(b)} overlaps ${pa} ${formatCidr(a)}`);
    }
  }
  const byPath = new Map(parsed);
  const nodes = spec.nodes.length;
  const pod = byPath.get('kubernetes.podCIDR');
  if (pod !== undefined && spec.provider !== 'existing') {
    if (pod.prefix > NODE_POD_PREFIX) {
      add('kubernetes.podCIDR', `/${pod.prefix} is smaller than one /${NODE_POD_PREFIX} per node`);
    } else if (2 ** (NODE_POD_PREFIX - pod.prefix) < nodes) {
      add(
        'kubernetes.podCIDR',
        `${formatCidr(pod)} holds ${2 ** (NODE_POD_PREFIX - pod.prefix)} node subnets of /${NODE_POD_PREFIX}, the lab has ${nodes} nodes`,
      );
    }
  }
  const service = byPath.get('kubernetes.serviceCIDR');
  if (service !== undefined && service.prefix > 24) {
    add('kubernetes.serviceCIDR', `/${service.prefix} is too small; use /24 or larger`);
  }
  const lab = byPath.get('network.cidr');
  if (lab !== undefined && size(lab) - 1 < FIRST_NODE_OFFSET + nodes) {
    add(
      'network.cidr',
      `${formatCidr(lab)} has no room for ${nodes} nodes from offset ${FIRST_NODE_OFFSET}`,
    );
  }
  issues.push(...checkNatExceptions(spec, exceptions));
  const target = spec.external.target;
  if (target !== 'auto') {
    for (const [path, cidr] of parsed) {
      if (
        path !== 'external.cidr' &&
        contains(cidr, target) &&
        !natChecked(path, cidr, 'external.target')
      ) {
        add(
          'external.target',
          `${target} is inside ${path} ${formatCidr(cidr)}; it must be outside the cluster`,
        );
      }
    }
  }
  return issues;
}

/** The OutBoundNAT ExceptionList of the lab's Windows nodes (none without Windows nodes), normalized. */
function natExceptions(spec: LabSpec): string[] {
  if (!spec.nodes.some((n) => n.os === 'windows')) return [];
  return outboundNatExceptions({
    podCIDR: spec.kubernetes.podCIDR,
    serviceCIDR: spec.kubernetes.serviceCIDR,
    labCIDR: spec.network.cidr,
    backend: spec.cni.backend,
  }).flatMap((text) => {
    const cidr = parseCidr(text);
    return cidr === undefined ? [] : [formatCidr(cidr)];
  });
}

/** Windows pods must reach the external target through outbound NAT: outside every ExceptionList. */
function checkNatExceptions(spec: LabSpec, exceptions: readonly string[]): SpecIssue[] {
  const external = parseCidr(spec.external.cidr);
  const target = spec.external.target;
  return exceptions.flatMap((text): SpecIssue[] => {
    const exception = parseCidr(text);
    if (exception === undefined || external === undefined) return [];
    const why = `Windows pods reach ${formatCidr(exception)} un-NATed (OutBoundNAT ExceptionList), so outbound-NAT probes there would not test NAT`;
    if (target !== 'auto') {
      return contains(exception, target)
        ? [{ path: 'external.target', message: `${target}: ${why}` }]
        : [];
    }
    return overlaps(exception, external)
      ? [{ path: 'external.cidr', message: `${formatCidr(external)}: ${why}` }]
      : [];
  });
}
