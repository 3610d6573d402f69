/**
 * CI's share of the self-test (`npm run selftest -- --slice`): every fault run of a fault the
 * change touched, plus one of ROTATION_TURNS turns of the rest, the turn chosen by the commit's
 * place on its branch, so any ROTATION_TURNS consecutive changes run every fault at least once.
 * The nightly runs the whole catalogue on both ends of each OS.
 */

/** How many consecutive changes share out the whole catalogue. */
export const ROTATION_TURNS = 4;

/** One planned run of the self-test: a fault, on one node or on the lab. */
export interface PlannedRun {
  fault: { id: string };
  node: string | undefined;
}

export interface SliceChoice {
  /** Faults whose fingerprint differs from the merge base's (or is new). */
  changed: ReadonlySet<string>;
  /** The change's number (first-parent commits on its branch); its turn is this modulo the turns. */
  commitNumber: number;
}

export interface Slice<T extends PlannedRun> {
  runs: T[];
  turn: number;
  /** Faults with a run in this slice because the change touched them. */
  changed: string[];
  /** Runs left to other turns and the nightly. */
  leftOut: T[];
}

/**
 * The runs CI makes of `planned` (the self-test's runs in catalogue order): a run whose position
 * falls on this turn, and every run of a changed fault.
 */
export function sliceRuns<T extends PlannedRun>(
  planned: readonly T[],
  choice: SliceChoice,
): Slice<T> {
  const turn = ((choice.commitNumber % ROTATION_TURNS) + ROTATION_TURNS) % ROTATION_TURNS;
  const runs: T[] = [];
  const leftOut: T[] = [];
  planned.forEach((run, i) =>
    (choice.changed.has(run.fault.id) || i % ROTATION_TURNS === turn ? runs : leftOut).push(run),
  );
  const changed = [...new Set(runs.map((r) => r.fault.id))].filter((f) => choice.changed.has(f));
  return { runs, turn, changed, leftOut };
}

/** The faults whose fingerprint in `head` is not the one in `base` (new faults included). */
export function changedFaults(
  base: Readonly<Record<string, string>>,
  head: Readonly<Record<string, string>>,
): Set<string> {
  return new Set(Object.keys(head).filter((id) => base[id] !== head[id]));
}
