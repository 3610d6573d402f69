/**
 * The machines of a kubeadm netns lab: each node is a network namespace plus a mount and UTS
 * namespace of its own (its own /etc/kubernetes, /var/lib/kubelet, containerd state, /run),
 * a cgroup root of its own, and the daemons a booted node runs: containerd and the kubelet's
 * supervisor (in place of systemd). Kubernetes itself is set up afterwards by the project's
 * kubeadm provisioning over each node's NamespaceNodeShell.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prefixLength } from '../../../cluster/dataplane/pod-network.ts';
import { NODE_NIC, nodeNamespace, prefixOfLab } from '../../../cluster/dataplane/names.ts';
import type { CommandRunner } from '../../../exec/command-runner.ts';
import { LAB_ID_ENV } from '../../../exec/lab-processes.ts';
import type { LabPlan, PlannedNode } from '../../../plan/lab-plan.ts';
import { NamespaceNodeShell } from '../../../remote/namespace-node-shell.ts';
import { pollFor, settleAll } from '../../../wait/poll.ts';
import {
  CGROUP_CONTROLLERS,
  KUBELET_SYSCTLS,
  NODE_DIRS,
  PIN_ROOT,
  labPinDir,
  nodeCgroup,
  nodePins,
  nodeStateDir,
} from './node-host.ts';

const NODE_MOUNTS = fileURLToPath(new URL('node-mounts.sh', import.meta.url));
const KUBELET_LOOP = fileURLToPath(new URL('kubelet-loop.sh', import.meta.url));
/** Host folders this code created as mount points (removed when the last lab is gone). */
export const CREATED_DIRS = join(PIN_ROOT, 'created-dirs');
const CONTAINERD_READY_MS = 30_000;
/** Debian's containernetworking-plugins install the CNI plugins here. */
const CNI_BIN_DIR = '/usr/lib/cni';

export interface MachineOptions {
  runner: CommandRunner;
  plan: LabPlan;
  /** The artifact cache's `kubernetes/<version>/linux/amd64`: kubeadm, kubelet, kubectl, crictl. */
  binDir: string;
  /** The sandbox image kubeadm of this version expects. */
  pauseImage: string;
  /** Where the daemons' logs go (`.lab/<name>/logs/nodes`). */
  logDir: string;
}

/** The shell of node `node` of lab `labId`: its namespaces, and its kubelet's cgroup root. */
export function machineShell(
  runner: CommandRunner,
  labId: string,
  node: string,
): NamespaceNodeShell {
  const pins = nodePins(labId, node);
  return new NamespaceNodeShell(
    node,
    { ...pins, net: `/run/netns/${nodeNamespace(prefixOfLab(labId), node)}` },
    runner,
    { 'cgroup-root': nodeCgroup(labId, node) },
  );
}

/** Where a node's containerd reads per-registry hosts.toml files (its CA, its mirrors). */
export const REGISTRY_HOSTS_DIR = '/etc/containerd/certs.d';

/** containerd of a namespace node: cgroupfs (no systemd), the pause image kubeadm names, Debian's CNI plugins. */
export function containerdConfig(pauseImage: string): string {
  return [
    'version = 2',
    'root = "/var/lib/containerd"',
    'state = "/run/containerd"',
    '[grpc]',
    '  address = "/run/containerd/containerd.sock"',
    '[plugins."io.containerd.grpc.v1.cri"]',
    `  sandbox_image = "${pauseImage}"`,
    // Root here lacks CAP_SYS_RESOURCE: runc could not give the sandbox its -998.
    '  restrict_oom_score_adj = true',
    '  [plugins."io.containerd.grpc.v1.cri".containerd]',
    '    snapshotter = "overlayfs"',
    '    default_runtime_name = "runc"',
    '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
    '      runtime_type = "io.containerd.runc.v2"',
    '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
    '        SystemdCgroup = false',
    '  [plugins."io.containerd.grpc.v1.cri".cni]',
    `    bin_dir = "${CNI_BIN_DIR}"`,
    '    conf_dir = "/etc/cni/net.d"',
    // A registry's CA, mirror or credentials per host, as containerd's hosts.toml files
    // (certs.d/HOST:PORT/hosts.toml, read at each pull): the node's own /etc/containerd.
    '  [plugins."io.containerd.grpc.v1.cri".registry]',
    `    config_path = "${REGISTRY_HOSTS_DIR}"`,
    '',
  ].join('\n');
}

