/**
 * `lab provision [--preflight]`: (re-)provisions a kubeadm lab that is up, or lists what its
 * artifact cache lacks. Targets come from the lab's ssh_config (the libvirt provider writes
 * `.lab/<name>/libvirt/ssh_config` from `vagrant ssh-config`) or from --ssh-config FILE.
 */
import { existsSync, readFileSync } from 'node:fs';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { openLab } from '../lifecycle/open-lab.ts';
import { progressFor } from '../log/progress.ts';
import { sshConfigFile } from '../providers/libvirt/libvirt-names.ts';
import type { LabStore } from '../state/lab-store.ts';
import { missingArtifacts } from '../provision/artifact-preflight.ts';
import { componentVersions } from '../provision/component-versions.ts';
import { ProvisionError } from '../provision/provision-error.ts';
import { provision, sshProvisionShells, type ProvisionResult } from '../provision/provision-lab.ts';
import {
  provisionSettingsFromText,
  type ProvisionSettings,
} from '../provision/provision-settings.ts';
import { targetsFromSshConfig } from '../provision/ssh-config.ts';

function settingsOf(store: LabStore, name: string): ProvisionSettings {
  const { spec } = store.paths(name);
  return provisionSettingsFromText(readFileSync(spec, 'utf8'), spec, process.cwd());
}

/** One line per missing artifact, each followed by where to get it; empty when complete. */
export async function provisionPreflight(store: LabStore, name: string): Promise<string[]> {
  const plan = store.readPlan(name);
  const settings = settingsOf(store, name);
  const runner = new ExecaRunner(silentLogger());
  const versions = componentVersions(plan, settings.kubeadm);
  const missing = await missingArtifacts(plan, versions, settings.artifacts, runner);
  return missing.flatMap((m) => [m.message, `    ${m.artifact.what}: ${m.artifact.from}`]);
}

/** Provisions the lab's nodes; a second run changes nothing. */
export async function provisionCommand(
  store: LabStore,
  name: string,
  sshConfig?: string,
): Promise<ProvisionResult> {
  const { paths, plan, log, runner } = await openLab(store, name, 'provision');
  const settings = settingsOf(store, name);
  const file = sshConfig ?? sshConfigFile(paths.dir);
  if (!existsSync(file)) {
    throw new ProvisionError(`no SSH targets: ${file} does not exist`, {
      node: '-',
      step: 'connect',
      hint: 'the libvirt provider writes it when the VMs are up; or pass --ssh-config FILE (output of `vagrant ssh-config`)',
    });
  }
  const targets = targetsFromSshConfig(readFileSync(file, 'utf8'), plan);
  return provision(plan, sshProvisionShells(plan, targets, runner), {
    runner,
    log,
    progress: progressFor(log, '[provision] '),
    stateDir: paths.dir,
    settings,
  });
}
