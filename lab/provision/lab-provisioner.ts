/** One provisioning run over a lab's nodes; `provision()` in provision-lab.ts drives it. */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../exec/command-runner.ts';
import { Redactor } from '../exec/redactor.ts';
import type { Progress } from '../log/progress.ts';
import type { Logger } from '../log/logger.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import {
  artifactsFor,
  clusterNeeds,
  DEBIAN_REPO_DIR,
  extraLinuxImages,
  imageTarball,
  kubeadmImagesFor,
  windowsImages,
} from './artifact-catalogue.ts';
import { filesBelow, syncArtifacts } from './artifact-upload.ts';
import type { ComponentVersions } from './component-versions.ts';
import { caCertHash, joinInput, newBootstrapToken } from './join-secrets.ts';
import { NodeLogs } from './node-log.ts';
import { pushNodeStage, writeNodeStage } from './node-stage.ts';
import { ProvisionError } from './provision-error.ts';
import type { ProvisionSettings } from './provision-settings.ts';
import {
  asRoot,
  StepRunner,
  type ProvisionShell,
  type ScriptStep,
  type StepReport,
} from './step-runner.ts';
import { forSsh } from '../remote/node-shell.ts';

export interface ProvisionerDeps {
  runner: CommandRunner;
  log: Logger;
  progress: Progress;
  stateDir: string;
  settings: ProvisionSettings;
  versions: ComponentVersions;
  /** `kubeadm config images list` of the chosen version (empty without a cache). */
  kubeadmImages: readonly string[];
  /** The images of upstream's e2e.test Linux nodes import (empty unless the spec asks). */
  e2eImages?: readonly string[];
  shells: ReadonlyMap<string, ProvisionShell>;
  /** Where the harness reaches the API server, when not at the control plane's address (a relay). */
  apiServer?: string;
  backoffMs?: (attempt: number) => number;
  sshTimeoutMs?: number;
}

export class LabProvisioner {
  readonly reports: StepReport[] = [];
  readonly redactor = new Redactor();
  readonly logs: NodeLogs;
  readonly #steps: StepRunner;

