/**
 * Processes a lab starts on this host (vagrant and its children, ssh masters, the external
 * echo, a namespace node's daemons) carry HL_LAB_ID=<lab id> in their environment; the reaper
 * finds them by it, so a killed harness never leaves a vagrant creating domains behind.
 */
import { readFileSync, readdirSync } from 'node:fs';
import type { CommandRunner } from './command-runner.ts';
import { WaitTimeoutError } from '../errors.ts';
import { processAlive } from './process-alive.ts';
import { pollFor } from '../wait/poll.ts';

/** The environment variable that stamps a process with its lab id. */
export const LAB_ID_ENV = 'HL_LAB_ID';
/** Prefix of every lab id. */
const ALL_LABS_PREFIX = 'hl-';

const EXIT_WAIT_MS = 5000;

/** The lab id in a NUL-separated environ block, if any. */
export function labIdInEnviron(environ: string): string | undefined {
  const entry = environ.split('\0').find((e) => e.startsWith(`${LAB_ID_ENV}=`));
  return entry?.slice(LAB_ID_ENV.length + 1);
}

/** Every process stamped with a hybrid-lab id, never this process. */
export function stampedProcesses(procDir = '/proc'): { pid: number; labId: string }[] {
  const found: { pid: number; labId: string }[] = [];
  for (const entry of readdirSync(procDir)) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`${procDir}/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    const labId = labIdInEnviron(environ);
    if (labId?.startsWith(ALL_LABS_PREFIX) === true) found.push({ pid: Number(entry), labId });
  }
  return found;
}

/** Pids stamped with `labId` (every hybrid-lab lab's when undefined). */
export function labProcesses(labId?: string, procDir = '/proc'): number[] {
  return stampedProcesses(procDir)
    .filter((p) => labId === undefined || p.labId === labId)
    .map((p) => p.pid);
}

/** SIGTERM, then SIGKILL what is left; returns a line per killed process. */
export async function killLabProcesses(runner: CommandRunner, labId?: string): Promise<string[]> {
  const pids = labProcesses(labId).filter(processAlive);
  if (pids.length === 0) return [];
  await runner.run('kill', ['-TERM', ...pids.map(String)], { check: false });
  await pollFor('lab processes to exit after SIGTERM', () => !pids.some(processAlive), {
    timeoutMs: EXIT_WAIT_MS,
    intervalMs: 50,
  }).catch((error: unknown) => {
    if (!(error instanceof WaitTimeoutError)) throw error; // the stubborn ones get SIGKILL
  });
  const stubborn = pids.filter(processAlive);
  if (stubborn.length > 0)
    await runner.run('kill', ['-KILL', ...stubborn.map(String)], { check: false });
  return [`killed ${pids.length} process(es) of ${labId ?? 'hybrid-lab labs'}: ${pids.join(' ')}`];
}
