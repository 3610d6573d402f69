/** Verdicts of a matrix cell and of an upstream test: one vocabulary, one module (no import cycle). */
import { z } from 'zod';

/** How a cell ended, after comparing the outcome with the profile's expectation. */
export const VERDICTS = [
  /** Expected ok, got ok. */
  'pass',
  /** Expected ok (or a named failure), got something else. */
  'fail',
  /** The profile expects this failure and it happened: reported as skipped with the reason. */
  'expected-failure',
  /** The profile expects a failure but the cell passed: reported loudly (fails in strict). */
  'unexpected-pass',
  /** The lab cannot host this cell (e.g. no second Windows node); the reason says why. */
  'skipped',
  /** The lab was not ready; reported once as an infrastructure failure, not a network one. */
  'infra-error',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * A red verdict: the cell failed, passed where the profile expects a failure, or never ran. An
 * expected failure (a documented limitation the profile names) is not red.
 */
export function isRed(verdict: Verdict): boolean {
  return verdict === 'fail' || verdict === 'unexpected-pass' || verdict === 'infra-error';
}

export const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'expected an ISO date' });