/** /etc/hosts of every node: all nodes by name (kubeadm looks up its own). */
export function hostsFile(plan: LabPlan): string {
  return ['127.0.0.1\tlocalhost', ...plan.nodes.map((n) => `${n.ip}\t${n.name}`), ''].join('\n');
}

/** The node's lab NIC, default route to the gateway, and the sysctls a Kubernetes node needs. */
export function machineNetScript(plan: LabPlan, node: PlannedNode): string {
  return [
    'link set lo up',
    `link set ${NODE_NIC} up`,
    `addr add ${node.ip}/${prefixLength(plan.network.cidr)} dev ${NODE_NIC}`,
    `route add default via ${plan.network.gateway} dev ${NODE_NIC}`,
    '',
  ].join('\n');
}

/** Mount points the nodes bind over must exist on the host; the missing ones are made and recorded. */
function ensureMountPoints(): void {
  mkdirSync(PIN_ROOT, { recursive: true });
  const created = existsSync(CREATED_DIRS) ? readFileSync(CREATED_DIRS, 'utf8') : '';
  const added: string[] = [];
  for (const dir of NODE_DIRS) {
    if (existsSync(dir)) continue;
    let top: string = dir;
    while (!existsSync(dirname(top))) top = dirname(top);
    mkdirSync(dir, { recursive: true });
    added.push(top);
  }
  if (added.length > 0) writeFileSync(CREATED_DIRS, `${created}${added.join('\n')}\n`);
}

