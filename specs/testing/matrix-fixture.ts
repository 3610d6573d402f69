/**
 * A spec file for the engine's end-to-end test: the real suite engine (matrix-suite.ts) over a
 * scripted driver, so every verdict, an interruption and a failed open happen in a real mocha.
 *
 *   FIXTURE_MODE=verdicts | slow | open-fails | deploy-hangs | deploy-pulls
 *   (FIXTURE_EMULATED=no: a real (libvirt) run)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runNamespace } from '../../lab/contracts/kubernetes-names.ts';
import { describeLab } from '../drivers/lab-info.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import type {
  LabDriver,
  ProbeReply,
  ProbeRequest,
  SuiteNode,
  Workloads,
} from '../model/lab-driver.ts';
import { defineMatrixSuite } from '../engine/matrix-suite.ts';
import { fakeWorkloads } from './fake-workloads.ts';
import { overTimeSettings } from '../engine/disruption/over-time-settings.ts';
import { budgetSettings } from '../engine/suite-settings.ts';
import { FULL_MESH } from '../matrix/mesh.ts';
import { DEFAULT_PERF } from '../matrix/perf-cells.ts';
import { selectionFromArgv } from '../engine/selection.ts';
import type { SuiteSettings } from '../engine/suite-settings.ts';
import { kubernetesSettings } from '../drivers/kubernetes/kubernetes-settings.ts';
import type { MatrixRow } from '../matrix/rows.ts';

/** Hostile probe output: markup, CDATA terminator, an ANSI escape. */
export const HOSTILE = '<script>alert("x")</script> & ]]> \u001b[31mred\u001b[0m | *bold*';

const mode = process.env.FIXTURE_MODE ?? 'verdicts';
const emulated = process.env.FIXTURE_EMULATED !== 'no';

