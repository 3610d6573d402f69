/**
 * One ssh master connection per node, started by `up` and stopped by `down`: every later
 * command (also from the suite's process) costs a round trip instead of a handshake.
 */
import { processAlive } from '../exec/process-alive.ts';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ProviderError } from '../errors.ts';
import type { CommandRunner } from '../exec/command-runner.ts';
import { pollFor } from '../wait/poll.ts';

const READY_TIMEOUT_MS = 60_000;

export interface MasterOptions {
  runner: CommandRunner;
  configFile: string;
  /** Stamped on each master's environment (the lab id, so a reaper finds it). */
  env: Record<string, string>;
  logDir: string;
}

async function masterUp(options: MasterOptions, node: string): Promise<boolean> {
  const check = await options.runner.run('ssh', ['-F', options.configFile, '-O', 'check', node], {
    check: false,
    timeoutMs: 10_000,
  });
  return check.exitCode === 0;
}

/** Starts the master of each node; returns their pids. */
export async function startMasters(
  options: MasterOptions,
  nodes: readonly string[],
): Promise<Record<string, number>> {
  const pids: Record<string, number> = {};
  await Promise.all(
    nodes.map(async (node) => {
      const logFile = join(options.logDir, `ssh-master-${node}.log`);
      const proc = await options.runner.spawn(
        'ssh',
        [
          '-F',
          options.configFile,
          '-M',
          '-N',
          '-o',
          'ControlMaster=yes',
          '-o',
          'ControlPersist=no',
          node,
        ],
        { logFile, env: options.env },
      );
      pids[node] = proc.pid;
      await pollFor(
        `the ssh master to ${node}`,
        async () => {
          if (await masterUp(options, node)) return true;
          if (!processAlive(proc.pid)) {
            throw new ProviderError(`ssh master to ${node} exited: ${readTail(logFile)}`);
          }
          return false;
        },
        { timeoutMs: READY_TIMEOUT_MS, intervalMs: 200, lastSeen: () => readTail(logFile) },
      );
    }),
  );
  return pids;
}

function readTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join('\n') || 'no output';
  } catch {
    return 'no output';
  }
}
