/** Shared fixtures of the CellRunner tests: a two-node Linux lab, recording drivers, plain cells. */
import type { LabDriver, ProbeReply, ProbeRequest, SuiteNode } from '../model/lab-driver.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { fakeWorkloads } from './fake-workloads.ts';
import { probeArgs } from '../drivers/probe-args.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';

export const NODES: SuiteNode[] = [
  { name: 'lin1', os: 'linux', role: 'control-plane', ip: '192.168.200.11' },
  { name: 'lin2', os: 'linux', role: 'worker', ip: '192.168.200.12' },
];

/**
 * A driver that hands every request to probe.mjs's argument builder (as the emulated driver and
 * probes from outside do) and answers every sweep as if it had run: what each request made of it.
 */
export function argvDriver(seen: string[][]): LabDriver {
  const run = (request: ProbeRequest): Promise<ProbeReply> => {
    seen.push(probeArgs(request, 1000));
    return Promise.resolve({ result: 'ok', answers: [] });
  };
  return {
    info: {
      lab: 't',
      provider: 'netns',
      emulated: true,
      kubernetesVersion: '1.30.4',
      cni: 'flannel/vxlan',
      osBuilds: {},
    },
    nodes: NODES,
    checkReady: () => Promise.resolve(),
    deploy: () => Promise.reject(new Error('unused')),
    probeFromPod: (_pod, request) => run(request),
    probeFromOutside: (request) => run(request),
    probeFromNode: (_node, request) => run(request),
    cleanup: () => Promise.resolve(),
    pending: () => [],
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

/** A driver answering each URL through `answer` (after `ms`), logging starts and the most in flight. */
export function urlDriver(
  answer: (url: string) => ProbeReply,
  ms: (url: string) => number = () => 0,
): LabDriver & { log: string[]; maxInFlight: () => number } {
  const driver = argvDriver([]);
  const log: string[] = [];
  let inFlight = 0;
  let most = 0;
  const run = async (request: ProbeRequest): Promise<ProbeReply> => {
    const url = request.kind === 'http' ? request.url : request.kind;
    log.push(url);
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((r) => setTimeout(r, ms(url)));
    inFlight--;
    return answer(url);
  };
  return Object.assign(driver, {
    probeFromPod: (_pod: unknown, request: ProbeRequest) => run(request),
    log,
    maxInFlight: () => most,
  });
}

export const W1 = fakeWorkloads(NODES);
export const OK: ProbeReply = { result: 'ok', body: '10.244.1.5:40000' };

/** A Linux pod-to-pod cell `id` sending GET http://<id>/ (or `spec`'s request). */
export function plainCell(
  id: string,
  patch: Partial<CellPlan> = {},
  spec: Partial<ProbeSpec> = {},
): CellPlan {
  const end = { os: 'linux' as const, node: 'lin1', label: 'linux pod' };
  return {
    meta: {
      row: 'pod-to-pod/linux-to-linux',
      cell: `pod-to-pod/linux-to-linux/cross-node/${id}/lin2/ip`,
      title: id,
      source: end,
      target: end,
      via: 'ip',
      placement: 'cross-node',
    },
    probe: () => ({
      from: W1.pods[0]!.name,
      request: { kind: 'http', url: `http://${id}/` },
      check: { kind: 'responds' },
      ...spec,
    }),
    ...patch,
  };
}

export const expectOk = { expected: Outcome.Ok };
