/**
 * Snapshots of a whole libvirt lab (`lab snapshot NAME`, `lab up --from NAME`): an internal
 * snapshot of every node's domain, memory included, so a provisioned lab comes back running in
 * seconds instead of being brought up again. They live inside the domains' disks: `lab down`
 * removes them with the lab.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { startMasters } from '../../remote/ssh-masters.ts';
import { LAB_ID_ENV } from '../../exec/lab-processes.ts';
import type { ProviderContext } from '../lab-provider.ts';
import { domainName, libvirtDir, logsDir } from './libvirt-names.ts';
import { LibvirtStateStore, type LibvirtState } from './libvirt-state.ts';
import { Virsh } from './virsh.ts';
import { pollFor } from '../../wait/poll.ts';

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export interface SnapshotRecord {
  name: string;
  takenAt: string;
  /** Whether the lab was provisioned (kubeadm) or carried the emulated dataplane then. */
  cluster: LabPlan['cluster'];
  ms: number;
}

/** How long each step of a restore took: revert, ssh (masters and clocks), ready. */
export type RestoreTimings = Record<'revert' | 'ssh' | 'ready', number>;

function recordsFile(stateDir: string): string {
  return join(libvirtDir(stateDir), 'snapshots.json');
}

export function snapshotRecords(stateDir: string): SnapshotRecord[] {
  const file = recordsFile(stateDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SnapshotRecord[]) : [];
}

function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw new ProviderError(`snapshot name '${name}' is not allowed`, {
      hint: 'use 1 to 64 of A-Z a-z 0-9 . _ -',
    });
  }
}

/** Each node's domain, with virsh on its own hypervisor's URI. */
function domains(
  context: ProviderContext,
  plan: LabPlan,
  state: LibvirtState,
): { domain: string; virsh: Virsh }[] {
  const uriOf = new Map(state.hypervisors.map((h) => [h.name, h.uri]));
  return plan.nodes.map((n) => ({
    domain: domainName(plan, n.name),
    virsh: new Virsh(context.runner, uriOf.get(n.hypervisor) ?? ''),
  }));
}

/** Snapshots every domain of the lab at once; a name already taken is refused. */
export async function saveSnapshot(
  context: ProviderContext,
  plan: LabPlan,
  state: LibvirtState,
  name: string,
): Promise<SnapshotRecord> {
  checkName(name);
  const records = snapshotRecords(context.stateDir);
  if (records.some((r) => r.name === name)) {
    throw new ProviderError(`lab ${plan.name} already has a snapshot '${name}'`, {
      hint: `taken: ${records.map((r) => r.name).join(', ')}; choose another name`,
    });
  }
  const began = performance.now();
  const made: { domain: string; virsh: Virsh }[] = [];
  try {
    await Promise.all(
      domains(context, plan, state).map(async ({ domain, virsh }) => {
        await virsh.run(
          ['snapshot-create-as', domain, name, '--description', `hybrid-lab ${plan.id}`],
          {
            timeoutMs: 15 * 60_000,
          },
        );
        made.push({ domain, virsh });
      }),
    );
  } catch (error) {
    // All or nothing: a snapshot only some domains have would restore a lab from two times.
    await Promise.allSettled(
      made.map(({ domain, virsh }) => virsh.run(['snapshot-delete', domain, name])),
    );
    throw error;
  }
  const record: SnapshotRecord = {
    name,
    takenAt: new Date().toISOString(),
    cluster: plan.cluster,
    ms: Math.round(performance.now() - began),
  };
  writeFileSync(
    recordsFile(context.stateDir),
    `${JSON.stringify([...records, record], null, 2)}\n`,
    {
      mode: 0o600,
    },
  );
  return record;
}

/**
 * Reverts every domain to the snapshot, running; then new ssh masters (the old connections
 * died with the guests' state), the guests' clocks set to now (they resume at the snapshot's
 * time), and `ready()` waited for.
 */
export async function restoreSnapshot(
  context: ProviderContext,
  plan: LabPlan,
  state: LibvirtState,
  name: string,
  shellOf: (node: string) => NodeShell,
  ready: () => Promise<void>,
): Promise<RestoreTimings> {
  checkName(name);
  const records = snapshotRecords(context.stateDir);
  if (!records.some((r) => r.name === name)) {
    throw new ProviderError(`lab ${plan.name} has no snapshot '${name}'`, {
      hint:
        records.length === 0
          ? 'take one with `lab snapshot NAME` (snapshots live in the domains: `lab down` removes them)'
          : `taken: ${records.map((r) => r.name).join(', ')}`,
    });
  }
  const t0 = performance.now();
  await Promise.all(
    domains(context, plan, state).map(({ domain, virsh }) =>
      virsh.run(['snapshot-revert', domain, name, '--running'], {
        timeoutMs: 15 * 60_000,
      }),
    ),
  );
  const t1 = performance.now();
  for (const pid of Object.values(state.masters)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  // A guest just reverted may not answer at once (its neighbours are relearnt): plain ssh first.
  await Promise.all(
    plan.nodes.map((n) =>
      pollFor(
        `ssh to ${n.name} after the revert`,
        async () =>
          (
            await context.runner.run(
              'ssh',
              ['-F', state.sshConfig, '-o', 'ControlPath=none', n.name, 'exit 0'],
              { check: false, timeoutMs: 20_000 },
            )
          ).exitCode === 0,
        { timeoutMs: 180_000, intervalMs: 1000 },
      ),
    ),
  );
  state.masters = await startMasters(
    {
      runner: context.runner,
      configFile: state.sshConfig,
      env: { [LAB_ID_ENV]: plan.id },
      logDir: logsDir(context.stateDir),
    },
    plan.nodes.map((n) => n.name),
  );
  new LibvirtStateStore(libvirtDir(context.stateDir)).write(state);
  await Promise.all(
    plan.nodes
      .filter((n) => n.guestOs === 'linux')
      .map((n) =>
        shellOf(n.name).exec(['date', '-u', '-s', `@${Math.round(Date.now() / 1000)}`], {
          timeoutMs: 60_000,
        }),
      ),
  );
  const t2 = performance.now();
  await ready();
  return {
    revert: Math.round(t1 - t0),
    ssh: Math.round(t2 - t1),
    ready: Math.round(performance.now() - t2),
  };
}
