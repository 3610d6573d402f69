/**
 * The Linux node steps on one real node, twice, from the artifact cache, then the Kubernetes step
 * stopping at "artifact missing": what the Debian sandbox test and the libvirt VM test both check.
 * Test support (chai assertions), not a test file itself.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CommandRunner, RunResult } from '../exec/command-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { PlainProgress } from '../log/progress.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { externalRoute } from '../plan/outbound-nat.ts';
import { DEBIAN_REPO_DIR, imageTarball } from '../provision/artifact-catalogue.ts';
import { filesBelow } from '../provision/artifact-upload.ts';
import {
  componentVersions,
  flannelImages,
  type ComponentVersions,
} from '../provision/component-versions.ts';
import { LabProvisioner } from '../provision/lab-provisioner.ts';
import { SCRIPTS_DIR } from '../provision/node-stage.ts';
import { writeOciArchive } from './oci-archive.ts';
import { ProvisionError } from '../provision/provision-error.ts';
import { provisionSettingsOf } from '../provision/provision-settings.ts';
import { linuxBaseSteps } from '../provision/provision-steps.ts';
import type { ScriptStep } from '../provision/step-runner.ts';
import { SshNodeShell, type SshTarget } from '../remote/ssh-node-shell.ts';

/** Fills `cache`'s Debian repository with apt-get download: needs this host's Debian mirror. */
export async function stageDebianPackages(runner: CommandRunner, cache: string): Promise<void> {
  await runner.run('bash', [join(SCRIPTS_DIR, 'linux', 'stage-debian-packages.sh'), cache], {
    timeoutMs: 10 * 60_000,
  });
}

/** No registry here: stand-in images under flannel's names, so the import runs for real. */
export async function writeStandInImages(
  runner: CommandRunner,
  cache: string,
  versions: ComponentVersions,
): Promise<void> {
  mkdirSync(join(cache, 'images', 'linux'), { recursive: true });
  for (const ref of Object.values(flannelImages(versions))) {
    await writeOciArchive(
      runner,
      ref,
      { 'stand-in.txt': `${ref}\n` },
      join(cache, imageTarball('linux', ref)),
    );
  }
}

/** Paths that change without provisioning, or that the harness re-stages on every run. */
const VOLATILE = [
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/tmp',
  '/var/tmp',
  '/var/log',
  '/var/cache',
  '/var/lib/containerd',
  '/var/lib/systemd',
  '/opt/hybrid-lab/artifacts',
  '/opt/hybrid-lab/scripts',
  '/opt/hybrid-lab/config',
];
const MARK = '/run/hl-mark';

export interface LinuxStepsCheckOptions {
  runner: CommandRunner;
  /** A kubeadm plan with a Linux node named `target.node`. */
  plan: LabPlan;
  /** How ssh reaches the node (a sudo-capable login, as on a Vagrant box). */
  target: SshTarget;
  /** The host's artifact cache: Debian repository and image tarballs. */
  cache: string;
  /** Where the provisioner keeps staged files and per-node logs. */
  stateDir: string;
  /** More paths the node changes on its own (e.g. another dataplane's state). */
  volatile?: readonly string[];
  /** Steps this node cannot run, each with why (a sandbox without a lab NIC has no external route). */
  without?: Readonly<Record<string, string>>;
}

/** A VM's Linux node: the provisioner installs the runtime; flannel, as the default lab. */
const VM_NEEDS = { runtime: 'install', cni: 'flannel' } as const;

export class LinuxStepsCheck {
  readonly provisioner: LabProvisioner;
  readonly shell: SshNodeShell;
  readonly node: PlannedNode;
  /** Seconds each phase took: firstRun, secondRun, kubernetesStep. */
  readonly seconds: Record<string, number> = {};
  readonly #lines: string[] = [];
  readonly #versions: ComponentVersions;
  readonly #state: string;
  readonly #modified: string;
  #afterFirst = '';

