/**
 * Where a namespace node of a kubeadm netns lab lives on this host, named from the lab id only
 * (so `lab reap` finds everything without state on disk): its mount and UTS namespace pins,
 * its own copies of the paths kubeadm, the kubelet and containerd hard-code, its cgroup root.
 */
import { join } from 'node:path';

/** Namespace pins, one private bind mount per lab: `<root>/<lab id>/<node>.{mnt,uts}`. */
export const PIN_ROOT = '/run/hybrid-lab';
/** Each node's own directories (containerd's images, etcd, the kubelet's pods). */
export const NODE_STATE_ROOT = '/var/lib/hybrid-lab';

/** Paths kubeadm, the kubelet, containerd and CNI use, each given the node's own directory. */
export const NODE_DIRS = [
  '/etc/kubernetes',
  '/etc/containerd',
  '/etc/cni/net.d',
  '/var/lib/kubelet',
  '/var/lib/etcd',
  '/var/lib/containerd',
  '/var/lib/cni',
  '/var/log/pods',
  '/var/log/containers',
  '/usr/libexec/kubernetes',
  // The provisioner's stage folder.
  '/opt/hybrid-lab',
] as const;

/**
 * Global kernel settings the kubelet sets to these values (its setupKernelTunables). Each
 * node's mount namespace has a private file with the value bind-mounted over the entry, so
 * the host's stay as they are (kernel.panic_on_oops=1 would turn any oops into a reboot).
 */
export const KUBELET_SYSCTLS: Readonly<Record<string, string>> = {
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
  'kernel/panic': '10',
  'kernel/panic_on_oops': '1',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
};

/** cgroup v1 controllers the kubelet and runc use; each node gets its own root in every one. */
export const CGROUP_CONTROLLERS = [
  'cpu',
  'cpuacct',
  'cpuset',
  'memory',
  'devices',
  'freezer',
  'blkio',
  'pids',
  'systemd',
  'net_cls',
  'net_prio',
  'hugetlb',
  'perf_event',
  'unified',
] as const;

export function labPinDir(labId: string): string {
  return join(PIN_ROOT, labId);
}

export function nodePins(labId: string, node: string): { mnt: string; uts: string } {
  return {
    mnt: join(labPinDir(labId), `${node}.mnt`),
    uts: join(labPinDir(labId), `${node}.uts`),
  };
}

export function labStateDir(labId: string): string {
  return join(NODE_STATE_ROOT, labId);
}

export function nodeStateDir(labId: string, node: string): string {
  return join(labStateDir(labId), node);
}

/** The node's cgroup root (kubelet --cgroup-root) under every controller; `_` is in no lab or node name. */
export function nodeCgroup(labId: string, node: string): string {
  return `/${labId}_${node}`;
}

/** The lab id of a node cgroup name (`hl-<lab>_<node>`), or undefined. */
export function labIdOfCgroup(name: string): string | undefined {
  return /^(hl-[a-z0-9-]+)_[a-z0-9-]+$/.exec(name)?.[1];
}
