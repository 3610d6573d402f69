/**
 * `lab provision [--preflight]`: (re-)provisions a kubeadm lab that is up, or lists what its
 * artifact cache lacks. Targets come from the lab's ssh_config (the libvirt provider writes
 * `.lab/<name>/libvirt/ssh_config` from `vagrant ssh-config`) or from --ssh-config FILE.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { fileLogger } from '../log/logger.ts';
import { progressFor } from '../log/progress.ts';
import { libvirtDir } from '../providers/libvirt/libvirt-names.ts';
import type { LabStore } from '../state/lab-store.ts';
import { missingArtifacts } from './artifact-preflight.ts';
import { componentVersions } from './component-versions.ts';
import { ProvisionError } from './provision-error.ts';
import { provision, type ProvisionResult } from './provision-lab.ts';
import { provisionSettingsFromText, type ProvisionSettings } from './provision-settings.ts';
import { targetsFromSshConfig } from './ssh-config.ts';

/** Where the libvirt provider leaves the SSH targets of a lab's VMs. */
export function sshConfigFile(stateDir: string): string {
  return join(libvirtDir(stateDir), 'ssh_config');
}

function open(store: LabStore, name: string) {
  const paths = store.paths(name);
  const plan = store.readPlan(name);
  const settings: ProvisionSettings = provisionSettingsFromText(
    readFileSync(paths.spec, 'utf8'),
    paths.spec,
    process.cwd(),
  );
  const log = fileLogger(paths.harnessLog, { lab: name, component: 'provision' });
  const runner = new ExecaRunner(log.child({ component: 'runner' }));
  return { paths, plan, settings, log, runner };
}

/** One line per missing artifact, each followed by where to get it; empty when complete. */
export async function provisionPreflight(store: LabStore, name: string): Promise<string[]> {
  const { plan, settings, runner } = open(store, name);
  const versions = componentVersions(
    plan,
    settings.kubeadm.versions,
    settings.kubeadm.imageRepository,
  );
  const missing = await missingArtifacts(plan, versions, settings.artifacts, runner);
  return missing.flatMap((m) => [m.message, `    ${m.artifact.what}: ${m.artifact.from}`]);
}

/** Provisions the lab's nodes; a second run changes nothing. */
export async function provisionCommand(
  store: LabStore,
  name: string,
  sshConfig?: string,
): Promise<ProvisionResult> {
  const { paths, plan, settings, log, runner } = open(store, name);
  const file = sshConfig ?? sshConfigFile(paths.dir);
  if (!existsSync(file)) {
    throw new ProvisionError(`no SSH targets: ${file} does not exist`, {
      node: '-',
      step: 'connect',
      hint: 'the libvirt provider writes it when the VMs are up; or pass --ssh-config FILE (output of `vagrant ssh-config`)',
    });
  }
  const targets = targetsFromSshConfig(readFileSync(file, 'utf8'), plan);
  return provision(plan, targets, {
    runner,
    log,
    progress: progressFor(log, '[provision] '),
    stateDir: paths.dir,
    settings,
  });
}
