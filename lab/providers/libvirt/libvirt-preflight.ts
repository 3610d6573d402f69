/**
 * What a libvirt lab needs before `up`, one problem per missing thing: vagrant and
 * vagrant-libvirt, an answering libvirtd per hypervisor, the boxes, memory, the bridge.
 */
import { existsSync } from 'node:fs';
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { LabPlan, PlannedHypervisor } from '../../plan/lab-plan.ts';
import type { PreflightProblem } from '../../errors.ts';
import { RESERVED_DIRS } from './libvirt-names.ts';
import { BOX_RECIPES } from './repo-paths.ts';
import { Virsh } from './virsh.ts';

/** Host memory a guest costs, per MiB it is given: QEMU emulation roughly doubles it. */
const MEMORY_FACTOR = { kvm: 1.15, qemu: 2 } as const;
const HOST_RESERVE_MIB = 512;

async function answers(
  runner: CommandRunner,
  file: string,
  args: string[],
): Promise<string | undefined> {
  try {
    const result = await runner.run(file, args, { check: false, timeoutMs: 30_000 });
    return result.exitCode === 0 ? result.stdout : undefined;
  } catch {
    return undefined;
  }
}

/** Boxes vagrant has for libvirt, as "name" per line of `vagrant box list --machine-readable`. */
export function libvirtBoxes(machineReadable: string): Set<string> {
  const boxes = new Set<string>();
  let name: string | undefined;
  for (const line of machineReadable.split('\n')) {
    const [, , type, value] = line.split(',');
    if (type === 'box-name') name = value;
    if (type === 'box-provider' && value === 'libvirt' && name !== undefined) boxes.add(name);
  }
  return boxes;
}

/** MiB the host can still give: free + buffers + cached from `virsh nodememstats` (KiB). */
export function availableMiB(nodememstats: string): number {
  const kib = (key: string) =>
    Number(new RegExp(`^${key}\\s*:\\s*(\\d+)`, 'm').exec(nodememstats)?.[1] ?? 0);
  return Math.floor((kib('free') + kib('buffers') + kib('cached')) / 1024);
}

/** MiB the guests of one hypervisor cost the host. */
export function neededMiB(plan: LabPlan, hypervisor: string, driver: 'kvm' | 'qemu'): number {
  const guests = plan.nodes.filter((n) => n.hypervisor === hypervisor);
  return Math.ceil(guests.reduce((sum, n) => sum + n.memory * MEMORY_FACTOR[driver], 0));
}

/** True when the bridge exists on the hypervisor's host (checked locally or over ssh). */
async function bridgePresent(
  runner: CommandRunner,
  hypervisor: PlannedHypervisor,
  bridge: string,
): Promise<boolean | undefined> {
  if (!hypervisor.remote) return existsSync(`/sys/class/net/${bridge}/bridge`);
  const url = /^qemu\+ssh:\/\/(?:([^@/]+)@)?([^/:]+)(?::(\d+))?\//.exec(hypervisor.uri);
  if (url === null) return undefined;
  const keyfile = /[?&]keyfile=([^&]+)/.exec(hypervisor.uri)?.[1];
  const args = [
    '-o',
    'BatchMode=yes',
    ...(url[3] === undefined ? [] : ['-p', url[3]]),
    ...(url[1] === undefined ? [] : ['-l', decodeURIComponent(url[1])]),
    ...(keyfile === undefined ? [] : ['-i', decodeURIComponent(keyfile)]),
    url[2]!,
    'test',
    '-d',
    `/sys/class/net/${bridge}/bridge`,
  ];
  const result = await runner.run('ssh', args, { check: false, timeoutMs: 30_000 });
  return result.exitCode === 0 ? true : result.exitCode === 1 ? false : undefined;
}

export interface PreflightFacts {
  /** The driver chosen per hypervisor (from the KVM probe); memory is judged with it. */
  drivers: Record<string, 'kvm' | 'qemu'>;
  /** Host UUID per hypervisor; hypervisors on one host share its memory. */
  hosts: Record<string, string>;
}

