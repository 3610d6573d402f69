/** Wording shared by every output, so JUnit, summary and HTML say the same thing. */
import type { CellResult, SlowFlag } from '../../lab/contracts/results-file.ts';

/** Banner every emulated output carries. */
export const EMULATED_BANNER = 'EMULATED dataplane — not a real Windows/Kubernetes network';

/** One line describing a cell's outcome, e.g. `expected ok, got timeout`. */
export function outcomeLine(cell: CellResult): string {
  switch (cell.verdict) {
    case 'pass':
      return 'ok';
    case 'fail':
      return `expected ${cell.expected}, got ${cell.actual ?? 'no result'}`;
    case 'unexpected-pass':
      return `unexpected pass: profile expects ${cell.expected}, got ${cell.actual ?? 'ok'}`;
    case 'expected-failure':
      return `expected failure (${cell.actual ?? cell.expected})`;
    case 'skipped':
      return 'skipped';
    case 'infra-error':
      return 'infrastructure error';
  }
}

/** The loud message of an unexpected pass: a known limitation now works. */
export function unexpectedPassMessage(cell: CellResult): string {
  const why = cell.reason ? ` (${cell.reason})` : '';
  return (
    `UNEXPECTED PASS: the profile expects ${cell.expected}${why} but the cell passed — ` +
    `a known limitation now works; update the profile`
  );
}

/** A slow flag in one line: the measure, how many times its baseline, and where that came from. */
export function slowText(flag: SlowFlag): string {
  return `slow: ${flag.measure} ${flag.value} ${flag.unit} is ${flag.ratio}× the baseline ${flag.baseline} ${flag.unit} (${flag.basis})`;
}