/** One node per OS: every row expands to one cell (or one skipped cell). */
const NODES: SuiteNode[] = [
  { name: 'lin1', os: 'linux', role: 'control-plane', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.12' },
];

const ROWS: Record<string, MatrixRow[]> = {
  verdicts: [
    { kind: 'pod-to-pod', from: 'linux', to: 'windows', placements: ['cross-node'], vias: ['ip'] },
    { kind: 'pod-to-pod', from: 'windows', to: 'linux', placements: ['cross-node'], vias: ['ip'] },
    { kind: 'outbound-nat', from: 'windows' },
    {
      kind: 'pod-to-pod',
      from: 'windows',
      to: 'windows',
      placements: ['cross-node'],
      vias: ['dns'],
    },
    { kind: 'dns', from: 'windows', lookup: 'short-name' },
    { kind: 'pod-to-service', from: 'linux', to: 'linux', vias: ['cluster-ip'] },
  ],
  slow: [
    { kind: 'pod-to-pod', from: 'linux', to: 'windows', placements: ['cross-node'], vias: ['ip'] },
    { kind: 'pod-to-pod', from: 'windows', to: 'linux', placements: ['cross-node'], vias: ['ip'] },
    {
      kind: 'pod-to-pod',
      from: 'windows',
      to: 'windows',
      placements: ['cross-node'],
      vias: ['ip'],
    },
    { kind: 'outbound-nat', from: 'linux' },
  ],
  'open-fails': [],
  'deploy-hangs': [
    { kind: 'pod-to-pod', from: 'linux', to: 'windows', placements: ['cross-node'], vias: ['ip'] },
  ],
  'deploy-pulls': [
    { kind: 'pod-to-pod', from: 'linux', to: 'windows', placements: ['cross-node'], vias: ['ip'] },
  ],
};

class ScriptedDriver implements LabDriver {
  readonly info = {
    lab: 'fixture-lab',
    provider: emulated ? 'netns' : 'libvirt',
    emulated,
    kubernetesVersion: '1.30.4',
    cni: 'flannel/vxlan',
    osBuilds: { lin1: 'Debian 12', win1: 'Windows Server 2022' },
  };
  readonly nodes = NODES;
  cleanedUp = false;

  checkReady(): Promise<void> {
    return Promise.resolve();
  }

  /** deploy-pulls: its images may take 3 s before DEPLOY_TIMEOUT_MS applies. */
  readonly imagePullTimeoutMs = mode === 'deploy-pulls' ? 3000 : undefined;

  async deploy(runId: string): Promise<Workloads> {
    if (mode === 'deploy-hangs') await sleep(4000); // past its 1 s DEPLOY_TIMEOUT_MS
    if (mode === 'deploy-pulls') await sleep(2500); // past DEPLOY_TIMEOUT_MS, within the pull's own
    return fakeWorkloads(NODES, runNamespace(runId));
  }

  async probeFromPod(
    pod: { name: string; ip: string },
    request: ProbeRequest,
  ): Promise<ProbeReply> {
    const url =
      request.kind === 'http' ? request.url : request.kind === 'endpoints' ? request.base : '';
    const host = url.split('/')[2]?.split(':')[0] ?? '';
    if (mode === 'slow' && pod.name !== 'netexec-lin1-a') {
      // Every probe but lin1's hangs until the run is signalled.
      if (pod.name === 'netexec-win1-a') process.stdout.write('FIXTURE-SLOW-CELL-STARTED\n');
      await sleep(100_000);
    }
    if (request.kind === 'dns') return { result: 'ok', addresses: ['10.96.0.20'] };
    if (host === '10.96.0.20') throw new TypeError('probe crashed');
    if (host === '198.51.100.1') return { result: 'timeout', error: HOSTILE };
    // win1's pods are SNATed to the node: the target sees the node address.
    const body = pod.name.startsWith('netexec-win1-') ? '192.168.200.12' : pod.ip;
    return { result: 'ok', body, peer: host };
  }

  probeFromOutside(): Promise<ProbeReply> {
    return Promise.resolve({ result: 'ok', body: 'x' });
  }

  probeFromNode(): Promise<ProbeReply> {
    return Promise.resolve({ result: 'ok', body: 'x' });
  }

  cleanup(): Promise<void> {
    this.cleanedUp = true;
    return Promise.resolve();
  }

  pending(): string[] {
    return this.cleanedUp ? [] : ['namespace hybrid-lab-fixture-run-1 (not yet deleted)'];
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.cleanup();
  }
}

function settings(): SuiteSettings {
  return {
    profile: {
      name: 'fixture',
      description: 'fixture profile',
      unexpectedPass: 'fail',
      expectations: [
        {
          cells: 'outbound-nat/windows/**',
          expect: 'timeout',
          reason: 'Windows outbound NAT is broken in the fixture',
        },
        { cells: 'dns/short-name/windows/**', expect: 'nxdomain', reason: 'short names fail here' },
      ],
    },
    // One probe at a time when slow, so what has a result at the signal is known exactly.
    concurrency: mode === 'slow' ? 1 : 4,
    timeoutMs: 200,
    retries: 0,
    deployTimeoutMs: mode === 'deploy-hangs' || mode === 'deploy-pulls' ? 1000 : 10_000,
    selection: selectionFromArgv(process.argv),
    runId: 'fixture-run-1',
    kubernetes: kubernetesSettings({}),
    evidence: { cells: 'failed', maxCells: 10, asked: false },
    overTime: overTimeSettings({}, selectionFromArgv([])),
    budget: budgetSettings({}, {}),
    suite: 'matrix',
    mesh: FULL_MESH,
    perf: DEFAULT_PERF,
  };
}

await defineMatrixSuite({
  settings,
  openDriver: () =>
    mode === 'open-fails'
      ? Promise.reject(
          new InfrastructureError('lab fixture-lab is down, not up', { hint: 'npm run lab:up' }),
        )
      : Promise.resolve(new ScriptedDriver()),
  // The real plan reader: the e2e test gives the failed open a lab with a plan ($LAB_HOME, $LAB).
  describeLab: () => describeLab(process.env),
  rows: ROWS[mode] ?? [],
});
