/**
 * Removes the machines of a kubeadm netns lab, found by the lab id alone (pins, cgroups, state
 * folders are named after it), in the order a machine shuts down: the kubelet, the pods
 * through the CRI (CNI DEL releases their addresses), containerd, whatever still runs in the
 * node's namespaces or cgroups, the cgroups, the pins. Network namespaces go afterwards with
 * the lab's other namespaces.
 */
import { existsSync, readFileSync, readdirSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../../../exec/command-runner.ts';
import { processAlive } from '../../../exec/process-alive.ts';
import { pollFor } from '../../../wait/poll.ts';
import type { NamespaceNodeShell } from '../../../remote/namespace-node-shell.ts';
import { CREATED_DIRS } from './node-machines.ts';
import {
  CGROUP_CONTROLLERS,
  NODE_STATE_ROOT,
  PIN_ROOT,
  labIdOfCgroup,
  labPinDir,
  labStateDir,
  nodePins,
} from './node-host.ts';

const STOP_WAIT_MS = 10_000;

/** Nodes of the lab that still have a pin (their mount namespace may live). */
export function pinnedNodes(labId: string): string[] {
  const dir = labPinDir(labId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.mnt'))
    .map((f) => f.slice(0, -'.mnt'.length))
    .sort();
}

/** Lab ids with machine pieces here: pins, state folders or cgroups. */
export function machineLabIds(): string[] {
  const ids = new Set<string>();
  for (const root of [PIN_ROOT, NODE_STATE_ROOT]) {
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root)) if (/^hl-[a-z0-9-]+$/.test(entry)) ids.add(entry);
  }
  for (const name of cgroupNames()) {
    const id = labIdOfCgroup(name);
    if (id !== undefined) ids.add(id);
  }
  return [...ids].sort();
}

function cgroupNames(): string[] {
  const pids = '/sys/fs/cgroup/pids';
  return existsSync(pids) ? readdirSync(pids) : [];
}

function inode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** Pids whose mount namespace is the node's pin, or that sit in the node's cgroups. */
export function machinePids(labId: string, node: string): number[] {
  const found = new Set<number>();
  const mnt = inode(nodePins(labId, node).mnt);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    if (mnt !== undefined && inode(`/proc/${entry}/ns/mnt`) === mnt) found.add(Number(entry));
  }
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    try {
      for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
        if (/^\d+$/.test(pid)) found.add(Number(pid));
      for (const d of readdirSync(dir, { withFileTypes: true }))
        if (d.isDirectory()) walk(join(dir, d.name));
    } catch {
      // gone in between
    }
  };
  walk(`/sys/fs/cgroup/pids/${labId}_${node}`);
  return [...found].filter(processAlive).sort((a, b) => a - b);
}

/** What processes of the node are called (`/proc/<pid>/comm`). */
export function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Sends `signal` to pids and waits (bounded) until they are gone. */
export async function killAndWait(
  runner: CommandRunner,
  pids: readonly number[],
  signal: 'TERM' | 'KILL',
): Promise<void> {
  if (pids.length === 0) return;
  await runner.run('kill', [`-${signal}`, ...pids.map(String)], { check: false });
  await pollFor('processes to exit', () => !pids.some(processAlive), {
    timeoutMs: STOP_WAIT_MS,
    intervalMs: 50,
  }).catch(() => undefined);
}

/** Stops one node as its machine would shut down; returns a line per step that removed something. */
async function stopNode(
  runner: CommandRunner,
  labId: string,
  node: string,
  shell: NamespaceNodeShell | undefined,
): Promise<string[]> {
  const removed: string[] = [];
  const named = (names: string[]) =>
    machinePids(labId, node).filter((pid) => names.includes(comm(pid)));
  // The supervisor first, or it restarts the kubelet the next step stops.
  await killAndWait(runner, named(['kubelet-loop.sh', 'kubelet']), 'TERM');
  if (shell !== undefined) {
    const info = await shell.exec(['crictl', '-t', '5s', 'pods', '-q'], { check: false });
    const sandboxes = info.exitCode === 0 ? info.stdout.split('\n').filter((l) => l !== '') : [];
    for (const id of sandboxes) {
      await shell.exec(['crictl', '-t', '30s', 'stopp', id], { check: false });
      await shell.exec(['crictl', '-t', '30s', 'rmp', id], { check: false });
    }
    if (sandboxes.length > 0)
      removed.push(`removed ${sandboxes.length} pod sandbox(es) on ${node}`);
  }
  await killAndWait(runner, named(['containerd']), 'TERM');
  for (let round = 0; round < 5; round++) {
    const left = machinePids(labId, node);
    if (left.length === 0) break;
    removed.push(
      `killed ${left.length} process(es) of ${node}: ${left.map((p) => `${p}(${comm(p)})`).join(' ')}`,
    );
    await killAndWait(runner, left, 'KILL');
  }
  return removed;
}

