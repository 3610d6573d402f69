/**
 * A kubeadm netns lab: real Kubernetes (the artifact cache's kubeadm, kubelet, containerd) on
 * Linux nodes that are namespaces of this host, set up by the project's kubeadm provisioning.
 * This host reaches the API server through a relay on its loopback; the outside namespace is
 * where NodePort probes start and the external echo listens.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startExternalEcho } from '../../../cluster/cluster-bootstrap.ts';
import { nodeNamespace, outsideNamespace } from '../../../cluster/dataplane/names.ts';
import {
  buildOutside,
  buildSwitch,
  createNamespaces,
  labNamespaceNames,
} from '../../../cluster/dataplane/topology.ts';
import { NetnsPodRuntime } from '../../../cluster/runtime/pod-runtime.ts';
import { ProviderError } from '../../../errors.ts';
import type { CommandRunner, RunOptions, RunResult } from '../../../exec/command-runner.ts';
import { LAB_ID_ENV, killLabProcesses } from '../../../exec/lab-processes.ts';
import type { LabPlan } from '../../../plan/lab-plan.ts';
import { componentVersions } from '../../../provision/component-versions.ts';
import { provision } from '../../../provision/provision-lab.ts';
import {
  provisionSettingsFromText,
  type ProvisionSettings,
} from '../../../provision/provision-settings.ts';
import type { NamespaceNodeShell } from '../../../remote/namespace-node-shell.ts';
import { pollUntil } from '../../../wait/poll.ts';
import type { LabOutside, LabStatus, ProviderContext, StartedLab } from '../../lab-provider.ts';
import { teardownLab } from '../netns-started-lab.ts';
import { removeMachines } from './machine-teardown.ts';
import { createMachines, machineShell } from './node-machines.ts';
import { labPinDir } from './node-host.ts';
import { NamespaceNodeActions } from './node-actions.ts';

const RELAY = fileURLToPath(new URL('api-relay.mjs', import.meta.url));
const RELAY_READY_MS = 10_000;

/** What `up` leaves for attach and status: `.lab/<name>/netns/kubeadm.json`. */
export interface KubeadmLabState {
  format: 1;
  /** The artifact cache the nodes run from. */
  artifacts: string;
  /** This host's end of the API server relay: https://127.0.0.1:<port>. */
  apiServer: string;
  echo: { address: string; port: number };
}

function stateFile(context: ProviderContext): string {
  return join(context.stateDir, 'netns', 'kubeadm.json');
}

/** `artifacts` and `kubeadm` of the spec `lab up` kept in the lab's folder. */
function settingsOf(context: ProviderContext): ProvisionSettings {
  const file = join(context.stateDir, 'spec.yaml');
  return provisionSettingsFromText(readFileSync(file, 'utf8'), file, process.cwd());
}

/** The cache folder a kubeadm netns lab runs its nodes from (checked by the planner and preflight). */
export function artifactsDir(settings: ProvisionSettings): string {
  if (settings.artifacts.kind !== 'dir') {
    throw new ProviderError('a kubeadm netns lab runs its nodes from an artifact cache folder', {
      hint: 'set `artifacts: { dir: … }` (vagrant/artifacts/kubernetes/build.sh fills one)',
    });
  }
  return settings.artifacts.dir;
}

/** Starts both halves of the API relay (stamped with the lab id) and returns `127.0.0.1:<port>`. */
async function startRelay(context: ProviderContext, plan: LabPlan): Promise<string> {
  const { runner } = context;
  const cp = plan.nodes.find((n) => n.role === 'control-plane')!;
  const socket = join(labPinDir(plan.id), 'apiserver.sock');
  const logDir = join(context.stateDir, 'logs', 'nodes');
  const env = { [LAB_ID_ENV]: plan.id };
  const inner = join(logDir, 'api-relay-node.log');
  await runner.spawn(
    'ip',
    [
      'netns',
      'exec',
      nodeNamespace(plan.prefix, cp.name),
      process.execPath,
      RELAY,
      'unix-to-tcp',
      socket,
      `${cp.ip}:${plan.kubernetes.apiServerPort}`,
    ],
    { logFile: inner, env },
  );
  await pollUntil(
    'the API relay in the control plane',
    () => (existsSync(socket) ? true : undefined),
    {
      timeoutMs: RELAY_READY_MS,
      intervalMs: 20,
    },
  );
  const outer = join(logDir, 'api-relay-host.log');
  writeFileSync(outer, '');
  await runner.spawn(process.execPath, [RELAY, 'tcp-to-unix', '127.0.0.1:0', socket], {
    logFile: outer,
    env,
  });
  return pollUntil(
    'the API relay on this host',
    () => /^listening (127\.0\.0\.1:\d+)$/m.exec(readFileSync(outer, 'utf8'))?.[1],
    { timeoutMs: RELAY_READY_MS, intervalMs: 20, lastSeen: () => readFileSync(outer, 'utf8') },
  );
}

