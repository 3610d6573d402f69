/** The cells a suite run plans for a lab, with the over-time rows and disruptions a fault needs. */
import { disruptionSequence } from '../../lab/contracts/disruptions.ts';
import type { FaultSuite } from '../../lab/faults/fault-definition.ts';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import { disruptionCells } from '../disruption/disruption-cells.ts';
import { expandOverTimeCells, type HeldCell } from '../disruption/over-time-cells.ts';
import { OVER_TIME_ROWS } from '../disruption/over-time-rows.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import type { CellPlan } from '../model/cell-plan.ts';

/**
 * The probed cells of a run on `plan`: the matrix; with `suite`, the over-time rows; with
 * `disruptions`, the phase on `nodes` too (as the self-test runs a fault's suite).
 */
export function suiteCells(
  plan: LabPlan,
  suite: FaultSuite | undefined,
  nodes: readonly string[],
): { meta: CellPlan['meta'] }[] {
  const matrix = expandCells(MATRIX, plan.nodes);
  const overTime = expandOverTimeCells(OVER_TIME_ROWS, plan.nodes);
  const held = overTime.filter((c): c is HeldCell => c.family === 'long-lived');
  return [
    ...matrix.filter((c) => c.probe !== undefined),
    ...(suite === undefined ? [] : overTime.filter((c) => c.skip === undefined)),
    ...(suite === 'disruptions'
      ? disruptionCells(disruptionSequence(nodes), matrix, held).filter(
          (c) => c.kind === 'reprobe' || c.skip === undefined,
        )
      : []),
  ];
}
