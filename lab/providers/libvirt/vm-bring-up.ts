/**
 * The VM half of `up`: the lab's libvirt networks, one Vagrant project per hypervisor brought
 * up at once (or one after the other), then the lab's ssh_config and a master per node.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import { LAB_ID_ENV } from '../../exec/lab-processes.ts';
import { formatCidr, overlaps, parseCidr, type Cidr } from '../../net/ipv4.ts';
import type { LabPlan, PlannedHypervisor } from '../../plan/lab-plan.ts';
import { serializePlan } from '../../plan/plan-lab.ts';
import type { ProviderContext } from '../lab-provider.ts';
import { settleAll } from '../../wait/poll.ts';
import type { DriverChoice } from './kvm-probe.ts';
import { configureLabNic } from './lab-nic.ts';
import {
  labNetworkName,
  libvirtDir,
  sshConfigFile,
  logsDir,
  managementNetworkName,
  projectDir,
} from './libvirt-names.ts';
import {
  chooseManagementCidr,
  labNetworkXml,
  managementNetworkXml,
  planSubnets,
} from './libvirt-networks.ts';
import { LibvirtStateStore, type HypervisorState, type LibvirtState } from './libvirt-state.ts';
import { planCopy } from './libvirt-teardown.ts';
import { controlPath, parseSshConfig, renderSshConfig } from '../../remote/ssh-config.ts';
import { startMasters } from '../../remote/ssh-masters.ts';
import { vmShell } from './vm-shell.ts';
import { VagrantLogWatcher } from './vagrant-log-watcher.ts';
import { VagrantProject } from './vagrant-project.ts';
import { Virsh } from './virsh.ts';

export interface BringUpOptions {
  drivers: ReadonlyMap<string, DriverChoice>;
  /** Host UUID per hypervisor: projects on one host wait for the first to upload the box. */
  hosts: Readonly<Record<string, string>>;
  parallel: boolean;
  bootTimeoutSeconds: number;
}

/** Unix sockets cannot have longer paths (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;
/** Where a remote hypervisor host keeps the console logs. */
const REMOTE_CONSOLE_DIR = '/var/log/libvirt/qemu';

export async function bringUpVms(
  context: ProviderContext,
  plan: LabPlan,
  options: BringUpOptions,
): Promise<LibvirtState> {
  const { runner, progress, stateDir } = context;
  const dir = libvirtDir(stateDir);
  mkdirSync(dir, { recursive: true });
  mkdirSync(logsDir(stateDir), { recursive: true });
  writeFileSync(planCopy(stateDir), serializePlan(plan));
  const used = plan.hypervisors.filter((h) => h.nodes.length > 0);
  const timings: Record<string, number> = {};
  const time = async <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const began = performance.now();
    try {
      return await run();
    } finally {
      timings[key] = Math.round(performance.now() - began);
    }
  };

  const hypervisors = await time('networksMs', () =>
    progress.step('libvirt networks', () => createNetworks(context, plan, used, options)),
  );
  const projects = new Map(
    hypervisors.map((h) => {
      const project = new VagrantProject(runner, h.projectDir, planCopy(stateDir), plan.id);
      project.write({
        hypervisor: h.name,
        driver: h.driver,
        managementNetwork: h.managementNetwork,
        managementCidr: h.managementCidr,
        labNetwork: h.labNetwork,
        consoleLogDir:
          used.find((u) => u.name === h.name)?.remote === true
            ? REMOTE_CONSOLE_DIR
            : logsDir(stateDir),
        bootTimeoutSeconds: options.bootTimeoutSeconds,
      });
      return [h.name, project] as const;
    }),
  );
  await time('vagrantUpMs', () => vagrantUpAll(context, used, projects, options, timings));

  const sshConfig = sshConfigFile(stateDir);
  if (controlPath(dir, 'x'.repeat(20)).length > MAX_SOCKET_PATH) {
    throw new ProviderError(
      `ssh control sockets under ${dir} would exceed ${MAX_SOCKET_PATH} bytes`,
      {
        hint: 'use a shorter LAB_HOME (the .lab folder)',
      },
    );
  }
  const masters = await time('sshMs', () =>
    progress.step('ssh masters to every VM', async () => {
      const text = (await Promise.all([...projects.values()].map((p) => p.sshConfig()))).join('\n');
      writeFileSync(sshConfig, renderSshConfig(parseSshConfig(text), dir), { mode: 0o600 });
      return startMasters(
        {
          runner,
          configFile: sshConfig,
          env: { [LAB_ID_ENV]: plan.id },
          logDir: logsDir(stateDir),
        },
        plan.nodes.map((n) => n.name),
      );
    }),
  );
  const state: LibvirtState = {
    format: 1,
    labId: plan.id,
    hypervisors,
    sshConfig,
    masters,
    timings,
  };
  new LibvirtStateStore(dir).write(state);
  const linux = plan.nodes.filter((n) => n.guestOs === 'linux');
  await time('labNicsMs', () =>
    progress.step('lab network addresses on the Linux VMs', () =>
      settleAll(
        linux.map((n) => configureLabNic(vmShell(n.name, sshConfig, runner, 'linux'), plan, n)),
      ),
    ),
  );
  new LibvirtStateStore(dir).write(state);
  return state;
}

