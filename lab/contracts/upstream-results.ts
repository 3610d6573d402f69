/**
 * Upstream's verdict beside the matrix (docs/upstream-e2e.md): what a run of Kubernetes' own e2e.test
 * found on a lab, as `upstream-e2e.json` and the `upstream` part of results.json carry it. Written
 * by specs/upstream, read by the report writers and the nightly history; this is its one schema.
 */
import { z } from 'zod';
import { VERDICTS, isoDate, type Verdict } from './verdicts.ts';

/** One upstream spec: its full ginkgo name and how it ended after the lab's known limits. */
export const UpstreamTestSchema = z.object({
  /** The full spec name as ginkgo prints it, e.g. `[sig-network] Services should serve …`. */
  name: z.string().min(1),
  /**
   * pass · fail · skipped (left out of the focus, or skipped by e2e.test itself; `reason` says
   * why) · expected-failure (failed, and the lab's known limits list it) · unexpected-pass (the
   * known limits list it, yet it passed) · infra-error (the suite could not start).
   */
  verdict: z.enum(VERDICTS),
  /** Chosen by the run's focus and skip; false: listed only, with why it was left out. */
  selected: z.boolean(),
  /** Why it was skipped or is a known limit. */
  reason: z.string().optional(),
  /** The failure message, shortened. */
  message: z.string().optional(),
  durationMs: z.number().min(0),
});
export type UpstreamTest = z.infer<typeof UpstreamTestSchema>;

/** How the matrix and upstream judged the same path; `disagree` is a finding. */
export const AGREEMENTS = ['agree', 'disagree', 'not-comparable'] as const;
export type Agreement = (typeof AGREEMENTS)[number];

/**
 * One side of a cross-check: `pass`; `fail`; `partial` (matrix only: some covered cells red, others
 * green — a fault on some nodes); `none` (skipped, not run, or an expected failure).
 */
export const SideVerdictSchema = z.enum(['pass', 'fail', 'partial', 'none']);
export type SideVerdict = z.infer<typeof SideVerdictSchema>;

export const CrossCheckRowSchema = z.object({
  /** The upstream spec's full name. */
  test: z.string().min(1),
  upstream: SideVerdictSchema,
  /** Matrix row ids the spec covers, e.g. `pod-to-service-udp/linux-to-linux`. */
  rows: z.array(z.string().min(1)).min(1),
  matrix: SideVerdictSchema,
  /** The red matrix cells, or those that passed, when the two disagree. */
  cells: z.array(z.string()),
  agreement: z.enum(AGREEMENTS),
  /** How the two paths differ, when they are not quite the same. */
  note: z.string().optional(),
});
export type CrossCheckRow = z.infer<typeof CrossCheckRowSchema>;

export const UpstreamTotalsSchema = z.object({
  tests: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  expectedFailures: z.number().int().min(0),
  unexpectedPasses: z.number().int().min(0),
  skipped: z.number().int().min(0),
  infraErrors: z.number().int().min(0),
});
export type UpstreamTotals = z.infer<typeof UpstreamTotalsSchema>;

export const UpstreamRunSchema = z.object({
  /** `e2e.test v1.20.2`: what ran, built from the same source as the lab's Kubernetes. */
  engine: z.string().min(1),
  lab: z.string().min(1),
  /** ran · skipped (the lab cannot run it: `reason`) · infra-error (it could not start or finish). */
  status: z.enum(['ran', 'skipped', 'infra-error']),
  reason: z.string().optional(),
  /** The ginkgo focus and skip regular expressions in force. */
  focus: z.string(),
  skip: z.string(),
  startedAt: isoDate,
  finishedAt: isoDate.optional(),
  /** What else a reader must know of how it ran (the offline stand-in for its Internet pre-check). */
  notes: z.array(z.string()).optional(),
  /** The JUnit this run wrote, relative to the results folder (`junit_e2e.xml`). */
  junit: z.string().optional(),
  totals: UpstreamTotalsSchema,
  tests: z.array(UpstreamTestSchema),
  /** Filled where a matrix run of the same lab sits beside it. */
  crossCheck: z.array(CrossCheckRowSchema).optional(),
});
export type UpstreamRun = z.infer<typeof UpstreamRunSchema>;

/** Counts by verdict, as the run's totals carry them. */
export function upstreamTotals(tests: readonly UpstreamTest[]): UpstreamTotals {
  const count = (v: Verdict): number => tests.filter((t) => t.verdict === v).length;
  return {
    tests: tests.length,
    passed: count('pass'),
    failed: count('fail'),
    expectedFailures: count('expected-failure'),
    unexpectedPasses: count('unexpected-pass'),
    skipped: count('skipped'),
    infraErrors: count('infra-error'),
  };
}

/** True when the upstream run needs attention: a red test, a run that broke, or a disagreement. */
export function upstreamHasProblems(run: UpstreamRun): boolean {
  const t = run.totals;
  return (
    run.status === 'infra-error' ||
    t.failed + t.unexpectedPasses + t.infraErrors > 0 ||
    (run.crossCheck ?? []).some((r) => r.agreement === 'disagree')
  );
}

/** The history's row of upstream specs: `upstream-e2e/sig-network`; their cell id is `upstream-e2e/<name>`. */
export function upstreamRowOf(name: string): string {
  const sig = /^\[(sig-[a-z-]+)\]/.exec(name)?.[1] ?? 'other';
  return `upstream-e2e/${sig}`;
}
