/** CellRunner with a lab that cannot carry a probe: an infrastructure error, never a verdict on the network. */
import { expect } from 'chai';
import type { Workloads } from '../model/lab-driver.ts';
import { NOT_FORWARDED_MS } from '../model/cell-plan.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { CellRunner } from './cell-runner.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';
import { NODES, argvDriver } from '../testing/cell-runner-fixtures.ts';

describe('CellRunner: a Service without endpoints', () => {
  // The Linux Service's pods never came up: its endpoints, and so the sweep's expectation, are empty.
  const workloads = fakeWorkloads(NODES);
  workloads.pods = workloads.pods.filter((p) => !p.name.endsWith('-b'));
  const cells = expandCells(
    [{ kind: 'pod-to-service', from: 'linux', to: 'linux', vias: ['cluster-ip'] }],
    NODES,
  );
  const settings = { concurrency: 2, timeoutMs: 1000, retries: 2 };

  it('is an infrastructure error naming the Service, sent nowhere and never retried', async () => {
    const seen: string[][] = [];
    const runner = new CellRunner(argvDriver(seen), workloads, settings);
    expect(cells.length).to.be.above(0);
    for (const plan of cells) {
      const result = await runner.result(plan, { expected: Outcome.Ok });
      expect(result, plan.meta.cell).to.include({
        verdict: 'infra-error',
        actual: Outcome.Error,
        attempts: 1,
      });
      expect(result.detail).to.match(
        /^netexec-lin\d-a → http:\/\/10\.96\.0\.20:80: Service web-linux \(http:\/\/10\.96\.0\.20:80\) has no endpoint to expect: a sweep of none would pass without a request \(are its pods ready/,
      );
    }
    expect(seen).to.deep.equal([]);
  });

  it('once its endpoints are there, the same cells are swept and judged', async () => {
    const seen: string[][] = [];
    const runner = new CellRunner(argvDriver(seen), fakeWorkloads(NODES), settings);
    const result = await runner.result(cells[0]!, { expected: Outcome.Ok });
    expect(result.verdict).to.equal('fail');
    expect(result.actual).to.equal(Outcome.MissingEndpoint);
    expect(seen[0]).to.include.members(['--expect', 'netexec-lin1-b,netexec-lin2-b']);
  });

  it('any other error a driver throws is the probe failing, retried like one', async () => {
    const driver = argvDriver([]);
    let calls = 0;
    driver.probeFromPod = () => {
      calls++;
      return Promise.reject(calls === 1 ? new Error('exec API: 500') : new Error('again'));
    };
    const result = await new CellRunner(driver, fakeWorkloads(NODES), settings).result(cells[0]!, {
      expected: Outcome.Ok,
    });
    expect(result).to.include({ verdict: 'fail', actual: Outcome.Error, attempts: 3 });
    expect(result.detail).to.contain('the probe failed: Error: again');
  });

  it('an InfrastructureError without a hint reads as its message alone', async () => {
    const driver = argvDriver([]);
    driver.probeFromPod = () => Promise.reject(new InfrastructureError('node lin2 is gone'));
    const result = await new CellRunner(driver, fakeWorkloads(NODES), settings).result(cells[0]!, {
      expected: Outcome.Timeout,
    });
    expect(result).to.include({ verdict: 'infra-error', attempts: 1 });
    expect(result.detail).to.match(/: node lin2 is gone$/);
  });
});

describe('CellRunner: how long a probe may wait', () => {
  const cells = expandCells(
    [{ kind: 'pod-to-pod', from: 'linux', to: 'linux', vias: ['ip'], placements: ['cross-node'] }],
    NODES,
  );
  /** The timeout of each probe the driver was handed, for a cell expecting `expected`. */
  async function timeouts(expected: Outcome, timeoutMs: number, planned?: number) {
    const driver = argvDriver([]);
    const given: number[] = [];
    driver.probeFromPod = (_pod, _request, ms) => {
      given.push(ms);
      return Promise.resolve({ result: 'timeout', error: 'no answer' });
    };
    const plan = cells[0]!;
    const probe = plan.probe!;
    const withBound =
      planned === undefined
        ? plan
        : { ...plan, probe: (w: Workloads) => ({ ...probe(w), timeoutMs: planned }) };
    const runner = new CellRunner(driver, fakeWorkloads(NODES), {
      concurrency: 1,
      timeoutMs,
      retries: 0,
    });
    const result = await runner.result(withBound, { expected });
    return { given, verdict: result.verdict };
  }

  it('the run timeout for a cell expected to answer', async () => {
    expect(await timeouts(Outcome.Ok, 3000)).to.deep.equal({ given: [3000], verdict: 'fail' });
  });

  it('a cell expected to time out waits as long as one nothing may answer, never longer than the run timeout', async () => {
    expect(await timeouts(Outcome.Timeout, 3000)).to.deep.equal({
      given: [NOT_FORWARDED_MS],
      verdict: 'expected-failure',
    });
    expect((await timeouts(Outcome.Timeout, 400)).given).to.deep.equal([400]);
  });

  it("a cell's own bound is kept", async () => {
    expect((await timeouts(Outcome.Timeout, 3000, 2500)).given).to.deep.equal([2500]);
    expect((await timeouts(Outcome.Ok, 3000, 1200)).given).to.deep.equal([1200]);
  });
});
