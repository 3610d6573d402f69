/**
 * CellRunner on a cluster where the run found paths it cannot use before the matrix
 * (Workloads.unreachable): exactly the cells that need such a path are skipped with the reason;
 * every other cell is probed and judged, a NodePort that fails on a node the outside reaches too.
 */
import { expect } from 'chai';
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import type { CellPlan } from '../model/cell-plan.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import { CellRunner } from './cell-runner.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';
import { argvDriver, urlDriver } from '../testing/cell-runner-fixtures.ts';
import { unusablePath } from '../model/unusable-paths.ts';

const NODES: SuiteNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
];
const workloadsShape = fakeWorkloads(NODES);
// Cells that probe once (no pause between two requests: the affinity timeout's takes seconds).
const cells = expandCells(MATRIX, NODES).filter(
  (c) =>
    c.probe !== undefined && c.churn === undefined && c.probe(workloadsShape).again === undefined,
);
const settings = { concurrency: 8, timeoutMs: 1000, retries: 0 };

function withUnreachable(unreachable: NonNullable<Workloads['unreachable']>): Workloads {
  return { ...fakeWorkloads(NODES), unreachable };
}

/** Each cell's verdict and reason with these workloads, every probe answered at once. */
async function verdicts(
  workloads: Workloads,
): Promise<Map<string, { verdict: string; reason?: string }>> {
  const runner = new CellRunner(argvDriver([]), workloads, settings);
  const results = await Promise.all(
    cells.map((plan) => runner.result(plan, { expected: Outcome.Ok })),
  );
  return new Map(
    results.map((r) => [
      r.cell,
      { verdict: r.verdict, ...(r.reason === undefined ? {} : { reason: r.reason }) },
    ]),
  );
}

/** The cells `unusablePath` picks, computed from each cell's own probe, not from its name. */
const picked = (workloads: Workloads, pick: (plan: CellPlan) => boolean) =>
  cells
    .filter(pick)
    .map((c) => c.meta.cell)
    .sort();

describe('CellRunner: paths the run found unusable before the matrix', function () {
  it('the outside cannot reach lin1: its cells from outside are skipped naming it, the other nodes’ are probed', async function () {
    const workloads = withUnreachable({
      outside: { lin1: 'not even its kubelet port 10250 answers (timeout)' },
      echo: {},
    });
    const seen = await verdicts(workloads);
    const skipped = [...seen]
      .filter(([, v]) => v.verdict === 'skipped')
      .map(([cell]) => cell)
      .sort();
    const fromOutsideToLin1 = picked(workloads, (c) => {
      const spec = c.probe!(workloads);
      return spec.from === 'outside' && JSON.stringify(spec.request).includes('192.168.200.11');
    });
    expect(fromOutsideToLin1.length).to.be.above(3);
    expect(skipped).to.deep.equal(fromOutsideToLin1);
    expect(skipped.some((c) => c.startsWith('nodeport/'))).to.be.true;
    for (const cell of skipped)
      expect(seen.get(cell)!.reason).to.equal(
        'the outside cannot reach lin1 (192.168.200.11): not even its kubelet port 10250 answers (timeout)',
      );
    // The same rows through the other nodes are probed.
    const toCp1 = picked(workloads, (c) => {
      const spec = c.probe!(workloads);
      return spec.from === 'outside' && JSON.stringify(spec.request).includes('192.168.200.10');
    });
    expect(toCp1.length).to.be.above(3);
    for (const cell of toCp1) expect(seen.get(cell)!.verdict, cell).to.not.equal('skipped');
  });

  it("win1's own network gets no answer from the echo: its cells to the echo are skipped, the other nodes' are probed", async function () {
    const workloads = withUnreachable({
      outside: {},
      echo: { win1: 'the node itself gets no answer either (timeout)' },
    });
    const seen = await verdicts(workloads);
    const skipped = [...seen].filter(([, v]) => v.verdict === 'skipped').map(([cell]) => cell);
    expect(skipped.length).to.be.above(0);
    for (const cell of skipped) {
      expect(cell, 'from win1').to.match(/win1/);
      expect(seen.get(cell)!.reason).to.match(
        /^win1 cannot reach the external echo \(.+\) from its own network: the node itself gets no answer either \(timeout\)$/,
      );
    }
    const rows = new Set(skipped.map((c) => c.split('/')[0]));
    expect([...rows].sort()).to.include.members(['outbound-nat']);
    const fromLin1ToEcho = [...seen].filter(([cell]) =>
      /^(outbound-nat|icmp-outbound)\/linux\/lin1\//.test(cell),
    );
    expect(fromLin1ToEcho.length).to.be.above(0);
    for (const [cell, v] of fromLin1ToEcho) expect(v.verdict, cell).to.not.equal('skipped');
  });

  it('nothing unreachable: no cell is skipped for it; a NodePort every node drops still fails', async function () {
    const workloads = withUnreachable({ outside: {}, echo: {} });
    expect(cells.every((c) => unusablePath(c.probe!(workloads), workloads) === undefined)).to.be
      .true;
    const driver = urlDriver((url) =>
      /:3008\d\//.test(url)
        ? { result: 'timeout', error: 'no answer' }
        : { result: 'ok', body: '' },
    );
    const runner = new CellRunner(driver, workloads, settings);
    const nodeport = cells.filter((c) => c.meta.cell.startsWith('nodeport/'));
    expect(nodeport.length).to.be.above(0);
    const results = await Promise.all(
      nodeport.map((plan) => runner.result(plan, { expected: Outcome.Ok })),
    );
    for (const r of results) expect(r.verdict, r.cell).to.equal('fail');
  });
});
