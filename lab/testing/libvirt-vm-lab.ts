/**
 * Helpers for the issue-5 integration test, which ci/libvirt-integration.sh runs inside a
 * network namespace playing the hypervisor host: the CLI as a child process, virsh checks.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import type { CommandRunner, RunResult } from '../exec/command-runner.ts';
import { registeredProviders } from '../providers/registry.ts';
import { labProcesses } from '../exec/lab-processes.ts';
import { Virsh, type LabResource } from '../providers/libvirt/virsh.ts';
import { missing, optIn, type Skip } from './skip.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(REPO, 'lab/cli/main.ts');

/** What ci/libvirt-integration.sh hands the test. */
export interface ItEnvironment {
  /** The qemu+ssh:// URI of the second hypervisor entry (the namespace's own sshd). */
  sshUri: string;
  /** The bridge both hypervisor entries put the lab network on. */
  bridge: string;
  /** The `.lab` folder the test's labs live in. */
  labHome: string;
  resultsDir: string;
  /** The artifact cache built on the host (HL_IT_ARTIFACTS), if any: Kubernetes 1.20.2 and the nodes' Debian packages. */
  artifacts?: string;
}

/** Why the test cannot run here, or the environment it runs in. */
export function itEnvironment(env = process.env): ItEnvironment | Skip {
  const optedOut = optIn(
    'HL_LIBVIRT_IT',
    'bash ci/libvirt-integration.sh',
    'needs the libvirt namespace ci/libvirt-integration.sh sets up',
  );
  if (optedOut !== undefined) return optedOut;
  if (!registeredProviders().includes('libvirt')) {
    return missing('the libvirt provider is not registered in lab/providers/registry.ts');
  }
  const unset = ['HL_IT_SSH_URI', 'HL_IT_BRIDGE', 'LAB_HOME', 'RESULTS_DIR'].filter(
    (k) => (env[k] ?? '') === '',
  );
  if (unset.length > 0) return missing(`ci/libvirt-integration.sh did not set ${unset.join(', ')}`);
  return {
    sshUri: env.HL_IT_SSH_URI!,
    bridge: env.HL_IT_BRIDGE!,
    labHome: env.LAB_HOME!,
    resultsDir: env.RESULTS_DIR!,
    ...((env.HL_IT_ARTIFACTS ?? '') === '' ? {} : { artifacts: env.HL_IT_ARTIFACTS! }),
  };
}

/**
 * A libvirt preset (libvirt-emulated unless named) on two hypervisor entries sharing one
 * bridge: hv1 as qemu:///system, hv2 through ssh (or on hv1 alone). Nodes spread round-robin
 * (the first and third on hv1, the second on hv2); `nodes` keeps the first N of the preset's, or
 * those named. A kubeadm preset installs from the test's artifact cache.
 */
export function itSpec(
  it: ItEnvironment,
  name: string,
  nodes?: number | readonly string[],
  presetName = 'libvirt-emulated',
  hypervisors: 1 | 2 = 2,
): string {
  const preset = parse(
    readFileSync(join(REPO, `lab/presets/${presetName}.yaml`), 'utf8'),
  ) as Record<string, unknown> & { nodes: { name: string }[] };
  const spec = {
    ...preset,
    ...(preset.cluster === 'kubeadm' && it.artifacts !== undefined
      ? { artifacts: { dir: it.artifacts } }
      : {}),
    name,
    network: { mode: 'bridge', bridge: it.bridge },
    hypervisors: [
      { name: 'hv1', uri: 'qemu:///system' },
      { name: 'hv2', uri: it.sshUri },
    ].slice(0, hypervisors),
    nodes:
      nodes === undefined
        ? preset.nodes
        : typeof nodes === 'number'
          ? preset.nodes.slice(0, nodes)
          : preset.nodes.filter((n) => nodes.includes(n.name)),
  };
  const file = join(it.labHome, `${name}.yaml`);
  writeFileSync(file, stringify(spec));
  return file;
}

/** `lab ARGS...` as a user runs it (npm run lab), output captured. */
export function lab(runner: CommandRunner, it: ItEnvironment, args: string[]): Promise<RunResult> {
  return runner.run(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: REPO,
    env: { LAB_HOME: it.labHome, CI: 'true' },
    check: false,
    timeoutMs: 1_800_000,
  });
}

/** Starts `lab up` detached (so the test can kill it), output to logFile. */
export function labUpInBackground(
  runner: CommandRunner,
  it: ItEnvironment,
  spec: string,
  logFile: string,
) {
  return runner.spawn(process.execPath, ['--import', 'tsx', CLI, 'up', '--spec', spec], {
    logFile,
    env: { LAB_HOME: it.labHome, CI: 'true' },
  });
}

export const URIS = (it: ItEnvironment): string[] => ['qemu:///system', it.sshUri];

/** Everything of `labId` still on either hypervisor entry, plus its stamped processes. */
export async function leftovers(
  runner: CommandRunner,
  it: ItEnvironment,
  labId: string,
): Promise<string[]> {
  const found: LabResource[] = [];
  for (const uri of URIS(it)) found.push(...(await new Virsh(runner, uri).labResources(labId)));
  return [
    ...found.map((r) => `${r.kind} ${r.pool === undefined ? '' : `${r.pool}/`}${r.name}`),
    ...labProcesses(labId).map((pid) => `process ${pid}`),
  ];
}

/** Raw virsh listings (the assertion the issue names), lines mentioning the lab id. */
export async function virshMentions(
  runner: CommandRunner,
  uri: string,
  labId: string,
): Promise<string[]> {
  const virsh = new Virsh(runner, uri);
  const pools = (await virsh.run(['pool-list', '--name'])).stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const outputs = [
    (await virsh.run(['list', '--all'])).stdout,
    (await virsh.run(['net-list', '--all'])).stdout,
    ...(await Promise.all(pools.map(async (p) => (await virsh.run(['vol-list', p])).stdout))),
  ];
  return outputs
    .flatMap((o) => o.split('\n'))
    .filter((l) => l.includes(`${labId}_`) || l.includes(`${labId}-`));
}
