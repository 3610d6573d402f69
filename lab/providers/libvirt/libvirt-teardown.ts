/**
 * Removing a libvirt lab: orderly from `down` (vagrant destroy, then a virsh sweep) or from its
 * id alone (`reap`): stamped processes, domains, volumes and networks named after the lab.
 * Every step runs; each error is logged and the first one is rethrown at the end.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { Logger } from '../../log/logger.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import { killLabProcesses } from '../../exec/lab-processes.ts';
import { libvirtDir, projectDir } from './libvirt-names.ts';
import { VagrantProject } from './vagrant-project.ts';
import { Virsh } from './virsh.ts';

/** libvirtd on this host: swept when it answers, silently skipped when there is none. */
export const DEFAULT_URI = 'qemu:///system';

export interface TeardownTarget {
  labId: string;
  /** Hypervisors to sweep; `required` ones must answer, the others are skipped when silent. */
  uris: { uri: string; required: boolean }[];
  /** Vagrant projects to destroy first (those that were created). */
  projects: VagrantProject[];
  /** Local state to remove at the end. */
  paths: string[];
}

/** True when virsh reaches the URI (virsh missing counts as no). */
export async function answers(runner: CommandRunner, uri: string): Promise<boolean> {
  const result = await new Virsh(runner, uri)
    .run(['version'], { check: false, timeoutMs: 20_000 })
    .catch(() => undefined);
  return result?.exitCode === 0;
}

export async function teardown(
  runner: CommandRunner,
  log: Logger,
  target: TeardownTarget,
): Promise<string[]> {
  const removed: string[] = [];
  const errors: unknown[] = [];
  const step = async (what: string, action: () => Promise<string[]>): Promise<void> => {
    try {
      removed.push(...(await action()));
    } catch (error) {
      log.error({ provider: 'libvirt', lab: target.labId, err: error }, `teardown: ${what} failed`);
      errors.push(error);
    }
  };
  await step('processes', () => killLabProcesses(runner, target.labId));
  await step('vagrant destroy', async () => {
    // A project vagrant cannot read any more is left to the sweep below.
    const created = target.projects.filter(
      (p) => existsSync(join(p.dir, '.vagrant')) && p.readable(),
    );
    // One after another: hypervisor entries may share a libvirtd, and vagrant-libvirt validates a
    // project by reading the bridge of every network there, so a network another destroy
    // removes meanwhile fails it ("Network not found", seen in CI's kill + reap test).
    const failures: unknown[] = [];
    for (const p of created) {
      await p.destroy(join(p.dir, 'destroy.log')).catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0] as Error;
    return created.map((p) => `vagrant destroyed ${p.dir}`);
  });
  for (const { uri, required } of target.uris) {
    await step(`sweep ${uri}`, async () => {
      if (!required && !(await answers(runner, uri))) return [];
      return new Virsh(runner, uri).destroyOrphans(target.labId);
    });
  }
  await step('local state', () => {
    for (const path of target.paths) rmSync(path, { recursive: true, force: true });
    return Promise.resolve([]);
  });
  if (errors.length > 0) throw errors[0];
  log.info({ provider: 'libvirt', lab: target.labId, removed: removed.length }, 'lab removed');
  return removed;
}

/** The plan as the Vagrantfile reads it: a copy next to the libvirt state. */
export function planCopy(stateDir: string): string {
  return join(libvirtDir(stateDir), 'plan.json');
}

/** The orderly target of an up lab: its projects, its hypervisors, its state. */
export function labTarget(runner: CommandRunner, plan: LabPlan, stateDir: string): TeardownTarget {
  const used = plan.hypervisors.filter((h) => h.nodes.length > 0);
  return {
    labId: plan.id,
    uris: used.map((h) => ({ uri: h.uri, required: true })),
    projects: used.map(
      (h) => new VagrantProject(runner, projectDir(stateDir, h.name), planCopy(stateDir), plan.id),
    ),
    paths: [
      libvirtDir(stateDir),
      join(stateDir, 'emulated'),
      ...used.map((h) => projectDir(stateDir, h.name)),
    ],
  };
}

/** Plans of libvirt labs under the `.lab` folder `root` (best effort: unreadable ones are skipped). */
export function knownPlans(root: string): { dir: string; plan: LabPlan }[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    try {
      const plan = JSON.parse(readFileSync(join(root, entry, 'plan.json'), 'utf8')) as LabPlan;
      return plan.provider === 'libvirt' ? [{ dir: join(root, entry), plan }] : [];
    } catch {
      return [];
    }
  });
}

/** URIs worth sweeping for `labId` (every lab when undefined): known plans, env, this host. */
export function reapUris(
  stateDir: string,
  labId?: string,
  env = process.env,
): TeardownTarget['uris'] {
  const uris = new Map<string, boolean>();
  for (const { plan } of knownPlans(dirname(stateDir))) {
    if (labId !== undefined && plan.id !== labId) continue;
    for (const h of plan.hypervisors) if (h.nodes.length > 0) uris.set(h.uri, false);
  }
  for (const uri of (env.HL_LIBVIRT_URIS ?? '').split(',').map((u) => u.trim())) {
    if (uri !== '') uris.set(uri, false);
  }
  if (env.LIBVIRT_DEFAULT_URI !== undefined && env.LIBVIRT_DEFAULT_URI !== '')
    uris.set(env.LIBVIRT_DEFAULT_URI, false);
  uris.set(DEFAULT_URI, false);
  return [...uris].map(([uri, required]) => ({ uri, required }));
}

/** The reap target of `labId`: its local pieces too when its `.lab` folder is known. */
export function reapTarget(runner: CommandRunner, stateDir: string, labId: string): TeardownTarget {
  const known = knownPlans(dirname(stateDir)).find((k) => k.plan.id === labId);
  const local = known === undefined ? undefined : labTarget(runner, known.plan, known.dir);
  return {
    labId,
    uris: reapUris(stateDir, labId),
    projects: local?.projects ?? [],
    paths: local?.paths ?? [],
  };
}
