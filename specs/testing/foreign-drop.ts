/**
 * A fault the catalogue does not know, for integration tests of path evidence: a foreign
 * nftables table on one node that drops one flow, and what its run must show.
 */
import { expect } from 'chai';
import type { Os } from '../../lab/contracts/cells.ts';
import { isRed, type CellResult } from '../../lab/contracts/results-file.ts';
import { CHURN_NOT_TRACED } from '../engine/evidence.ts';

export const FOREIGN_TABLE = 'hl_test_foreign';

/**
 * `nft -f` input: table inet FOREIGN_TABLE, chain blocker, dropping what `rule` matches in `hook`
 * (forward: what the node routes for its pods; output: what the node itself sends).
 */
export function foreignDropTable(rule: string, hook: 'forward' | 'output' = 'forward'): string {
  return `table inet ${FOREIGN_TABLE} {\n  chain blocker {\n    type filter hook ${hook} priority 0;\n    ${rule}\n  }\n}\n`;
}

/**
 * Some cells are red, every red one runs from `source` to `target`, and its evidence says first
 * that `node` dropped it with `rule` (churn cells: why they have no trace). Returns the red cells.
 */
export function expectOnlyDroppedCells(
  cells: readonly CellResult[],
  drop: { source: string; target: string; targetOs: Os; node: string; rule: string },
): CellResult[] {
  const red = cells.filter((c) => isRed(c.verdict));
  expect(red.length, 'some cells must turn red').to.be.greaterThan(0);
  for (const cell of red) {
    expect(cell.source.node, cell.cell).to.equal(drop.source);
    // A pod-to-nodeport cell's target is the node it goes through; every pod of its Service's OS
    // answers it, the dropped target among them when the OS is the target's.
    const nodePortTo = /^pod-to-nodeport\/\w+-to-(\w+)\//.exec(cell.cell)?.[1];
    if (nodePortTo !== undefined) expect(nodePortTo, cell.cell).to.equal(drop.targetOs);
    else expect(cell.target.node.split(','), cell.cell).to.include(drop.target);
    // An affinity cell's trace is a new connection: once the client's affinity timed out it may be
    // balanced to an endpoint the drop does not touch; which endpoint is sticky is a random pick.
    if (cell.cell.startsWith('affinity/')) continue;
    expect(cell.evidence?.diedAt, cell.cell).to.equal(
      cell.cell.startsWith('churn/')
        ? CHURN_NOT_TRACED
        : `dropped on ${drop.node}: inet table ${FOREIGN_TABLE}, chain blocker: rule \`${drop.rule}\` (drop)`,
    );
  }
  return red;
}
