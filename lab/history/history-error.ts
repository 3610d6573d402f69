/** Errors of the run history: a bad results file, a damaged store line, a bad option. */
import { LabError } from '../errors.ts';

/** What was wrong with history input, naming the file (and line or field) it came from. */
export class HistoryError extends LabError {
  override readonly name = 'HistoryError';
}