/** Brings a kubeadm netns lab up; the caller removes what a failure left (teardownKubeadmLab). */
export async function bringUpKubeadmLab(
  context: ProviderContext,
  plan: LabPlan,
): Promise<NetnsKubeadmLab> {
  const { runner, progress, log } = context;
  const settings = settingsOf(context);
  const cache = artifactsDir(settings);
  const versions = componentVersions(plan, settings.kubeadm);
  const netnsDir = join(context.stateDir, 'netns');
  mkdirSync(netnsDir, { recursive: true });
  let echo: { address: string; port: number } | undefined;
  await progress.step('network namespaces, lab switch and outside', async () => {
    await createNamespaces(runner, labNamespaceNames(plan));
    await buildSwitch(runner, plan);
    await buildOutside(runner, plan);
    // Outside routes nothing out: anything it cannot deliver gets an ICMP error at once.
    await runner.run('ip', [
      'netns',
      'exec',
      outsideNamespace(plan.prefix),
      'sysctl',
      '-q',
      '-w',
      'net.ipv4.ip_forward=1',
    ]);
    const runtime = new NetnsPodRuntime(runner, {
      dataDir: netnsDir,
      env: { [LAB_ID_ENV]: plan.id },
    });
    const started = await startExternalEcho(
      { runtime, netns: outsideNamespace(plan.prefix) },
      plan,
      netnsDir,
    );
    echo = { address: started.address, port: started.httpPort };
  });
  await progress.step('node machines: mount namespaces, cgroups, containerd, kubelet', () =>
    createMachines({
      runner,
      plan,
      binDir: join(cache, 'kubernetes', versions.kubernetes, 'linux', 'amd64'),
      pauseImage: versions.pauseImage,
      logDir: join(context.stateDir, 'logs', 'nodes'),
    }),
  );
  const apiServer = await startRelay(context, plan);
  const shells = new Map(plan.nodes.map((n) => [n.name, machineShell(runner, plan.id, n.name)]));
  await provision(plan, shells, {
    runner,
    log: log.child({ component: 'provision' }),
    progress,
    stateDir: context.stateDir,
    settings,
    apiServer,
  });
  const state: KubeadmLabState = {
    format: 1,
    artifacts: cache,
    apiServer: `https://${apiServer}`,
    echo: echo!,
  };
  writeFileSync(stateFile(context), `${JSON.stringify(state, null, 2)}\n`);
  return new NetnsKubeadmLab(plan, context, state);
}

/** Re-attaches to a kubeadm netns lab brought up by another process. */
export function attachKubeadmLab(context: ProviderContext, plan: LabPlan): NetnsKubeadmLab {
  const file = stateFile(context);
  if (!existsSync(file)) {
    throw new ProviderError(`lab ${plan.id} is not up: ${file} is missing`, {
      hint: 'run `lab up` (after `lab reap` if a crash left pieces)',
    });
  }
  return new NetnsKubeadmLab(
    plan,
    context,
    JSON.parse(readFileSync(file, 'utf8')) as KubeadmLabState,
  );
}

/**
 * Removes the lab's machines (by its id: pins, cgroups, state), then every process stamped with
 * it (the relay, the echo); its network namespaces go with the rest of a netns lab (teardownLab).
 */
export async function teardownKubeadmMachines(
  context: ProviderContext,
  plan: LabPlan,
): Promise<string[]> {
  const removed = await reapMachines(context.runner, plan.id);
  rmSync(stateFile(context), { force: true });
  return removed;
}

/** Machines and stamped processes of lab `labId`, found by its id alone (`lab reap`). */
export async function reapMachines(runner: CommandRunner, labId: string): Promise<string[]> {
  const removed = await removeMachines(runner, labId, (node) => machineShell(runner, labId, node));
  removed.push(...(await killLabProcesses(runner, labId)));
  return removed;
}