  constructor(
    readonly plan: LabPlan,
    private readonly deps: ProvisionerDeps,
  ) {
    this.logs = new NodeLogs(join(deps.stateDir, 'logs', 'provision'), this.redactor);
    this.#steps = new StepRunner({
      redactor: this.redactor,
      logs: this.logs,
      attempts: deps.settings.kubeadm.retries,
      ...(deps.backoffMs === undefined ? {} : { backoffMs: deps.backoffMs }),
    });
  }

  /** Hides a secret in the runner's output and errors and in every log this run writes. */
  addSecret(secret: string): void {
    this.deps.runner.addSecret(secret);
    this.redactor.add(secret);
  }

  shellOf(node: PlannedNode): ProvisionShell {
    return this.deps.shells.get(node.name)!;
  }

  /** Image tarballs (relative to the cache) `node` imports. */
  imageTarballs(node: PlannedNode): string[] {
    if (this.deps.settings.artifacts.kind === 'none') return [];
    const v = this.deps.versions;
    const refs =
      node.os === 'linux'
        ? [
            ...kubeadmImagesFor(node.role, this.deps.kubeadmImages, v),
            ...extraLinuxImages(v, clusterNeeds(this.plan)),
            ...(this.deps.e2eImages ?? []),
          ]
        : windowsImages(v);
    return refs.map((ref) => imageTarball(node.os, ref));
  }

  /** Waits for the node, copies scripts and config, and (with a cache folder) the node's artifacts. */
  async prepare(node: PlannedNode): Promise<void> {
    const shell = this.shellOf(node);
    await this.#steps.action(node.name, 'connect', () =>
      forSsh(shell, this.deps.sshTimeoutMs ?? 10 * 60_000).wait(),
    );
    const tarballs = this.imageTarballs(node);
    const local = writeNodeStage(join(this.deps.stateDir, 'provision'), {
      plan: this.plan,
      node,
      versions: this.deps.versions,
      source: this.deps.settings.artifacts,
      imageTarballs: tarballs,
      shell,
    });
    await this.#steps.action(node.name, 'stage', () => pushNodeStage(shell, node.os, local));
    const source = this.deps.settings.artifacts;
    // A namespace node reads the cache where it is.
    if (source.kind !== 'dir' || shell.hostFiles) return;
    const files = [
      ...artifactsFor(node.os, this.deps.versions, clusterNeeds(this.plan))
        .filter((a) => a.kind === 'file')
        .map((a) => a.path),
      ...(node.os === 'linux' ? filesBelow(source.dir, DEBIAN_REPO_DIR) : []),
      ...tarballs,
    ];
    const uploaded = await this.#steps.action(node.name, 'artifacts', () =>
      syncArtifacts(shell, node.os, source.dir, files),
    );
    this.#record({
      node: node.name,
      step: 'artifacts',
      changed: uploaded,
      attempts: 1,
      reboots: 0,
    });
  }

  /** Runs script steps on `node` in order (register steps of workers run on the control plane). */
  async run(node: PlannedNode, steps: readonly ScriptStep[]): Promise<void> {
    for (const step of steps) {
      this.#record(await this.#steps.script(this.shellOf(node), node.os, step));
    }
  }

  /** Copies the control plane's admin.conf to `.lab/<name>/kubeconfig` (0600). */
  async exportKubeconfig(cp: PlannedNode): Promise<string> {
    const file = join(this.deps.stateDir, 'kubeconfig');
    const result = await this.#steps.action(cp.name, 'kubeconfig', () =>
      this.shellOf(cp).exec(asRoot(this.shellOf(cp), ['cat', '/etc/kubernetes/admin.conf']), {
        timeoutMs: 60_000,
      }),
    );
    for (const match of result.stdout.matchAll(/client-key-data:\s*(\S+)/g))
      this.addSecret(match[1]!);
    const text =
      this.deps.apiServer === undefined
        ? result.stdout
        : result.stdout.replace(/^(\s*server:\s*).*$/m, `$1https://${this.deps.apiServer}`);
    const same = existsSync(file) && readFileSync(file, 'utf8') === text;
    if (!same) writeFileSync(file, text, { mode: 0o600 });
    chmodSync(file, 0o600);
    this.#record({
      node: cp.name,
      step: 'kubeconfig',
      changed: same ? 0 : 1,
      attempts: 1,
      reboots: 0,
    });
    return file;
  }

  /** Names of the plan's nodes the API server does not know yet. */
  async unregistered(cp: PlannedNode): Promise<string[]> {
    const result = await this.#steps.action(cp.name, 'nodes', () =>
      this.shellOf(cp).exec(
        asRoot(this.shellOf(cp), [
          'kubectl',
          '--kubeconfig=/etc/kubernetes/admin.conf',
          'get',
          'nodes',
          '-o',
          'name',
        ]),
      ),
    );
    const known = new Set(result.stdout.split('\n').map((l) => l.trim().replace(/^node\//, '')));
    return this.plan.nodes.filter((n) => !known.has(n.name)).map((n) => n.name);
  }

  /** A fresh bootstrap token on the control plane and the CA hash: the stdin of the joins. */
  async joinSecrets(cp: PlannedNode): Promise<string> {
    const token = newBootstrapToken();
    this.addSecret(token);
    this.addSecret(token.split('.')[1]!);
    await this.run(cp, [
      { id: 'join-token', script: 'create-join-token.sh', input: `${token}\n`, timeoutMs: 120_000 },
    ]);
    const ca = await this.#steps.action(cp.name, 'ca-hash', () =>
      this.shellOf(cp).exec(asRoot(this.shellOf(cp), ['cat', '/etc/kubernetes/pki/ca.crt']), {
        timeoutMs: 60_000,
      }),
    );
    let caHash: string;
    try {
      caHash = caCertHash(ca.stdout);
    } catch (error) {
      throw new ProvisionError('cannot compute the CA hash from /etc/kubernetes/pki/ca.crt', {
        node: cp.name,
        step: 'ca-hash',
        cause: error,
      });
    }
    this.addSecret(caHash);
    this.addSecret(caHash.slice('sha256:'.length));
    return joinInput({ token, caHash });
  }

  /** The sum of changes of every step so far. */
  changed(): number {
    return this.reports.reduce((sum, r) => sum + r.changed, 0);
  }

  #record(report: StepReport): void {
    this.reports.push(report);
    const what =
      report.changed === 0
        ? 'no change'
        : `${report.changed} change${report.changed === 1 ? '' : 's'}`;
    const extra = report.attempts > 1 ? `, ${report.attempts} attempts` : '';
    this.deps.progress.info(
      `${report.node} ${report.step}: ${what}${extra}${report.reboots > 0 ? `, ${report.reboots} reboot` : ''}`,
    );
    this.deps.log.info(
      { node: report.node, step: report.step, changed: report.changed, attempts: report.attempts },
      'provision step',
    );
  }
}
