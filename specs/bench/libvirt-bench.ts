/**
 * Benchmark of the libvirt provider: VM boot and `up` times, and two hypervisors brought up in
 * parallel against one after the other. Needs two hypervisor URIs sharing a bridge (as in
 * ci/libvirt-integration.sh); returns the figures as a plain object for `npm run bench`.
 * Run directly inside that namespace: `tsx specs/bench/libvirt-bench.ts` prints JSON.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { labDown, labUp } from '../../lab/lifecycle/lab-lifecycle.ts';
import { PlainProgress } from '../../lab/log/progress.ts';
import { loadSpec } from '../../lab/spec/load-spec.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { createProvider } from '../../lab/providers/registry.ts';
import { LibvirtProvider } from '../../lab/providers/libvirt/libvirt-provider.ts';
import type { LibvirtState } from '../../lab/providers/libvirt/libvirt-state.ts';

export interface LibvirtBenchOptions {
  /** A `.lab` folder for the bench's labs (its console logs must be writable by libvirtd). */
  labHome: string;
  /** Two hypervisor URIs; both may reach one libvirtd. */
  uris: [string, string];
  /** The bridge both hypervisors put the lab network on. */
  bridge: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface UpFigures {
  /** `lab up` as a user sees it (preflight to emulated dataplane ready). */
  upMs: number;
  /** The `vagrant up` phase of all hypervisors. */
  vagrantUpMs: number;
  /** Per VM: vagrant's "Starting domain" to "Machine booted and ready". */
  bootMs: Record<string, number>;
  downMs: number;
}

export interface LibvirtBenchFigures {
  provider: 'libvirt';
  /** The libvirt driver used (qemu = software emulation) and why. */
  driver: string;
  nodes: number;
  hypervisors: number;
  parallel: UpFigures;
  sequential: UpFigures;
  /** Sequential over parallel `vagrant up` time: 2 means parallel halves it. */
  parallelSpeedup: number;
}

const NODES = [
  { name: 'cp1', os: 'linux', role: 'control-plane', cpus: 1, memory: 768, hypervisor: 'hv1' },
  { name: 'lin1', os: 'linux', role: 'worker', cpus: 1, memory: 768, hypervisor: 'hv2' },
];

async function measureUp(
  options: LibvirtBenchOptions,
  parallel: boolean,
): Promise<{ figures: UpFigures; driver: string }> {
  const name = parallel ? 'bench-par' : 'bench-seq';
  const file = join(options.labHome, `${name}.yaml`);
  writeFileSync(
    file,
    stringify({
      name,
      provider: 'libvirt',
      cluster: 'emulated',
      network: { mode: 'bridge', bridge: options.bridge },
      hypervisors: [
        { name: 'hv1', uri: options.uris[0] },
        { name: 'hv2', uri: options.uris[1] },
      ],
      nodes: NODES,
    }),
  );
  const store = new LabStore(options.labHome);
  const lifecycle = {
    store,
    progress: (log: Parameters<typeof createProvider>[1]['log']) =>
      new PlainProgress(log, (line) => options.log?.(line), `[bench ${name}] `),
    providers: (
      provider: Parameters<typeof createProvider>[0],
      context: Parameters<typeof createProvider>[1],
    ) =>
      provider === 'libvirt'
        ? new LibvirtProvider(context, { parallel })
        : createProvider(provider, context),
  };
  const began = performance.now();
  await labUp(loadSpec(file, options.labHome), lifecycle);
  const upMs = Math.round(performance.now() - began);
  const state = JSON.parse(
    readFileSync(join(store.paths(name).dir, 'libvirt', 'state.json'), 'utf8'),
  ) as LibvirtState;
  const downBegan = performance.now();
  await labDown(name, lifecycle);
  const bootMs = Object.fromEntries(
    Object.entries(state.timings)
      .filter(([key]) => key.startsWith('boot.'))
      .map(([key, ms]) => [key.slice('boot.'.length, -'Ms'.length), ms]),
  );
  return {
    figures: {
      upMs,
      vagrantUpMs: state.timings.vagrantUpMs ?? 0,
      bootMs,
      downMs: Math.round(performance.now() - downBegan),
    },
    driver: state.hypervisors.map((h) => `${h.name}=${h.driver} (${h.driverReason})`).join('; '),
  };
}

/** Brings a 2-VM lab up across both hypervisors at once, then one after the other. */
export async function benchLibvirt(options: LibvirtBenchOptions): Promise<LibvirtBenchFigures> {
  mkdirSync(options.labHome, { recursive: true });
  const parallel = await measureUp(options, true);
  const sequential = await measureUp(options, false);
  return {
    provider: 'libvirt',
    driver: parallel.driver,
    nodes: NODES.length,
    hypervisors: 2,
    parallel: parallel.figures,
    sequential: sequential.figures,
    parallelSpeedup:
      Math.round(
        (sequential.figures.vagrantUpMs / Math.max(1, parallel.figures.vagrantUpMs)) * 100,
      ) / 100,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [uri2, bridge] = [process.env.HL_IT_SSH_URI, process.env.HL_IT_BRIDGE];
  const labHome = process.env.LAB_HOME;
  if (uri2 === undefined || bridge === undefined || labHome === undefined) {
    process.stderr.write(
      'set LAB_HOME, HL_IT_SSH_URI and HL_IT_BRIDGE (ci/libvirt-integration.sh does)\n',
    );
    process.exit(2);
  }
  const figures = await benchLibvirt({
    labHome,
    uris: ['qemu:///system', uri2],
    bridge,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