/** Tools and hypervisors; returns the problems and what it learnt for the memory check. */
export async function libvirtPreflight(
  runner: CommandRunner,
  plan: LabPlan,
  probe: (hypervisor: PlannedHypervisor, virsh: Virsh) => Promise<'kvm' | 'qemu'>,
): Promise<{ problems: PreflightProblem[]; facts: PreflightFacts }> {
  const problems: PreflightProblem[] = [];
  const facts: PreflightFacts = { drivers: {}, hosts: {} };
  const add = (what: string, fix: string) => problems.push({ what, fix });
  if ((await answers(runner, 'vagrant', ['--version'])) === undefined) {
    add('`vagrant` is missing', 'apt-get install vagrant vagrant-libvirt');
  } else if (
    !/vagrant-libvirt/.test((await answers(runner, 'vagrant', ['plugin', 'list'])) ?? '')
  ) {
    add('the vagrant-libvirt plugin is missing', 'apt-get install vagrant-libvirt');
  }
  if ((await answers(runner, 'ssh', ['-V'])) === undefined)
    add('`ssh` is missing', 'apt-get install openssh-client');
  if ((await answers(runner, 'virsh', ['--version'])) === undefined) {
    add('`virsh` is missing', 'apt-get install libvirt-clients');
    return { problems, facts };
  }
  const used = plan.hypervisors.filter((h) => h.nodes.length > 0);
  for (const h of used.filter((h) => (RESERVED_DIRS as readonly string[]).includes(h.name))) {
    add(
      `hypervisor name "${h.name}" clashes with .lab/${plan.name}/${h.name}/`,
      'rename the hypervisor entry',
    );
  }
  const reachable: PlannedHypervisor[] = [];
  await Promise.all(
    used.map(async (h) => {
      const virsh = new Virsh(runner, h.uri);
      const version = await virsh
        .run(['version'], { check: false, timeoutMs: 30_000 })
        .catch(() => undefined);
      if (version?.exitCode !== 0) {
        const why = version?.stderr.trim().split('\n').at(-1) ?? 'no answer';
        add(
          `hypervisor ${h.name} (${h.uri}) does not answer: ${why}`,
          h.remote
            ? `check ssh access and that libvirtd runs there: virsh -c '${h.uri}' version`
            : 'start libvirtd (systemctl start libvirtd) or run as a user in group libvirt',
        );
        return;
      }
      reachable.push(h);
      facts.hosts[h.name] = await virsh.hostUuid();
      facts.drivers[h.name] = await probe(h, virsh);
    }),
  );
  const boxes = libvirtBoxes(
    (await answers(runner, 'vagrant', ['box', 'list', '--machine-readable'])) ?? '',
  );
  for (const node of plan.nodes.filter(
    (n, i, all) => all.findIndex((m) => m.boxName === n.boxName) === i,
  )) {
    if (boxes.has(node.boxName)) continue;
    const recipe = BOX_RECIPES[node.box];
    add(
      `box ${node.boxName} (for ${node.name}) is not added to vagrant for libvirt`,
      node.box === 'debian-12' && recipe !== undefined
        ? `build and add it: sudo ${recipe}`
        : `build it (${recipe ?? 'see vagrant/boxes/'}) and add it: vagrant box add --name ${node.boxName} FILE.box`,
    );
  }
  await memoryProblems(runner, plan, reachable, facts, add);
  if (plan.network.mode === 'bridge' && plan.network.bridge !== undefined) {
    const bridge = plan.network.bridge;
    for (const h of reachable) {
      const present = await bridgePresent(runner, h, bridge);
      if (present === false) {
        add(
          `bridge ${bridge} is missing on hypervisor ${h.name} (${h.uri})`,
          'create it on every hypervisor host and join them (docs/libvirt.md: "Several hypervisors")',
        );
      }
    }
  }
  return { problems, facts };
}

async function memoryProblems(
  runner: CommandRunner,
  plan: LabPlan,
  reachable: readonly PlannedHypervisor[],
  facts: PreflightFacts,
  add: (what: string, fix: string) => void,
): Promise<void> {
  const byHost = new Map<string, PlannedHypervisor[]>();
  for (const h of reachable) {
    const host = facts.hosts[h.name] ?? h.uri;
    byHost.set(host, [...(byHost.get(host) ?? []), h]);
  }
  for (const hypervisors of byHost.values()) {
    const first = hypervisors[0]!;
    const stats = await new Virsh(runner, first.uri).run(['nodememstats'], { check: false });
    if (stats.exitCode !== 0) continue;
    const available = availableMiB(stats.stdout) - HOST_RESERVE_MIB;
    const needed = hypervisors.reduce(
      (sum, h) => sum + neededMiB(plan, h.name, facts.drivers[h.name] ?? 'qemu'),
      0,
    );
    if (needed > available) {
      add(
        `hypervisor host of ${hypervisors.map((h) => h.name).join(', ')} has ${available} MiB to spare, the guests need about ${needed} MiB`,
        'give the nodes less memory, spread them over more hypervisors, or free memory there',
      );
    }
  }
}
