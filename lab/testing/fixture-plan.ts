/** A small valid netns LabPlan for tests, built without the planner. */
import type { CniBackend, LabPlan, NodeOs, NodeRole, PlannedNode } from '../plan/lab-plan.ts';
import { PLAN_FORMAT } from '../plan/lab-plan.ts';

export interface FixtureNode {
  name: string;
  os: NodeOs;
  role: NodeRole;
}

export interface FixtureOptions {
  /** Lab id; also the name prefix (`<id>-`). Default `hl-t1`. */
  id?: string;
  backend?: CniBackend;
  nodes?: FixtureNode[];
}

/** 1 Linux control plane, 1 Linux worker, 2 Windows workers. */
export const HYBRID_NODES: FixtureNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane' },
  { name: 'lin1', os: 'linux', role: 'worker' },
  { name: 'win1', os: 'windows', role: 'worker' },
  { name: 'win2', os: 'windows', role: 'worker' },
];

const hex = (n: number): string => n.toString(16).padStart(2, '0');

/** Lab network 192.168.200.0/24 (gateway .1, nodes from .10), node i gets 10.244.i.0/24. */
export function fixturePlan(options: FixtureOptions = {}): LabPlan {
  const id = options.id ?? 'hl-t1';
  const backend = options.backend ?? 'vxlan';
  const nodes: PlannedNode[] = (options.nodes ?? HYBRID_NODES).map((node, index) => ({
    name: node.name,
    os: node.os,
    role: node.role,
    hypervisor: 'local',
    cpus: 1,
    memory: 1024,
    guestOs: 'linux',
    box: node.os === 'windows' ? 'windows-2022' : 'debian-12',
    boxName: node.os === 'windows' ? 'hybrid-lab/windows-2022' : 'hybrid-lab/debian-12',
    ip: `192.168.200.${10 + index}`,
    mac: `52:54:00:c8:00:${hex(10 + index)}`,
    podCIDR: `10.244.${index}.0/24`,
    podGateway: `10.244.${index}.1`,
    index,
  }));
  return {
    format: PLAN_FORMAT,
    name: id.replace(/^hl-/, ''),
    id,
    prefix: `${id}-`,
    provider: 'netns',
    cluster: 'emulated',
    emulated: true,
    kubernetes: {
      version: '1.30.4',
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      apiServiceIP: '10.96.0.1',
      clusterDNS: '10.96.0.10',
      dnsDomain: 'cluster.local',
      nodePortRange: { min: 30000, max: 32767 },
      apiServerPort: 6443,
    },
    cni: {
      plugin: 'flannel',
      backend,
      vni: 4096,
      port: 4789,
      windowsNetworkName: backend === 'vxlan' ? 'vxlan0' : 'cbr0',
    },
    windows: { dsr: true },
    network: { cidr: '192.168.200.0/24', gateway: '192.168.200.1', mode: 'private' },
    external: { cidr: '198.51.100.0/24', address: '198.51.100.1', managed: true },
    hypervisors: [{ name: 'local', uri: 'netns', remote: false, nodes: nodes.map((n) => n.name) }],
    nodes,
  };
}