/** Everything of the lab: machines and stamped processes, then namespaces and state; each step runs, the first error is rethrown. */
export async function teardownKubeadmLab(
  context: ProviderContext,
  plan: LabPlan,
): Promise<string[]> {
  const errors: unknown[] = [];
  const removed: string[] = [];
  for (const step of [teardownKubeadmMachines, teardownLab]) {
    try {
      removed.push(...(await step(context, plan)));
    } catch (error) {
      context.log.error({ provider: 'netns', lab: plan.id, err: error }, 'teardown step failed');
      errors.push(error);
    }
  }
  if (errors.length > 0)
    throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
  return removed;
}

export class NetnsKubeadmLab implements StartedLab {
  /** Real Kubernetes: nothing is emulated. */
  readonly cluster = undefined;
  readonly outside: LabOutside;
  #down: Promise<void> | undefined;

  constructor(
    readonly plan: LabPlan,
    private readonly context: ProviderContext,
    readonly state: KubeadmLabState,
  ) {
    const netns = outsideNamespace(plan.prefix);
    this.outside = {
      exec: (argv: readonly string[], options?: RunOptions): Promise<RunResult> =>
        context.runner.run('ip', ['netns', 'exec', netns, ...argv], { check: false, ...options }),
      echo: state.echo,
      // The outside namespace holds the lab gateway, the nodes' default route.
      address: plan.network.gateway,
    };
  }

  #nodeActions: NamespaceNodeActions | undefined;

  /** Disruptions of its node machines: CNI state, containerd and the kubelet, a reboot. */
  get nodeActions(): NamespaceNodeActions {
    if (this.#nodeActions === undefined) {
      const settings = settingsOf(this.context);
      const versions = componentVersions(this.plan, settings.kubeadm);
      this.#nodeActions = new NamespaceNodeActions({
        runner: this.context.runner,
        plan: this.plan,
        binDir: join(this.state.artifacts, 'kubernetes', versions.kubernetes, 'linux', 'amd64'),
        pauseImage: versions.pauseImage,
        logDir: join(this.context.stateDir, 'logs', 'nodes'),
      });
    }
    return this.#nodeActions;
  }

  nodeShell(node: string): NamespaceNodeShell {
    if (!this.plan.nodes.some((n) => n.name === node)) {
      throw new ProviderError(`no node '${node}' in lab ${this.plan.id}`, {
        hint: `nodes: ${this.plan.nodes.map((n) => n.name).join(', ')}`,
      });
    }
    return machineShell(this.context.runner, this.plan.id, node);
  }

  shellCommand(node: string): string[] {
    return this.nodeShell(node).interactiveArgv();
  }

  down(): Promise<void> {
    this.#down ??= teardownKubeadmLab(this.context, this.plan).then(() => undefined);
    return this.#down;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.down();
  }

  async status(): Promise<LabStatus> {
    const { plan } = this;
    const kubectl = await this.nodeShell(plan.nodes.find((n) => n.role === 'control-plane')!.name)
      .exec(
        ['kubectl', '--kubeconfig=/etc/kubernetes/admin.conf', 'get', 'nodes', '--no-headers'],
        {
          check: false,
          timeoutMs: 30_000,
        },
      )
      .catch(() => undefined);
    const lines = kubectl?.exitCode === 0 ? kubectl.stdout.split('\n') : [];
    const nodes = plan.nodes.map((n) => {
      const line = lines.find((l) => l.split(/\s+/)[0] === n.name);
      const condition = line?.split(/\s+/)[1] ?? 'unknown to the API server';
      return {
        name: n.name,
        ready: condition === 'Ready',
        detail: `linux ${n.ip} pod CIDR ${n.podCIDR} (namespace node, real kubelet): ${condition}`,
      };
    });
    return {
      provider: 'netns',
      emulated: false,
      ready: nodes.every((n) => n.ready),
      nodes,
      facts: {
        cluster: `kubeadm ${plan.kubernetes.version} on namespace nodes, cni ${plan.cni.plugin}/${plan.cni.backend}`,
        kubeconfig: join(this.context.stateDir, 'kubeconfig'),
        apiServer: `${this.state.apiServer} (relay into ${nodeNamespace(plan.prefix, plan.nodes[0]!.name)})`,
        artifacts: this.state.artifacts,
        externalEcho: `${this.state.echo.address}:${this.state.echo.port} in ${outsideNamespace(plan.prefix)}`,
      },
    };
  }
}
