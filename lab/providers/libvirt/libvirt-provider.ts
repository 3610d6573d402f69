/**
 * The libvirt provider: real VMs with Vagrant + vagrant-libvirt, one Vagrant project per
 * hypervisor brought up in parallel; `cluster: emulated` then installs the emulated dataplane
 * inside the Linux VMs. All-or-nothing: a failed `up` removes everything it created.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import type { LabPlan, PlannedHypervisor } from '../../plan/lab-plan.ts';
import { kubeadmPreflight, provision, sshProvisionShells } from '../../provision/provision-lab.ts';
import {
  provisionSettingsFromText,
  type ProvisionSettings,
} from '../../provision/provision-settings.ts';
import { targetsFromSshConfig } from '../../provision/ssh-config.ts';
import type { LabProvider, ProviderContext } from '../lab-provider.ts';
import type { PreflightProblem } from '../../errors.ts';
import { emulatedPreflight, hostAddresses, installEmulatedCluster } from './emulated-vms.ts';
import { labProcesses, stampedProcesses } from '../../exec/lab-processes.ts';
import { chooseDriver, type DriverChoice } from './kvm-probe.ts';
import { kvmProbeName, libvirtDir } from './libvirt-names.ts';
import { libvirtPreflight, type PreflightFacts } from './libvirt-preflight.ts';
import { LibvirtStartedLab } from './libvirt-started-lab.ts';
import { LibvirtStateStore, type LibvirtState } from './libvirt-state.ts';
import { answers, labTarget, reapTarget, reapUris, teardown } from './libvirt-teardown.ts';
import { bringUpVms } from './vm-bring-up.ts';
import { Virsh } from './virsh.ts';

export interface LibvirtProviderOptions {
  /** Bring hypervisors up at once (default) or one after the other (benchmarks). */
  parallel?: boolean;
  /** How long vagrant waits for a VM to boot. */
  bootTimeoutSeconds?: number;
}

export class LibvirtProvider implements LabProvider {
  readonly name = 'libvirt' as const;
  #facts: PreflightFacts | undefined;
  readonly #drivers = new Map<string, DriverChoice>();

  constructor(
    private readonly context: ProviderContext,
    private readonly options: LibvirtProviderOptions = {},
  ) {}

  /** Tools, hypervisors (with the KVM probe), boxes, memory, bridge, and the emulated outside. */
  async preflight(plan: LabPlan): Promise<PreflightProblem[]> {
    const { runner, log } = this.context;
    mkdirSync(libvirtDir(this.context.stateDir), { recursive: true });
    const probe = async (h: PlannedHypervisor, virsh: Virsh): Promise<'kvm' | 'qemu'> => {
      const file = join(libvirtDir(this.context.stateDir), `kvmprobe-${h.name}.xml`);
      const choice = await chooseDriver(
        virsh,
        kvmProbeName(plan, h.name),
        file,
        process.env.HL_LIBVIRT_DRIVER,
      );
      this.#drivers.set(h.name, choice);
      log.info(
        { provider: this.name, hypervisor: h.name, ...choice },
        `libvirt driver ${choice.driver}`,
      );
      if (choice.driver === 'qemu')
        this.context.progress.info(`${h.name}: driver qemu — ${choice.reason}`);
      return choice.driver;
    };
    const { problems, facts } = await libvirtPreflight(runner, plan, probe);
    this.#facts = facts;
    return [
      ...problems,
      ...emulatedPreflight(plan, await hostAddresses(runner)),
      ...(plan.cluster === 'kubeadm'
        ? await kubeadmPreflight(plan, this.#provisionSettings(), runner)
        : []),
    ];
  }

  /** `artifacts` and `kubeadm` of the spec `lab up` kept in the lab's folder. */
  #provisionSettings(): ProvisionSettings {
    const file = join(this.context.stateDir, 'spec.yaml');
    return provisionSettingsFromText(readFileSync(file, 'utf8'), file, process.cwd());
  }

  async up(plan: LabPlan): Promise<LibvirtStartedLab> {
    const { log } = this.context;
    if (this.#facts === undefined) {
      const problems = await this.preflight(plan);
      if (problems.length > 0) {
        throw new ProviderError(
          `libvirt provider cannot run here: ${problems.map((p) => p.what).join('; ')}`,
          {
            hint: problems.map((p) => p.fix).join('\n'),
          },
        );
      }
    }
    await this.#refuseLeftovers(plan);
    const started = performance.now();
    log.info(
      { provider: this.name, lab: plan.id, nodes: plan.nodes.length, cluster: plan.cluster },
      'bringing up libvirt lab',
    );
    try {
      const lab = await this.#build(plan);
      log.info(
        { provider: this.name, lab: plan.id, ms: Math.round(performance.now() - started) },
        'libvirt lab up',
      );
      return lab;
    } catch (error) {
      log.error(
        { provider: this.name, lab: plan.id, err: error },
        'up failed; removing what was created',
      );
      await teardown(
        this.context.runner,
        log,
        labTarget(this.context.runner, plan, this.context.stateDir),
      ).catch(() => {
        // teardown logged each of its errors; the original failure is what the caller needs.
      });
      throw error;
    }
  }

