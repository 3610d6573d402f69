/** Integration-test helpers: a netns lab of its own (own LAB_HOME, own name) with workloads, and its fault session. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { labDown, labUp } from '../lifecycle/lab-lifecycle.ts';
import { silentLogger } from '../log/logger.ts';
import { quietProgress } from '../log/progress.ts';
import type { EmulatedCluster } from '../cluster/emulated-cluster.ts';
import { netnsSkipReason, testLabId } from './netns-host.ts';
import { missing, type Skip } from './skip.ts';
import { loadSpec } from '../spec/load-spec.ts';
import { LabStore } from '../state/lab-store.ts';
import type { FaultSession } from '../faults/fault-session.ts';
import { openFaultSession } from '../faults/open-fault-session.ts';

/** Why fault integration tests cannot run here (netns and nft), or undefined. */
export async function faultSkipReason(): Promise<Skip | undefined> {
  const runner = new ExecaRunner(silentLogger());
  const netns = await netnsSkipReason(runner);
  if (netns !== undefined) return netns;
  const nft = await runner.run('nft', ['--version'], { check: false }).catch(() => undefined);
  return nft?.exitCode === 0 ? undefined : missing('nft (package nftables) is missing');
}

export interface TestLab extends AsyncDisposable {
  name: string;
  labHome: string;
  store: LabStore;
  session: FaultSession;
  cluster: EmulatedCluster;
  /** Namespace of the workloads deployWorkloads made. */
  namespace: string;
  down(): Promise<void>;
}

/** cp1, lin1, win1, win2 over flannel vxlan (Windows DSR on), named after the test process so parallel runs never collide. */
export async function startTestLab(tag: string): Promise<TestLab> {
  const name = testLabId(tag).replace(/^hl-/, '');
  const labHome = mkdtempSync(join(tmpdir(), 'hl-faultlab-'));
  const store = new LabStore(labHome);
  const specFile = join(labHome, `${name}.yaml`);
  writeFileSync(
    specFile,
    [
      `name: ${name}`,
      'provider: netns',
      'cni: { plugin: flannel, backend: vxlan }',
      // As the default lab: Windows kube-proxy with DSR, so Local traffic policy keeps the client.
      'windows: { dsr: true }',
      'nodes:',
      '  - { name: cp1, os: linux, role: control-plane }',
      '  - { name: lin1, os: linux, role: worker }',
      '  - { name: win1, os: windows, role: worker }',
      '  - { name: win2, os: windows, role: worker }',
      '',
    ].join('\n'),
  );
  const { lab } = await labUp(loadSpec(specFile, labHome), { store, progress: quietProgress });
  let stopped = false;
  const down = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      await labDown(name, { store, progress: quietProgress });
    } finally {
      rmSync(labHome, { recursive: true, force: true });
    }
  };
  try {
    const session = await openFaultSession(store, name);
    const { cluster } = lab;
    if (cluster === undefined) throw new Error('netns lab without cluster API');
    return {
      name,
      labHome,
      store,
      session,
      cluster,
      namespace: 'faults',
      down,
      [Symbol.asyncDispose]: down,
    };
  } catch (error) {
    await down().catch(() => undefined);
    throw error;
  }
}

export interface TestWorkloads {
  /** Pod name per node (`w-<node>`) and its IP. */
  pods: Record<string, string>;
  services: Record<'linux' | 'windows', { clusterIP: string; nodePort: number }>;
  /** ClusterIP of `hairpin-win1`, whose only endpoint is w-win1. */
  hairpinWin1: string;
  /** Node port of `local-windows`: externalTrafficPolicy Local over the Windows pods. */
  localWindowsNodePort: number;
  /** ClusterIP of `sticky-linux`: sessionAffinity ClientIP over the Linux pods. */
  stickyLinux: string;
  /** Health-check node port of `lb-local-linux`: LoadBalancer, externalTrafficPolicy Local over the Linux pods. */
  healthCheckNodePort: number;
  /** ClusterIP of `internal-local`: internalTrafficPolicy Local over every pod. */
  internalLocal: string;
  /** `ext-name`'s FQDN: an ExternalName Service whose CNAME leads to `ext-echo`, the external echo. */
  externalName: string;
}

/** One netexec pod per node, a NodePort Service per OS, win1's hairpin Service and a Local Windows one, as the suite deploys them. */
export async function deployWorkloads(lab: TestLab): Promise<TestWorkloads> {
  const { cluster, namespace } = lab;
  const pods: Record<string, string> = {};
  await Promise.all(
    cluster.plan.nodes.map(async (n) => {
      pods[n.name] = await cluster.createPod({
        name: `w-${n.name}`,
        namespace,
        node: n.name,
        labels: { app: 'w', os: n.os, pod: `w-${n.name}` },
      });
    }),
  );
  const port = { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' as const };
  const service = async (os: 'linux' | 'windows') => {
    const created = await cluster.createService({
      name: `web-${os}`,
      namespace,
      type: 'NodePort',
      selector: { app: 'w', os },
      ports: [port],
    });
    return { clusterIP: created.clusterIP ?? '', nodePort: created.nodePorts.http ?? 0 };
  };
  const hairpin = await cluster.createService({
    name: 'hairpin-win1',
    namespace,
    type: 'ClusterIP',
    selector: { app: 'w', pod: 'w-win1' },
    ports: [port],
  });
  const local = await cluster.createService({
    name: 'local-windows',
    namespace,
    type: 'NodePort',
    selector: { app: 'w', os: 'windows' },
    ports: [port],
    externalTrafficPolicy: 'Local',
  });
  const [sticky, lb, internal] = await cluster.createServices([
    {
      name: 'sticky-linux',
      namespace,
      type: 'ClusterIP',
      selector: { app: 'w', os: 'linux' },
      ports: [port],
      sessionAffinity: 'ClientIP',
    },
    {
      name: 'lb-local-linux',
      namespace,
      type: 'LoadBalancer',
      selector: { app: 'w', os: 'linux' },
      ports: [port],
      externalTrafficPolicy: 'Local',
    },
    {
      name: 'internal-local',
      namespace,
      type: 'ClusterIP',
      selector: { app: 'w' },
      ports: [port],
      internalTrafficPolicy: 'Local',
    },
    {
      name: 'ext-echo',
      namespace,
      type: 'Headless',
      selector: {},
      endpoints: [cluster.plan.external.address],
      ports: [{ name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' }],
    },
    {
      name: 'ext-name',
      namespace,
      type: 'ExternalName',
      selector: {},
      ports: [],
      externalName: `ext-echo.${namespace}.svc.cluster.local`,
    },
  ]);
  return {
    pods,
    services: { linux: await service('linux'), windows: await service('windows') },
    hairpinWin1: hairpin.clusterIP ?? '',
    localWindowsNodePort: local.nodePorts.http ?? 0,
    stickyLinux: sticky?.clusterIP ?? '',
    healthCheckNodePort: lb?.healthCheckNodePort ?? 0,
    internalLocal: internal?.clusterIP ?? '',
    externalName: `ext-name.${namespace}.svc.cluster.local`,
  };
}