/** The node's own files: hosts, an empty resolv.conf, the kubelet's sysctls, containerd's config. */
function writeNodeFiles(plan: LabPlan, node: PlannedNode, pauseImage: string): string {
  const state = nodeStateDir(plan.id, node.name);
  mkdirSync(join(state, 'sysctl'), { recursive: true });
  writeFileSync(join(state, 'hosts'), hostsFile(plan));
  writeFileSync(join(state, 'resolv.conf'), `# ${node.name}: no resolver outside the lab\n`);
  for (const [key, value] of Object.entries(KUBELET_SYSCTLS))
    writeFileSync(join(state, 'sysctl', key.replace(/\//g, '.')), `${value}\n`);
  mkdirSync(join(state, 'dirs/etc/containerd'), { recursive: true });
  writeFileSync(join(state, 'dirs/etc/containerd/config.toml'), containerdConfig(pauseImage));
  return state;
}

/** The node's cgroup root under every mounted v1 controller; cpuset's starts with the root's CPUs and memory nodes. */
function createCgroups(plan: LabPlan, node: PlannedNode): void {
  const name = nodeCgroup(plan.id, node.name);
  for (const controller of CGROUP_CONTROLLERS) {
    const root = join('/sys/fs/cgroup', controller);
    if (existsSync(root)) mkdirSync(join(root, name), { recursive: true });
  }
  const cpuset = '/sys/fs/cgroup/cpuset';
  if (existsSync(cpuset)) {
    for (const file of ['cpuset.cpus', 'cpuset.mems'])
      writeFileSync(join(cpuset, name, file), readFileSync(join(cpuset, file), 'utf8'));
  }
}

/** Makes the node's machine: network, mount and UTS namespaces, cgroups (daemons: startDaemons). */
async function createMachine(options: MachineOptions, node: PlannedNode): Promise<void> {
  const { runner, plan } = options;
  const netns = nodeNamespace(plan.prefix, node.name);
  await runner.run('ip', ['-n', netns, '-batch', '-'], { input: machineNetScript(plan, node) });
  await runner.run('nsenter', [
    `--net=/run/netns/${netns}`,
    'sysctl',
    '-q',
    '-w',
    'net.ipv4.ip_forward=1',
    'net.bridge.bridge-nf-call-iptables=1',
    'net.bridge.bridge-nf-call-ip6tables=1',
  ]);
  const state = writeNodeFiles(plan, node, options.pauseImage);
  const pins = nodePins(plan.id, node.name);
  for (const pin of [pins.mnt, pins.uts]) writeFileSync(pin, '');
  await runner.run(
    'unshare',
    [
      `--mount=${pins.mnt}`,
      `--uts=${pins.uts}`,
      '--propagation',
      'private',
      '--',
      'sh',
      NODE_MOUNTS,
    ],
    {
      env: {
        HL_NODE: node.name,
        HL_NODE_STATE: state,
        HL_NODE_DIRS: NODE_DIRS.join('\n'),
        HL_BIN_DIR: options.binDir,
        HL_SYSCTLS: Object.keys(KUBELET_SYSCTLS).join('\n'),
        HL_HOST_PATHS: dirname(KUBELET_LOOP),
      },
    },
  );
  createCgroups(plan, node);
}

/** Starts the node's containerd (stamped with the lab id) and waits until it answers. */
export async function startContainerd(
  runner: CommandRunner,
  labId: string,
  node: string,
  logDir: string,
): Promise<void> {
  const shell = machineShell(runner, labId, node);
  // tini, a subreaper, reaps what containerd's shims leave behind (PID 1 here reaps nothing).
  await runner.spawn(
    'nsenter',
    shell.enterArgv(['tini', '-s', '--', 'containerd', '--config', '/etc/containerd/config.toml']),
    { logFile: join(logDir, `${node}-containerd.log`), env: { [LAB_ID_ENV]: labId } },
  );
  await pollFor(
    `containerd on ${node}`,
    async () => (await shell.exec(['ctr', 'version'], { check: false })).exitCode === 0,
    { timeoutMs: CONTAINERD_READY_MS, intervalMs: 100 },
  );
}

/** Starts containerd, waits until it answers, then the kubelet's supervisor; both stamped with the lab id. */
async function startDaemons(options: MachineOptions, node: PlannedNode): Promise<void> {
  const { runner, plan, logDir } = options;
  const shell = machineShell(runner, plan.id, node.name);
  const env = { [LAB_ID_ENV]: plan.id };
  await startContainerd(runner, plan.id, node.name, logDir);
  await runner.spawn('nsenter', shell.enterArgv(['tini', '-s', '--', KUBELET_LOOP]), {
    logFile: join(logDir, `${node.name}-kubelet.log`),
    env,
  });
}

/**
 * Boots one node's machine again (its namespaces' pins and cgroups gone, its network namespace
 * and its disk kept), as a machine starts: network, mounts, cgroups, containerd, the kubelet.
 */
export async function bootMachine(options: MachineOptions, node: PlannedNode): Promise<void> {
  mkdirSync(options.logDir, { recursive: true });
  await createMachine(options, node);
  await startDaemons(options, node);
}

/** Makes every node's machine and starts its daemons (the lab's namespaces exist already). */
export async function createMachines(options: MachineOptions): Promise<void> {
  const { runner, plan, logDir } = options;
  mkdirSync(logDir, { recursive: true });
  ensureMountPoints();
  const pinDir = labPinDir(plan.id);
  mkdirSync(pinDir, { recursive: true });
  // `unshare --mount=FILE` refuses a FILE on a shared mount: the pins live on a private one.
  await runner.run('sh', [
    '-c',
    'mountpoint -q "$1" || { mount --bind "$1" "$1" && mount --make-private "$1"; }',
    'sh',
    pinDir,
  ]);
  await settleAll(plan.nodes.map((node) => createMachine(options, node)));
  await settleAll(plan.nodes.map((node) => startDaemons(options, node)));
}
