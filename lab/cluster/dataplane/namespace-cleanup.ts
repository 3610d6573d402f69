/** Removing network namespaces for good: their processes first, then the namespaces and /etc/netns. */
import { processAlive } from '../../exec/process-alive.ts';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import type { CommandRunner } from '../../exec/command-runner.ts';
import { pollFor } from '../../wait/poll.ts';

export const ETC_NETNS = '/etc/netns';
/** Where a namespace's prober (lab/cluster/workload/prober.mjs) listens and logs. */
export const PROBER_DIR = '/run/hl-probers';
/** sun_path holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;
const EXIT_WAIT_MS = 5000;

function batch(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** The prober's socket and log for a namespace; no socket when its path is too long for one. */
export function proberFiles(netns: string): { socket?: string; log: string } {
  const socket = join(PROBER_DIR, `${netns}.sock`);
  const log = join(PROBER_DIR, `${netns}.log`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH_BYTES ? { socket, log } : { log };
}

/** Where the connections a namespace holds (held-connection.sh) keep their FIFOs and answers. */
export function heldDir(netns: string): string {
  return join(PROBER_DIR, `${netns}.held`);
}

/** Names from `ip netns list` (which prints `name (id: N)` once an id is assigned). */
export async function listNamespaces(runner: CommandRunner): Promise<string[]> {
  const result = await runner.run('ip', ['netns', 'list']);
  return result.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

/** PIDs of every process inside any of the namespaces, with one `ip` process. */
export async function pidsIn(runner: CommandRunner, names: readonly string[]): Promise<number[]> {
  if (names.length === 0) return [];
  const result = await runner.run('ip', ['-force', '-batch', '-'], {
    input: batch(names.map((n) => `netns pids ${n}`)),
    check: false,
  });
  return [
    ...new Set(
      result.stdout
        .split(/\s+/)
        .filter((t) => /^\d+$/.test(t))
        .map(Number),
    ),
  ];
}

/** SIGKILLs the processes and waits until none is alive. */
export async function killAndWait(runner: CommandRunner, pids: readonly number[]): Promise<void> {
  if (pids.length === 0) return;
  await runner.run('kill', ['-KILL', ...pids.map(String)], { check: false });
  await pollFor('processes to exit after SIGKILL', () => !pids.some(processAlive), {
    timeoutMs: EXIT_WAIT_MS,
    intervalMs: 10,
    lastSeen: () => `still alive: ${pids.filter(processAlive).join(', ')}`,
  });
}

/**
 * Kills everything inside the namespaces, deletes them and their /etc/netns directories.
 * Returns what it removed; throws after trying everything if something stayed.
 */
export async function removeNamespaces(
  runner: CommandRunner,
  names: readonly string[],
): Promise<string[]> {
  if (names.length === 0) return [];
  const pids = await pidsIn(runner, names);
  await killAndWait(runner, pids);
  const result = await runner.run('ip', ['-force', '-batch', '-'], {
    input: batch(names.map((n) => `netns del ${n}`)),
    check: false,
  });
  for (const name of names) {
    rmSync(join(ETC_NETNS, name), { recursive: true, force: true });
    for (const file of Object.values(proberFiles(name))) rmSync(file, { force: true });
    rmSync(heldDir(name), { recursive: true, force: true });
  }
  const left = (await listNamespaces(runner)).filter((n) => names.includes(n));
  if (left.length > 0) {
    throw new ProviderError(
      `could not delete network namespaces ${left.join(', ')}: ${result.stderr.trim()}`,
    );
  }
  return [
    ...(pids.length > 0 ? [`killed ${pids.length} process(es): ${pids.join(' ')}`] : []),
    ...names.map((n) => `removed netns ${n}`),
  ];
}

/**
 * Removes the /etc/netns directories and prober files of namespaces matching `owned`; call it
 * once those namespaces are gone (a crash leaves these behind).
 */
export function removeOrphans(owned: (name: string) => boolean): string[] {
  const removed: string[] = [];
  for (const name of entries(ETC_NETNS).filter(owned)) {
    rmSync(join(ETC_NETNS, name), { recursive: true, force: true });
    removed.push(`removed ${ETC_NETNS}/${name}`);
  }
  for (const file of entries(PROBER_DIR)) {
    const netns = /^(.+)\.(sock|log|held)$/.exec(file)?.[1];
    if (netns === undefined || !owned(netns)) continue;
    rmSync(join(PROBER_DIR, file), { recursive: true, force: true });
    removed.push(`removed ${PROBER_DIR}/${file}`);
  }
  return removed;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
