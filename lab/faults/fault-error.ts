/** Fault injection failed or was asked for something it cannot do; nothing was changed unless it says so. */
import { LabError } from '../errors.ts';

export class FaultError extends LabError {
  override readonly name = 'FaultError';
}
