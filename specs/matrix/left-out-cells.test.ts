import { expect } from 'chai';
import type { LeftOut } from '../model/lab-driver.ts';
import { expandCells } from './expand-cells.ts';
import { expandWithLeftOut } from './left-out-cells.ts';
import { MATRIX } from './rows.ts';
import { HYBRID } from '../testing/expand-cells-fixtures.ts';

const TAINT =
  "has taint dedicated=infra:NoSchedule, which the suite's pods do not tolerate (TOLERATIONS to add one)";

describe('the matrix of a run that leaves nodes out', () => {
  const lin2 = HYBRID.find((n) => n.name === 'lin2')!;
  const used = HYBRID.filter((n) => n !== lin2);
  const leftOut: LeftOut[] = [{ node: lin2, why: TAINT }];

  it('runs every cell of the used nodes as it would run without the left-out one', () => {
    const cells = expandWithLeftOut(MATRIX, used, leftOut);
    const running = cells.filter((c) => c.skip === undefined).map((c) => c.meta.cell);
    const alone = expandCells(MATRIX, used)
      .filter((c) => c.skip === undefined)
      .map((c) => c.meta.cell);
    expect(running).to.have.members(alone);
    expect(running).to.have.length(alone.length);
  });

  it('skips every cell that needs lin2, naming lin2 and its taint; no cell names lin2 and runs', () => {
    const cells = expandWithLeftOut(MATRIX, used, leftOut);
    const onLin2 = cells.filter(
      (c) => c.meta.source.node === 'lin2' || c.meta.target.node.split(',').includes('lin2'),
    );
    expect(onLin2.length).to.be.greaterThan(10);
    for (const cell of onLin2) {
      expect(cell.skip, cell.meta.cell).to.equal(`needs lin2, which the run left out: it ${TAINT}`);
    }
    // The whole cluster's cells are all there: run or skipped, none dropped.
    const ids = new Set(cells.map((c) => c.meta.cell));
    for (const cell of expandCells(MATRIX, HYBRID))
      expect(ids, cell.meta.cell).to.include(cell.meta.cell);
  });

  it('with every Windows node left out, the Windows cells are skipped naming them, not "no windows nodes"', () => {
    const windows = HYBRID.filter((n) => n.os === 'windows');
    const cordon = (name: string) =>
      `is cordoned (spec.unschedulable; kubectl uncordon ${name} to use it)`;
    const out: LeftOut[] = windows.map((node) => ({ node, why: cordon(node.name) }));
    const cells = expandWithLeftOut(
      MATRIX,
      HYBRID.filter((n) => n.os === 'linux'),
      out,
    );
    const windowsCells = cells.filter(
      (c) => c.meta.source.os === 'windows' || c.meta.target.os === 'windows',
    );
    expect(windowsCells).not.to.be.empty;
    for (const cell of windowsCells) {
      expect(cell.skip, cell.meta.cell).to.be.a('string');
      expect(cell.skip, cell.meta.cell).to.match(/win[12], which the run left out: it is cordoned/);
    }
    expect(cells.filter((c) => c.meta.source.node === '-' && c.meta.source.os === 'windows')).to.be
      .empty;
  });

  it('is the plain expansion when nothing is left out', () => {
    const shape = (cells: ReturnType<typeof expandCells>) =>
      cells.map((c) => ({ meta: c.meta, skip: c.skip }));
    expect(shape(expandWithLeftOut(MATRIX, HYBRID, []))).to.deep.equal(
      shape(expandCells(MATRIX, HYBRID)),
    );
  });
});
