/** Helpers for the netns integration tests: skip reasons, contexts, root-namespace snapshots. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunner } from '../exec/command-runner.ts';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { PlainProgress } from '../log/progress.ts';
import type { EmulatedCluster } from '../cluster/emulated-cluster.ts';
import type { StartedLab, LabProvider, ProviderContext } from '../providers/lab-provider.ts';
import { processAlive as alive } from '../exec/process-alive.ts';
import { listNamespaces, pidsIn } from '../cluster/dataplane/namespace-cleanup.ts';
import { netnsPreflight } from '../providers/netns/netns-preflight.ts';
import { missing, type Skip } from './skip.ts';

/** Why the integration tests cannot run here, or undefined when they can. */
export async function netnsSkipReason(runner: CommandRunner): Promise<Skip | undefined> {
  const problems = await netnsPreflight(runner);
  if (problems.length > 0)
    return missing(
      `netns lab unavailable: ${problems.map((p) => `${p.what} (${p.fix})`).join('; ')}`,
    );
  const probe = `hl-nsprobe${process.pid}-sw`;
  const added = await runner.run('ip', ['netns', 'add', probe], { check: false });
  await runner.run('ip', ['netns', 'del', probe], { check: false });
  return added.exitCode === 0
    ? undefined
    : missing(`\`ip netns add\` does not work here: ${added.stderr.trim()}`);
}

const stateDirs: string[] = [];
const RUN = process.pid.toString(36);

/** A lab id unique to this test process, so concurrent test runs on one machine never collide. */
export function testLabId(name: string): string {
  return `hl-it${name}-${RUN}`;
}

/** Reaps test labs whose test process is gone (a run killed half-way). */
export async function reapStaleTestLabs(provider: LabProvider): Promise<void> {
  for (const id of await provider.listLabIds()) {
    const owner = /^hl-it[a-z0-9]+-([a-z0-9]+)(-x)?$/.exec(id)?.[1];
    if (owner !== undefined && owner !== RUN && !alive(Number.parseInt(owner, 36)))
      await provider.reap(id);
  }
}

/** A real-runner context with a fresh state dir and no output. */
export function testContext(): ProviderContext {
  const log = silentLogger();
  const stateDir = mkdtempSync(join(tmpdir(), 'hl-netns-'));
  stateDirs.push(stateDir);
  return {
    runner: new ExecaRunner(log),
    log,
    stateDir,
    progress: new PlainProgress(log, () => undefined),
  };
}

/** Removes the state dirs testContext() made (call once the labs using them are down). */
export function removeTestStateDirs(): void {
  for (const dir of stateDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Everything the root network namespace shows, minus counters and timestamps. */
export async function rootNetnsSnapshot(runner: CommandRunner): Promise<Record<string, string>> {
  const read = async (file: string, args: string[]): Promise<string> => {
    const result = await runner.run(file, args, { check: false });
    return `${result.exitCode}\n${result.stdout}${result.stderr}`;
  };
  const [addr, route, route6, rule, link, iptables, nft, sysctls] = await Promise.all([
    read('ip', ['addr']),
    read('ip', ['route', 'show', 'table', 'all']),
    read('ip', ['-6', 'route', 'show', 'table', 'all']),
    read('ip', ['rule']),
    read('ip', ['link']),
    read('iptables-save', []),
    read('nft', ['list', 'ruleset']),
    // Every IPv4/IPv6 and bridge-netfilter setting the dataplane sets inside its namespaces.
    read('sh', ['-c', 'sysctl -a 2>/dev/null | grep -E "^net\\.(ipv4|ipv6|bridge)\\." | sort']),
  ]);
  return {
    addr: addr.replace(/^\s*valid_lft.*$/gm, ''),
    route,
    route6,
    rule,
    link,
    iptables: iptables.replace(/^#.*$/gm, ''),
    nft,
    sysctls,
  };
}

/** Namespaces of a lab that exist now. */
export async function labNamespaces(runner: CommandRunner, prefix: string): Promise<string[]> {
  return (await listNamespaces(runner)).filter((n) => n.startsWith(prefix));
}

/** PIDs running inside the lab's namespaces. */
export async function labPids(runner: CommandRunner, prefix: string): Promise<number[]> {
  return pidsIn(runner, await labNamespaces(runner, prefix));
}

export function alivePids(pids: readonly number[]): number[] {
  return pids.filter(alive);
}

/** The emulated cluster of a lab a test brought up as emulated (fails loudly otherwise). */
export function emulatedCluster(lab: StartedLab): EmulatedCluster {
  if (lab.cluster === undefined) throw new Error(`lab ${lab.plan.id} has no emulated cluster`);
  return lab.cluster;
}