/** A management network per hypervisor and, in private mode, the lab network. */
async function createNetworks(
  context: ProviderContext,
  plan: LabPlan,
  used: readonly PlannedHypervisor[],
  options: BringUpOptions,
): Promise<HypervisorState[]> {
  const { runner, stateDir } = context;
  const taken: Cidr[] = planSubnets(plan);
  const result: HypervisorState[] = [];
  for (const h of used) {
    const virsh = new Virsh(runner, h.uri);
    const existing = await virsh.networks();
    const lab = parseCidr(plan.network.cidr)!;
    const clash = existing.find((n) => n.subnets.some((s) => overlaps(s, lab)));
    if (plan.network.mode === 'private' && clash !== undefined) {
      throw new ProviderError(
        `libvirt network ${clash.name} on ${h.uri} already uses ${plan.network.cidr}, the lab network of ${plan.id}`,
        { hint: 'give the lab another network.cidr, or remove that network' },
      );
    }
    taken.push(...existing.flatMap((n) => n.subnets));
    const subnet = chooseManagementCidr(taken);
    taken.push(subnet);
    const name = managementNetworkName(plan, h.name);
    const file = join(libvirtDir(stateDir), `${name}.xml`);
    writeFileSync(file, managementNetworkXml(name, subnet));
    await virsh.createNetwork(name, file);
    let labNetwork: string | null = null;
    if (plan.network.mode === 'private') {
      labNetwork = labNetworkName(plan);
      const labFile = join(libvirtDir(stateDir), `${labNetwork}.xml`);
      writeFileSync(labFile, labNetworkXml(plan));
      await virsh.createNetwork(labNetwork, labFile);
    }
    const choice = options.drivers.get(h.name) ?? { driver: 'qemu', reason: 'no KVM probe ran' };
    result.push({
      name: h.name,
      uri: h.uri,
      driver: choice.driver,
      driverReason: choice.reason,
      managementNetwork: name,
      managementCidr: formatCidr(subnet),
      labNetwork,
      projectDir: projectDir(stateDir, h.name),
    });
  }
  return result;
}

/** `vagrant up` per project; hypervisors sharing a host start after the first uploaded the box. */
async function vagrantUpAll(
  context: ProviderContext,
  used: readonly PlannedHypervisor[],
  projects: ReadonlyMap<string, VagrantProject>,
  options: BringUpOptions,
  timings: Record<string, number>,
): Promise<void> {
  const { progress, stateDir } = context;
  const hostOf = (h: PlannedHypervisor): string => options.hosts[h.name] ?? h.uri;
  // Two vagrants uploading one box to one pool collide; the first project of a host goes ahead.
  const boxUploaded = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  for (const h of used) {
    if (boxUploaded.has(hostOf(h))) continue;
    let resolve = (): void => undefined;
    const promise = new Promise<void>((r) => (resolve = r));
    boxUploaded.set(hostOf(h), { promise, resolve });
  }
  const upOne = async (h: PlannedHypervisor): Promise<void> => {
    const gate = boxUploaded.get(hostOf(h))!;
    const first = used.find((u) => hostOf(u) === hostOf(h)) === h;
    if (!first) await gate.promise;
    const log = join(logsDir(stateDir), `vagrant-${h.name}.log`);
    const watcher = new VagrantLogWatcher(log, h.name, progress).start();
    if (first) void watcher.reached('creating the domain').then(gate.resolve);
    const began = performance.now();
    try {
      await projects.get(h.name)!.up(log);
    } finally {
      watcher.stop();
      gate.resolve();
      timings[`vagrantUp.${h.name}Ms`] = Math.round(performance.now() - began);
      for (const [node, ms] of Object.entries(watcher.durations('starting', 'booted')))
        timings[`boot.${node}Ms`] = ms;
    }
  };
  const title = (h: PlannedHypervisor) =>
    `vagrant up on ${h.name} (${h.nodes.join(', ')}; driver ${options.drivers.get(h.name)?.driver ?? 'qemu'})`;
  if (options.parallel) {
    await progress.parallel(used.map((h) => ({ title: title(h), run: () => upOne(h) })));
  } else {
    for (const h of used) await progress.step(title(h), () => upOne(h));
  }
}
