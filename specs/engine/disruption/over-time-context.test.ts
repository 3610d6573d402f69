import { expect } from 'chai';
import { Outcome } from '../../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../../model/cell-plan.ts';
import type { LabDriver, ProbeReply, SuiteNode } from '../../model/lab-driver.ts';
import { fakeWorkloads } from '../../testing/fake-workloads.ts';
import { probeOnce, type OverTimeContext } from './over-time-context.ts';

const NODES: SuiteNode[] = [{ name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' }];

/** A context whose driver answers each sweep of n requests with n answers from `endpoint`. */
function context(sweeps: number[], endpoint = 'b1'): OverTimeContext {
  const driver = {
    probeFromPod: (_pod: unknown, request: { maxRequests: number }): Promise<ProbeReply> => {
      sweeps.push(request.maxRequests);
      const answers = Array.from({ length: request.maxRequests }, () => ({
        endpoint,
        client: '10.244.1.2',
      }));
      return Promise.resolve({ result: 'ok', answers });
    },
  } as unknown as LabDriver;
  return {
    driver,
    overTime: undefined,
    settings: { timeoutMs: 1000 } as OverTimeContext['settings'],
    workloads: () => fakeWorkloads(NODES),
  } as unknown as OverTimeContext;
}

const sweep = (n: number) => ({
  kind: 'endpoints' as const,
  base: 'http://10.96.0.20:80',
  service: 'affinity-timeout',
  expect: ['b1', 'b2'],
  maxRequests: n,
  minRequests: n,
});

describe('a probe of the over-time phase', () => {
  it('is made twice with the pause of a cell that asks for it (affinity across its timeout), as the matrix makes it', async () => {
    const sweeps: number[] = [];
    const spec: ProbeSpec = {
      from: 'netexec-lin1-a',
      request: sweep(1),
      check: { kind: 'same-endpoint', expect: ['b1', 'b2'], runs: [1, 4] },
      again: { afterMs: 20, request: sweep(4) },
    };
    const started = performance.now();
    const judged = await probeOnce(context(sweeps), () => spec);
    expect(sweeps).to.deep.equal([1, 4]);
    expect(performance.now() - started).to.be.at.least(19);
    expect(judged.outcome, judged.detail).to.equal(Outcome.Ok);
  });

  it('is made once without `again`', async () => {
    const sweeps: number[] = [];
    const spec: ProbeSpec = {
      from: 'netexec-lin1-a',
      request: sweep(3),
      check: { kind: 'same-endpoint', expect: ['b1', 'b2'], runs: [3] },
    };
    expect((await probeOnce(context(sweeps), () => spec)).outcome).to.equal(Outcome.Ok);
    expect(sweeps).to.deep.equal([3]);
  });
});
