/**
 * `provision(plan, targets, options)`: turns the VMs of a `cluster: kubeadm` lab into a hybrid
 * Kubernetes cluster. Every node's own steps (artifacts, runtime, images) run at once, the control
 * plane's init among them; each worker joins once the control plane is up. Re-running it on a
 * provisioned lab changes nothing. The libvirt provider calls it once its VMs answer SSH.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../exec/command-runner.ts';
import type { Logger } from '../log/logger.ts';
import type { Progress } from '../log/progress.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import type { PreflightProblem } from '../errors.ts';
import {
  clusterNeeds,
  E2E_ARTIFACTS,
  e2eImageRefs,
  kubeadmImageList,
} from './artifact-catalogue.ts';
import { artifactProblems, missingArtifacts, parseImageList } from './artifact-preflight.ts';
import { componentVersions, type ComponentVersions } from './component-versions.ts';
import { controlPlaneOf } from './kubeadm-config.ts';
import { LabProvisioner } from './lab-provisioner.ts';
import { ProvisionError } from './provision-error.ts';
import type { ProvisionSettings } from './provision-settings.ts';
import {
  controlPlaneSteps,
  joinStep,
  linuxBaseSteps,
  readyStep,
  registerStep,
  windowsBaseSteps,
  windowsNetworkSteps,
} from './provision-steps.ts';
import { SshNodeShell, type SshTarget } from '../remote/ssh-node-shell.ts';
import type { ProvisionShell, StepReport } from './step-runner.ts';

export interface ProvisionOptions {
  runner: CommandRunner;
  log: Logger;
  progress: Progress;
  /** `.lab/<name>/`: the kubeconfig, logs/provision/<node>.log and provision/<node>/ go here. */
  stateDir: string;
  /** From the spec: `provisionSettingsOf(spec)` or `provisionSettingsFromText(...)`. */
  settings: ProvisionSettings;
  /** Where the harness reaches the API server when not at the control plane's address (a relay); the kubeconfig says so. */
  apiServer?: string;
  /** Milliseconds before retry n; default 2 s × n. */
  backoffMs?: (attempt: number) => number;
  /** How long a node may take to answer SSH; default 10 min. */
  sshTimeoutMs?: number;
}

export interface ProvisionResult {
  /** `.lab/<name>/kubeconfig`, mode 0600. */
  kubeconfig: string;
  reports: StepReport[];
  /** Changes made by this run; 0 when the lab was already provisioned. */
  changed: number;
}

/** kubeadm's image list for the version, from the cache (none without one). */
async function kubeadmImages(
  options: ProvisionOptions,
  versions: ComponentVersions,
): Promise<string[]> {
  return parseImageList(await readCacheText(options, kubeadmImageList(versions)));
}

/** The images of upstream's e2e.test every Linux node imports, when the spec asks for them. */
async function e2eImages(
  options: ProvisionOptions,
  versions: ComponentVersions,
): Promise<string[]> {
  if (versions.e2eImages !== true) return [];
  return e2eImageRefs(await readCacheText(options, E2E_ARTIFACTS.images));
}

/** A text file of the cache ('' without one, or when it is not there). */
async function readCacheText(options: ProvisionOptions, rel: string): Promise<string> {
  const source = options.settings.artifacts;
  if (source.kind === 'dir') {
    const file = join(source.dir, ...rel.split('/'));
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }
  if (source.kind === 'url') {
    const result = await options.runner.run(
      'curl',
      ['-fsSL', '--max-time', '20', `${source.url}/${rel}`],
      { timeoutMs: 30_000 },
    );
    return result.stdout;
  }
  return '';
}

/** SSH shells to the plan's nodes (VMs): Linux logins run root's commands through sudo. */
export function sshProvisionShells(
  plan: LabPlan,
  targets: readonly SshTarget[],
  runner: CommandRunner,
): Map<string, ProvisionShell> {
  const shells = new Map<string, ProvisionShell>();
  for (const node of plan.nodes) {
    const target = targets.find((t) => t.node === node.name);
    if (target === undefined) {
      throw new ProvisionError('no SSH target was given for this node', {
        node: node.name,
        step: 'connect',
        hint: `targets given: ${targets.map((t) => t.node).join(', ') || 'none'}`,
      });
    }
    shells.set(
      node.name,
      new SshNodeShell(node.name, { target }, runner, {
        flavour: node.os === 'linux' ? 'posix' : 'powershell',
      }),
    );
  }
  return shells;
}

