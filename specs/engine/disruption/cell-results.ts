/** How the over-time runner turns what it saw into CellResults (the same verdicts as the matrix). */
import { Outcome, type CellMeta, type CellResult } from '../../../lab/contracts/results-file.ts';
import { settle, type Expectation } from '../profile.ts';
import type { Judged } from './until-green.ts';

type Meta = Omit<CellMeta, 'expected' | 'reason'>;

export type Recovery = NonNullable<CellResult['recovery']>;

/** The result of a cell that was probed: its verdict from the expectation, and what it took. */
export function judgedResult(
  meta: Meta,
  expectation: Expectation,
  judged: Judged,
  took: { durationMs: number; attempts: number; recovery?: Recovery },
): CellResult {
  const { seen, ...met } = settle(expectation, judged.outcome);
  return {
    ...meta,
    ...met,
    actual: judged.outcome,
    detail: seen === undefined ? judged.detail : `${judged.detail} (${seen})`,
    durationMs: Math.max(0, Math.round(took.durationMs)),
    attempts: took.attempts,
    ...(took.recovery === undefined ? {} : { recovery: took.recovery }),
  };
}

/** A cell this lab cannot host, or that is not expected to hold (its reason says why). */
export function skippedResult(meta: Meta, reason: string): CellResult {
  return {
    ...meta,
    expected: Outcome.Ok,
    verdict: 'skipped',
    reason,
    detail: '',
    durationMs: 0,
    attempts: 0,
  };
}

/** A cell whose probes could not start: the change before it failed, or the driver threw. */
export function errorResult(meta: Meta, expectation: Expectation, why: string): CellResult {
  return judgedResult(
    meta,
    expectation,
    { outcome: Outcome.Error, detail: why },
    { durationMs: 0, attempts: 0 },
  );
}

/** An error's message (its stack when it has none worth more). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
