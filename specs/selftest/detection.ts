/** Compares the cells that failed while a fault was applied with the cells its catalogue entry names. */
import { matchesCell, type CellRef } from '../../lab/faults/cell-selector.ts';
import type { FaultImpact } from '../../lab/faults/fault-definition.ts';
import { isRed, type CellResult, type Verdict } from '../../lab/contracts/results-file.ts';

/** What the catalogue says about one cell under one fault. */
export type Expectation = 'must-fail' | 'may-fail' | 'pass';

/** How one cell came out against its expectation. */
export type CellStatus =
  /** Must fail and failed, as the catalogue says. */
  | 'detected'
  /** Must fail and failed, but with another outcome than the catalogue names. */
  | 'wrong-outcome'
  /** Must fail but passed: the suite did not see the fault here. */
  | 'missed'
  /** Must pass but failed: the suite blamed a path the fault does not touch. */
  | 'false-alarm'
  /** May fail (load-balanced over cut-off and healthy endpoints) and failed. */
  | 'may-failed'
  /** May fail and passed. */
  | 'may-passed'
  /** Must pass and passed. */
  | 'ok'
  /** The lab cannot host the cell. */
  | 'not-hosted';

export interface CellDetection {
  cell: string;
  expectation: Expectation;
  verdict: Verdict;
  actual?: string;
  status: CellStatus;
  /** The suite's evidence. */
  detail: string;
}

export interface DetectionCounts {
  mustFail: number;
  detected: number;
  wrongOutcome: number;
  missed: number;
  falseAlarms: number;
  mayFail: number;
  mayFailed: number;
}

/** The catalogue's word on a cell: must-fail wins over may-fail. */
export function expectationOf(impact: FaultImpact, cell: CellRef): Expectation {
  if (impact.mustFail.some((s) => matchesCell(s, cell))) return 'must-fail';
  if (impact.mayFail.some((s) => matchesCell(s, cell))) return 'may-fail';
  return 'pass';
}

function statusOf(
  expectation: Expectation,
  cell: CellResult,
  outcomes?: readonly string[],
): CellStatus {
  if (cell.verdict === 'skipped') return 'not-hosted';
  const failed = isRed(cell.verdict);
  switch (expectation) {
    case 'must-fail':
      if (!failed) return 'missed';
      return outcomes === undefined || outcomes.includes(cell.actual ?? '')
        ? 'detected'
        : 'wrong-outcome';
    case 'may-fail':
      return failed ? 'may-failed' : 'may-passed';
    case 'pass':
      return failed ? 'false-alarm' : 'ok';
  }
}

/** Every cell of one suite run judged against the fault's impact. */
export function detect(
  impact: FaultImpact,
  cells: readonly CellResult[],
): { cells: CellDetection[]; counts: DetectionCounts } {
  const judged = cells.map((cell): CellDetection => {
    const expectation = expectationOf(impact, cell);
    return {
      cell: cell.cell,
      expectation,
      verdict: cell.verdict,
      ...(cell.actual === undefined ? {} : { actual: cell.actual }),
      status: statusOf(expectation, cell, impact.outcomes),
      detail: cell.detail,
    };
  });
  const count = (status: CellStatus): number => judged.filter((c) => c.status === status).length;
  return {
    cells: judged,
    counts: {
      mustFail: judged.filter((c) => c.expectation === 'must-fail' && c.status !== 'not-hosted')
        .length,
      detected: count('detected'),
      wrongOutcome: count('wrong-outcome'),
      missed: count('missed'),
      falseAlarms: count('false-alarm'),
      mayFail: judged.filter((c) => c.expectation === 'may-fail' && c.status !== 'not-hosted')
        .length,
      mayFailed: count('may-failed'),
    },
  };
}

/** Cells of a run that came out red (the lab is green when this is empty). */
export function failingCells(cells: readonly CellResult[]): string[] {
  return cells.filter((c) => isRed(c.verdict)).map((c) => c.cell);
}