/** For a provider's preflight(): what the artifact cache lacks for this plan, as problems. */
export async function kubeadmPreflight(
  plan: LabPlan,
  settings: ProvisionSettings,
  runner: CommandRunner,
): Promise<PreflightProblem[]> {
  if (plan.cluster !== 'kubeadm') return [];
  const versions = componentVersions(plan, settings.kubeadm);
  return artifactProblems(await missingArtifacts(plan, versions, settings.artifacts, runner));
}

/** Provisions every node of the plan; throws ProvisionError naming node, step, command, output. */
export async function provision(
  plan: LabPlan,
  shells: ReadonlyMap<string, ProvisionShell>,
  options: ProvisionOptions,
): Promise<ProvisionResult> {
  if (plan.cluster !== 'kubeadm') {
    throw new ProvisionError(
      `lab ${plan.name} is a "${plan.cluster}" cluster; only kubeadm clusters are provisioned`,
      { node: '-', step: 'plan' },
    );
  }
  const cp = controlPlaneOf(plan);
  const { settings, progress } = options;
  const versions = componentVersions(plan, settings.kubeadm);
  const missing = await missingArtifacts(plan, versions, settings.artifacts, options.runner);
  if (missing.length > 0) {
    throw new ProvisionError(
      `the artifact cache lacks ${missing.length} file(s) for this lab:\n${missing.map((m) => `  ${m.message}`).join('\n')}`,
      {
        node: '-',
        step: 'preflight',
        hint: 'stage them as docs/kubeadm.md "Artifact cache" describes (where to get each: `npm run lab -- provision --preflight`)',
      },
    );
  }
  for (const node of plan.nodes) {
    if (!shells.has(node.name)) {
      throw new ProvisionError('no shell reaches this node', { node: node.name, step: 'connect' });
    }
  }
  const needs = clusterNeeds(plan);
  const run = new LabProvisioner(plan, {
    ...options,
    versions,
    kubeadmImages: await kubeadmImages(options, versions),
    e2eImages: await e2eImages(options, versions),
    shells,
  });
  const cpSteps = controlPlaneSteps();
  let kubeconfig = '';
  const workers = plan.nodes.filter((n) => n !== cp);
  const controlPlaneUp = async (): Promise<void> => {
    await run.prepare(cp);
    await run.run(cp, [...linuxBaseSteps(needs), ...cpSteps.init]);
    kubeconfig = await run.exportKubeconfig(cp);
    await run.run(cp, [...cpSteps.addons, registerStep(plan.id, cp)]);
  };
  const cpUp = controlPlaneUp();
  // Which workers still join, and their secrets: asked of the control plane once, when it is up.
  const joining = cpUp.then(async () => {
    const pending = new Set(await run.unregistered(cp));
    const input = workers.some((w) => pending.has(w.name)) ? await run.joinSecrets(cp) : undefined;
    return { pending, input };
  });
  joining.catch(() => undefined); // the control plane's own step reports its failure
  await progress.parallel([
    { title: `control plane ${cp.name}`, run: () => cpUp },
    ...workers.map((node) => ({
      title: `${node.os} worker ${node.name}`,
      run: async () => {
        await run.prepare(node);
        await run.run(node, node.os === 'linux' ? linuxBaseSteps(needs) : windowsBaseSteps());
        const { pending, input } = await joining;
        await run.run(node, [joinStep(node, pending.has(node.name) ? input : undefined)]);
        await run.run(cp, [registerStep(plan.id, node)]);
        if (node.os === 'windows') await run.run(node, windowsNetworkSteps());
      },
    })),
  ]);
  await progress.step('every node Ready', () => run.run(cp, [readyStep()]));
  options.log.info({ changed: run.changed(), kubeconfig }, 'lab provisioned');
  return { kubeconfig, reports: run.reports, changed: run.changed() };
}