  constructor(private readonly options: LinuxStepsCheckOptions) {
    const { plan, target, runner } = options;
    const node = plan.nodes.find((n) => n.name === target.node);
    if (node?.os !== 'linux')
      throw new ProvisionError('not a Linux node of the plan', { node: target.node, step: 'plan' });
    this.node = node;
    this.#versions = componentVersions(plan);
    this.shell = new SshNodeShell(target.node, { target }, runner, { flavour: 'posix' });
    const prune = String.raw`\( ${[...VOLATILE, ...(options.volatile ?? [])].map((p) => `-path ${p}`).join(' -o ')} \) -prune`;
    // What a re-run must leave alone: files (type, mode, size, mtime, link), sysctls, services,
    // images, the route to the external network.
    this.#state = `find / -xdev ${prune} -o ! -path /opt/hybrid-lab -printf '%p %y %m %s %T@ %l\\n' | sort | sha256sum; sysctl -n net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables; systemctl is-active containerd; ctr -n k8s.io images list -q; ip route show ${externalRoute(plan)}`;
    this.#modified = `find / -xdev ${prune} -o -newer ${MARK} ! -path /opt/hybrid-lab -print`;
    const log = silentLogger();
    this.provisioner = new LabProvisioner(plan, {
      runner,
      log,
      progress: new PlainProgress(log, (l) => this.#lines.push(l)),
      stateDir: options.stateDir,
      settings: { ...provisionSettingsOf({}), artifacts: { kind: 'dir', dir: options.cache } },
      versions: this.#versions,
      kubeadmImages: [],
      shells: new Map([[node.name, this.shell]]),
      sshTimeoutMs: 60_000,
    });
  }

  /** Runs a bash script as root on the node (through sudo, as the provisioner does). */
  root(script: string, check = true): Promise<RunResult> {
    return this.shell.exec(['sudo', 'bash', '-c', script], { check, timeoutMs: 10 * 60_000 });
  }

  /** Uploads the cache, sets kernel settings, installs containerd + runc + CNI plugins, imports images. */
  async firstRun(): Promise<void> {
    const changes = await this.#timed('firstRun', () => this.#provisionOnce());
    const images = this.provisioner.imageTarballs(this.node).length;
    expect(changes.artifacts).to.equal(
      filesBelow(this.options.cache, DEBIAN_REPO_DIR).length + images,
    );
    expect(changes.kernel).to.be.greaterThan(0);
    const names = await this.root(
      'hostname; getent hosts "$(hostname)" >/dev/null && echo resolves',
    );
    expect(names.stdout.trim().split('\n'), 'hostname = node name, resolvable').to.deep.equal([
      this.node.name,
      'resolves',
    ]);
    expect(changes.containerd).to.be.greaterThan(0);
    expect(changes.images).to.equal(images);
    if (!('external-route' in (this.options.without ?? {}))) {
      expect(changes['external-route'], 'the route unit written').to.be.greaterThan(0);
      const route = await this.root(`ip route show ${externalRoute(this.options.plan)}`);
      expect(route.stdout).to.include(`via ${this.options.plan.network.gateway} dev `);
    }
    const installed = await this.root(
      'dpkg-query -W containerd runc containernetworking-plugins >/dev/null && containerd config dump | grep -c "SystemdCgroup = true" && readlink /opt/cni/bin/bridge && ctr version >/dev/null && echo server-ok',
    );
    expect(installed.stdout.trim().split('\n')).to.deep.equal([
      '1',
      '/usr/lib/cni/bridge',
      'server-ok',
    ]);
    this.#afterFirst = await this.#stateHash();
    expect(this.#afterFirst)
      .to.include('active')
      .and.include(flannelImages(this.#versions).flannel);
  }

  /** Nothing uploaded, every step reports no change, no path written, the state hash the same. */
  async secondRun(): Promise<void> {
    await this.root(`touch ${MARK}`);
    const changes = await this.#timed('secondRun', () => this.#provisionOnce());
    const steps = ['artifacts', ...this.#steps().map((s) => s.id)];
    expect(changes).to.deep.equal(Object.fromEntries(steps.map((s) => [s, 0])));
    expect((await this.root(this.#modified)).stdout, 'paths written by the second run').to.equal(
      '',
    );
    expect(await this.#stateHash()).to.equal(this.#afterFirst);
    const name = this.node.name;
    expect(
      this.#lines
        .map((l) => l.replace(/^\S+ /, ''))
        .filter((l) => l.startsWith(`${name} `))
        .slice(-steps.length),
    ).to.deep.equal(steps.map((s) => `${name} ${s}: no change`));
  }

  /** The Kubernetes step exits 3 naming the missing binary and the cache, and changes nothing. */
  async kubernetesStops(): Promise<void> {
    const before = await this.#stateHash();
    await this.root(`touch ${MARK}`);
    const kubernetes = linuxBaseSteps(VM_NEEDS).find((s) => s.id === 'kubernetes')!;
    const error = await this.#timed('kubernetesStep', () =>
      this.provisioner.run(this.node, [kubernetes]).catch((e: unknown) => e),
    );
    expect(error).to.be.instanceOf(ProvisionError);
    const k = this.#versions.kubernetes;
    expect((error as ProvisionError).message)
      .to.include('exited 3')
      .and.include(
        `artifact missing: kubernetes/${k}/linux/amd64/kubeadm for Kubernetes ${k} — stage it in ${this.options.cache}`,
      );
    expect((await this.root(this.#modified)).stdout).to.equal('');
    expect(await this.#stateHash()).to.equal(before);
  }

  /** The end of the node's provisioning log, for a failed test's output. */
  logTail(lines = 60): string {
    const file = this.provisioner.logs.file(this.node.name);
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '';
  }

  /** Uploads over ssh/scp, runs the base steps but Kubernetes, returns the changes per step. */
  async #provisionOnce(): Promise<Record<string, number>> {
    const from = this.provisioner.reports.length;
    await this.provisioner.prepare(this.node);
    await this.provisioner.run(this.node, this.#steps());
    return Object.fromEntries(this.provisioner.reports.slice(from).map((r) => [r.step, r.changed]));
  }

  /** The base steps but Kubernetes (it must stop at "artifact missing") and those left `without`. */
  #steps(): ScriptStep[] {
    const without = this.options.without ?? {};
    return linuxBaseSteps(VM_NEEDS).filter((s) => s.id !== 'kubernetes' && !(s.id in without));
  }

  async #stateHash(): Promise<string> {
    return (await this.root(this.#state)).stdout;
  }

  async #timed<T>(key: string, run: () => Promise<T>): Promise<T> {
    const began = performance.now();
    try {
      return await run();
    } finally {
      this.seconds[key] = Math.round((performance.now() - began) / 100) / 10;
    }
  }
}
