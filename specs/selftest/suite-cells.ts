/** The cells a suite run plans for a lab, with the over-time rows and disruptions a fault needs. */
import { disruptionSequence } from '../../lab/contracts/disruptions.ts';
import type { FaultDefinition } from '../../lab/faults/fault-definition.ts';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import { disruptionCells } from '../engine/disruption/disruption-cells.ts';
import { expandOverTimeCells, type HeldCell } from '../engine/disruption/over-time-cells.ts';
import { OVER_TIME_ROWS } from '../engine/disruption/over-time-rows.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import type { CellPlan } from '../model/cell-plan.ts';

/**
 * The probed cells of a run on `plan`: the matrix; for an over-time `witness`, the over-time
 * rows; for `disruptions`, the phase on `nodes` too (as the self-test runs a fault's suite).
 */
export function suiteCells(
  plan: LabPlan,
  witness: FaultDefinition['witness'],
  nodes: readonly string[],
): { meta: CellPlan['meta'] }[] {
  const matrix = expandCells(MATRIX, plan.nodes);
  const overTime = expandOverTimeCells(OVER_TIME_ROWS, plan.nodes);
  const held = overTime.filter((c): c is HeldCell => c.family === 'long-lived');
  return [
    ...matrix.filter((c) => c.probe !== undefined),
    ...(witness !== 'over-time' && witness !== 'disruptions'
      ? []
      : overTime.filter((c) => c.skip === undefined)),
    ...(witness === 'disruptions'
      ? disruptionCells(disruptionSequence(nodes), matrix, held).filter(
          (c) => c.kind === 'reprobe' || c.skip === undefined,
        )
      : []),
  ];
}