  async #refuseLeftovers(plan: LabPlan): Promise<void> {
    const used = plan.hypervisors.filter((h) => h.nodes.length > 0);
    // This preflight's own KVM probes are transient and on their way out, not leftovers.
    const probes = new Set(plan.hypervisors.map((h) => kvmProbeName(plan, h.name)));
    const found = (
      await Promise.all(
        used.map((h) => new Virsh(this.context.runner, h.uri).labResources(plan.id)),
      )
    )
      .flat()
      .filter((r) => !(r.kind === 'domain' && probes.has(r.name)));
    if (found.length > 0 || labProcesses(plan.id).length > 0) {
      throw new ProviderError(
        `lab ${plan.id} already has ${found.length > 0 ? found.map((r) => `${r.kind} ${r.name}`).join(', ') : 'running processes'}`,
        { hint: `run \`lab down\`, or \`lab reap --lab ${plan.name}\` after a crash` },
      );
    }
  }

  async #build(plan: LabPlan): Promise<LibvirtStartedLab> {
    const { progress } = this.context;
    const state = await bringUpVms(this.context, plan, {
      drivers: this.#drivers,
      hosts: this.#facts?.hosts ?? {},
      parallel: this.options.parallel ?? true,
      bootTimeoutSeconds: this.options.bootTimeoutSeconds ?? 900,
    });
    const lab = new LibvirtStartedLab(plan, this.context, state);
    if (lab.cluster !== undefined) {
      const cluster = lab.cluster;
      const began = performance.now();
      await progress.step('emulated dataplane inside the VMs (pods are namespaces)', () =>
        installEmulatedCluster(cluster),
      );
      state.timings.emulatedMs = Math.round(performance.now() - began);
      new LibvirtStateStore(libvirtDir(this.context.stateDir)).write(state);
    }
    if (plan.cluster === 'kubeadm') {
      const began = performance.now();
      const { runner, log, stateDir } = this.context;
      const targets = targetsFromSshConfig(readFileSync(state.sshConfig, 'utf8'), plan);
      await provision(plan, sshProvisionShells(plan, targets, runner), {
        runner,
        log: log.child({ component: 'provision' }),
        progress,
        stateDir,
        settings: this.#provisionSettings(),
      });
      state.timings.provisionMs = Math.round(performance.now() - began);
      new LibvirtStateStore(libvirtDir(stateDir)).write(state);
    }
    return lab;
  }

  /** Re-attaches to a lab brought up by another process. */
  attach(plan: LabPlan): Promise<LibvirtStartedLab> {
    const store = new LibvirtStateStore(libvirtDir(this.context.stateDir));
    if (!store.exists()) {
      return Promise.reject(
        new ProviderError(`lab ${plan.id} is not up: ${store.file} is missing`, {
          hint: 'run `lab up` (after `lab reap` if a crash left pieces)',
        }),
      );
    }
    const state: LibvirtState = store.read();
    return Promise.resolve(new LibvirtStartedLab(plan, this.context, state));
  }

  /** Ids of every lab with domains, networks, volumes or processes here or on known hypervisors. */
  async listLabIds(): Promise<string[]> {
    const ids = new Set<string>();
    for (const { uri, required } of reapUris(this.context.stateDir)) {
      if (!required && !(await answers(this.context.runner, uri))) continue;
      for (const r of await new Virsh(this.context.runner, uri).labResources('--all'))
        ids.add(r.labId);
    }
    for (const { labId } of stampedProcesses()) ids.add(labId);
    return [...ids].sort();
  }

  /** Removes everything stamped with `labId` (every hybrid-lab lab's without it). */
  async reap(labId?: string): Promise<string[]> {
    const ids = labId === undefined ? await this.listLabIds() : [labId];
    const removed: string[] = [];
    for (const id of ids) {
      removed.push(
        ...(await teardown(
          this.context.runner,
          this.context.log,
          reapTarget(this.context.runner, this.context.stateDir, id),
        )),
      );
    }
    return removed;
  }
}
