/** The deterministic plan a spec turns into; every provider and the Vagrantfile read only this. */

export type NodeOs = 'linux' | 'windows';
export type NodeRole = 'control-plane' | 'worker';
export type ProviderName = 'netns' | 'libvirt' | 'existing';
export type ClusterMode = 'emulated' | 'kubeadm' | 'existing';
export type CniBackend = 'vxlan' | 'host-gw';

/** Bumped whenever the plan's shape changes, so a stale plan.json is never misread. */
export const PLAN_FORMAT = 2;

export interface PlannedNode {
  /** DNS label, unique in the lab; also the Kubernetes node name. */
  name: string;
  os: NodeOs;
  role: NodeRole;
  /** Name of the hypervisor entry this node runs on (libvirt), or "local". */
  hypervisor: string;
  cpus: number;
  /** MiB. */
  memory: number;
  /** The OS the VM really runs: linux for every node of an emulated cluster. */
  guestOs: NodeOs;
  /** Key of the box in the catalogue. */
  box: string;
  /** The Vagrant box that key names. */
  boxName: string;
  /** Address on the lab network. */
  ip: string;
  /** Stable MAC of the lab-network NIC (QEMU's 52:54:00 prefix). */
  mac: string;
  /** The /24 (or smaller) slice of the cluster pod CIDR this node hands out. */
  podCIDR: string;
  /** First address of podCIDR: the node's cni0 bridge. */
  podGateway: string;
  /** Position in the spec; used for stable per-node numbering. */
  index: number;
}

export interface PlannedHypervisor {
  name: string;
  uri: string;
  /** True when the URI reaches another host (qemu+ssh:// and friends). */
  remote: boolean;
  nodes: string[];
}

export interface LabPlan {
  format: typeof PLAN_FORMAT;
  /** The lab's name from the spec. */
  name: string;
  /** Stamped on every resource the lab creates (netns prefix, domain metadata, k8s label). */
  id: string;
  /** Prefix of every host-level resource name (network namespaces, libvirt domains). */
  prefix: string;
  provider: ProviderName;
  cluster: ClusterMode;
  /** True when the dataplane is emulated, so every result must say so. */
  emulated: boolean;
  kubernetes: {
    version: string;
    podCIDR: string;
    serviceCIDR: string;
    /** First address of the service CIDR: the `kubernetes` Service. */
    apiServiceIP: string;
    /** Tenth address of the service CIDR, as kubeadm assigns it. */
    clusterDNS: string;
    dnsDomain: string;
    nodePortRange: { min: number; max: number };
    apiServerPort: number;
  };
  cni: {
    /** flannel, or bridge: the CNI bridge plugin with host-gw routes between nodes. */
    plugin: 'flannel' | 'bridge';
    backend: CniBackend;
    /** VXLAN network identifier; 4096 so Windows nodes can join. */
    vni: number;
    /** VXLAN UDP port; 4789 so Windows nodes can join. */
    port: number;
    /** Name of the network Windows kube-proxy must use (KUBE_NETWORK). */
    windowsNetworkName: string;
  };
  /** How Windows nodes' kube-proxy runs. */
  windows: {
    /**
     * Direct server return (kube-proxy --enable-dsr, feature gate WinDSR): the node's load
     * balancer keeps the client's address, so externalTrafficPolicy Local works as on Linux.
     * Off, a Windows node SNATs it (a documented limitation).
     */
    dsr: boolean;
  };
  network: {
    /** The lab network every node has a NIC on. */
    cidr: string;
    /** The hypervisor host's address on the lab network (default route of the nodes). */
    gateway: string;
    mode: 'private' | 'bridge';
    bridge?: string;
  };
  /** Where outbound-NAT probes go and what stands in for "the outside world". */
  external: {
    cidr: string;
    /** The address the external echo server listens on. */
    address: string;
    /** True when the harness runs that echo itself (target: auto). */
    managed: boolean;
  };
  hypervisors: PlannedHypervisor[];
  nodes: PlannedNode[];
  /** Path to the kubeconfig of an existing cluster (provider existing). */
  kubeconfig?: string;
}
