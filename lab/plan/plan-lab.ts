/** The planner: a pure, deterministic function from a spec to a plan (docs/spec.md). */
import { LabSpecError } from '../errors.ts';
import type { LabSpec } from '../spec/lab-spec-schema.ts';
import { boxCatalogue, DEFAULT_BOX } from './boxes.ts';
import {
  checkSpec,
  FIRST_NODE_OFFSET,
  hypervisorsOf,
  NODE_POD_PREFIX,
  placement,
} from './check-spec.ts';
import { formatCidr, nthAddress, parseCidr, subnet, type Cidr } from '../net/ipv4.ts';
import { PLAN_FORMAT, type LabPlan, type PlannedNode } from './lab-plan.ts';
import { stableMac } from './stable-mac.ts';

const NODE_DEFAULTS = {
  linux: { 'control-plane': { cpus: 2, memory: 2048 }, worker: { cpus: 1, memory: 1024 } },
  windows: { 'control-plane': { cpus: 2, memory: 4096 }, worker: { cpus: 2, memory: 4096 } },
} as const;

function cidrOf(text: string): Cidr {
  const cidr = parseCidr(text);
  if (cidr === undefined) throw new Error(`planner got an unchecked CIDR: ${text}`);
  return cidr;
}

/** Turns a validated spec into a plan; throws LabSpecError naming the offending fields. */
export function planLab(spec: LabSpec, source = 'spec'): LabPlan {
  const issues = checkSpec(spec);
  if (issues.length > 0) throw new LabSpecError(source, issues);

  const cluster =
    spec.provider === 'existing'
      ? 'existing'
      : (spec.cluster ?? (spec.provider === 'netns' ? 'emulated' : 'kubeadm'));
  const emulated = cluster === 'emulated';
  const labNet = cidrOf(spec.network.cidr);
  const podNet = cidrOf(spec.kubernetes.podCIDR);
  const serviceNet = cidrOf(spec.kubernetes.serviceCIDR);
  const externalNet = cidrOf(spec.external.cidr);
  const boxes = boxCatalogue(spec.boxes);
  const where = placement(spec);
  const macs = new Set<string>();

  const nodes: PlannedNode[] = spec.nodes.map((node, index) => {
    const defaults = NODE_DEFAULTS[node.os][node.role];
    const guestOs = emulated ? 'linux' : node.os;
    const box = node.box ?? DEFAULT_BOX[guestOs];
    const podCidr = subnet(podNet, NODE_POD_PREFIX, index);
    const mac = stableMac(spec.name, node.name, macs);
    macs.add(mac);
    return {
      name: node.name,
      os: node.os,
      role: node.role,
      hypervisor: where[index]!,
      cpus: node.cpus ?? defaults.cpus,
      memory: node.memory ?? defaults.memory,
      guestOs,
      box,
      boxName: boxes[box]!.name,
      ip: nthAddress(labNet, FIRST_NODE_OFFSET + index),
      mac,
      podCIDR: formatCidr(podCidr),
      podGateway: nthAddress(podCidr, 1),
      index,
    };
  });

  const plan: LabPlan = {
    format: PLAN_FORMAT,
    name: spec.name,
    id: `hl-${spec.name}`,
    prefix: `hl-${spec.name}-`,
    provider: spec.provider,
    cluster,
    emulated,
    kubernetes: {
      version: spec.kubernetes.version,
      podCIDR: formatCidr(podNet),
      serviceCIDR: formatCidr(serviceNet),
      apiServiceIP: nthAddress(serviceNet, 1),
      clusterDNS: nthAddress(serviceNet, 10),
      dnsDomain: spec.kubernetes.dnsDomain,
      nodePortRange: { min: 30000, max: 32767 },
      apiServerPort: 6443,
    },
    cni: {
      plugin: spec.cni.plugin,
      backend: spec.cni.backend,
      vni: 4096,
      port: 4789,
      windowsNetworkName: spec.cni.backend === 'vxlan' ? 'vxlan0' : 'cbr0',
    },
    windows: { dsr: spec.windows.dsr },
    network: {
      cidr: formatCidr(labNet),
      gateway: nthAddress(labNet, 1),
      mode: spec.network.mode,
      ...(spec.network.bridge === undefined ? {} : { bridge: spec.network.bridge }),
    },
    external: {
      cidr: formatCidr(externalNet),
      address: spec.external.target === 'auto' ? nthAddress(externalNet, 1) : spec.external.target,
      managed: spec.external.target === 'auto',
    },
    hypervisors: hypervisorsOf(spec).map((h) => ({
      name: h.name,
      uri: h.uri,
      remote: /^qemu\+(ssh|tcp|tls):\/\/[^/]/.test(h.uri),
      nodes: nodes.filter((n) => n.hypervisor === h.name).map((n) => n.name),
    })),
    nodes,
    ...(spec.kubeconfig === undefined ? {} : { kubeconfig: spec.kubeconfig }),
  };
  return plan;
}

/** The plan as written to plan.json: the same plan always gives the same bytes. */
export function serializePlan(plan: LabPlan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