/** Removes a cgroup tree, deepest first (cgroup folders go with rmdir, their files with them). */
export function removeCgroup(dir: string): void {
  if (!existsSync(dir)) return;
  for (const d of readdirSync(dir, { withFileTypes: true }))
    if (d.isDirectory()) removeCgroup(join(dir, d.name));
  rmdirSync(dir);
}

/**
 * Stops and removes every machine of `labId`: nodes found by their pins; cgroups, pins and
 * state by name. `shellOf` reaches a node (for the CRI); without one, pods are killed.
 */
export async function removeMachines(
  runner: CommandRunner,
  labId: string,
  shellOf: (node: string) => NamespaceNodeShell | undefined,
): Promise<string[]> {
  const removed: string[] = [];
  const nodes = pinnedNodes(labId);
  const stopped = await Promise.all(
    nodes.map((node) => stopNode(runner, labId, node, shellOf(node))),
  );
  removed.push(...stopped.flat());
  for (const name of cgroupNames().filter((n) => labIdOfCgroup(n) === labId)) {
    for (const controller of CGROUP_CONTROLLERS)
      removeCgroup(join('/sys/fs/cgroup', controller, name));
    removed.push(`removed cgroup /${name}`);
  }
  const pinDir = labPinDir(labId);
  if (existsSync(pinDir)) {
    const pins = readdirSync(pinDir).map((f) => join(pinDir, f));
    await runner.run(
      'sh',
      [
        '-c',
        'for p; do mountpoint -q "$p" && umount "$p"; done; mountpoint -q "$0" && umount "$0"; true',
        pinDir,
        ...pins,
      ],
      { check: false },
    );
    rmSync(pinDir, { recursive: true, force: true });
    removed.push(`removed ${pinDir}`);
  }
  const state = labStateDir(labId);
  if (existsSync(state)) {
    rmSync(state, { recursive: true, force: true });
    removed.push(`removed ${state}`);
  }
  removed.push(...removeCreatedMountPoints());
  return removed;
}

/** The host folders made as mount points and the roots of pins and state, once no lab has machines any more (empty ones only). */
function removeCreatedMountPoints(): string[] {
  if (machineLabIds().length > 0) return [];
  const removed: string[] = [];
  for (const root of [PIN_ROOT, NODE_STATE_ROOT]) {
    if (existsSync(root) && readdirSync(root).every((e) => e === 'created-dirs')) {
      removed.push(...removeListedDirs());
      rmSync(root, { recursive: true, force: true });
      removed.push(`removed ${root}`);
    }
  }
  return removed;
}

/** The folders CREATED_DIRS lists, where they hold nothing but (empty) folders. */
function removeListedDirs(): string[] {
  if (!existsSync(CREATED_DIRS)) return [];
  const removed: string[] = [];
  const dirs = [
    ...new Set(
      readFileSync(CREATED_DIRS, 'utf8')
        .split('\n')
        .filter((d) => d !== ''),
    ),
  ];
  for (const dir of dirs.sort().reverse()) {
    if (existsSync(dir) && emptyTree(dir)) {
      rmSync(dir, { recursive: true, force: true });
      removed.push(`removed mount point ${dir}`);
    }
  }
  rmSync(CREATED_DIRS, { force: true });
  return removed;
}

/** True when `dir` holds only (empty) folders: nothing a node left on the host. */
function emptyTree(dir: string): boolean {
  return readdirSync(dir, { withFileTypes: true }).every(
    (d) => d.isDirectory() && emptyTree(join(dir, d.name)),
  );
}
