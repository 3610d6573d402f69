/**
 * Path evidence for the run's cells once every probe is done: for each failing cell (every cell
 * with EVIDENCE=all), up to EVIDENCE_MAX_CELLS, the driver's view of the nodes on its path and one
 * traced retry, written under `<results>/evidence/<cell id>/`. Cells go one after another (each
 * traces a retry, and traces of two flows at once would mix); each cell's nodes in parallel.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import type { PathEvidence } from '../../lab/cluster/path-evidence.ts';
import { probeProgramMs } from '../drivers/probe-args.ts';
import type { ProbeSpec } from '../model/cell-plan.ts';
import type { LabDriver } from '../model/lab-driver.ts';
import { withDeadline } from './deadline.ts';
import type { SuiteSettings } from './suite-settings.ts';

const EVIDENCE_ROOT = 'evidence';

/** Removes an earlier run's evidence, which would otherwise pass for this run's. */
export function removeEvidence(resultsDir: string): void {
  rmSync(join(resultsDir, EVIDENCE_ROOT), { recursive: true, force: true });
}

/** The folder under the results that holds a cell's evidence: its id, one path segment per level. */
export function evidenceDir(cell: string): string {
  // `.` and `..` would leave the folder: they become underscores like any other odd character.
  const safe = (part: string): string =>
    /^\.*$/.test(part)
      ? '_'.repeat(Math.max(part.length, 1))
      : part.replace(/[^A-Za-z0-9._+,-]/g, '_');
  return join(EVIDENCE_ROOT, ...cell.split('/').map(safe));
}

/** The cells to collect for, in the run's order. */
export function evidenceCells(
  results: readonly { result: CellResult; spec: ProbeSpec }[],
  settings: Pick<SuiteSettings['evidence'], 'cells' | 'maxCells'>,
): { result: CellResult; spec: ProbeSpec }[] {
  if (settings.cells === 'off') return [];
  const wanted = results.filter(
    ({ result }) =>
      settings.cells === 'all' || result.verdict === 'fail' || result.verdict === 'infra-error',
  );
  return wanted.slice(0, settings.maxCells);
}

/**
 * Why the run collects no evidence at all: EVIDENCE unset on a lab where evidence is opt-in
 * (`optIn`, the driver's reason); undefined: collect as `settings` say.
 */
export function evidenceNotAsked(
  settings: SuiteSettings['evidence'],
  optIn: string | undefined,
): string | undefined {
  if (settings.asked || optIn === undefined || settings.cells === 'off') return undefined;
  return `${optIn}; EVIDENCE=failed collects it`;
}

/**
 * What one cell's collection may take beyond its retry: snapshots, the trace's setup and teardown
 * over the node shells (seconds each on an emulated VM), and a Windows capture of its own.
 */
const EVIDENCE_OVERHEAD_MS = 60_000;

function cellBudgetMs(spec: ProbeSpec, timeoutMs: number, overheadMs: number): number {
  return 2 * probeProgramMs(spec.request, timeoutMs) + overheadMs;
}

/** The longest the collection for `cells` can take: each cell is cut off at its own budget. */
export function evidenceBudgetMs(cells: readonly { spec: ProbeSpec }[], timeoutMs: number): number {
  return cells.reduce(
    (sum, { spec }) => sum + cellBudgetMs(spec, timeoutMs, EVIDENCE_OVERHEAD_MS),
    0,
  );
}

/**
 * A churn cell probed its Service after one step; by the time evidence is collected, later steps
 * have changed the endpoints, so a retry would trace another flow than the one that failed.
 */
export const CHURN_NOT_TRACED =
  'no trace: the churn steps after this cell changed its Service, so a retry now would not be the flow that failed; the failure names the endpoints that did not answer';

/**
 * Collects and writes the evidence of `cells`; returns what each result gets. A cell whose
 * collection fails, or outlasts its budget, gets the reason as its evidence, so a report never
 * hides that it is missing.
 */
export async function collectEvidence(
  driver: LabDriver,
  cells: readonly { result: CellResult; spec: ProbeSpec }[],
  resultsDir: string,
  timeoutMs: number,
  overheadMs = EVIDENCE_OVERHEAD_MS,
): Promise<Map<string, NonNullable<CellResult['evidence']>>> {
  const collected = new Map<string, NonNullable<CellResult['evidence']>>();
  const collect = driver.pathEvidence?.bind(driver);
  if (collect === undefined) return collected;
  for (const { result, spec } of cells) {
    const dir = evidenceDir(result.cell);
    mkdirSync(join(resultsDir, dir), { recursive: true });
    const write = (file: string, text: string): string => {
      mkdirSync(join(resultsDir, dir, file, '..'), { recursive: true });
      writeFileSync(join(resultsDir, dir, file), text);
      return join(dir, file);
    };
    if (result.cell.startsWith('churn/')) {
      collected.set(result.cell, {
        diedAt: CHURN_NOT_TRACED,
        files: [
          write(
            'path.txt',
            `${CHURN_NOT_TRACED}
`,
          ),
        ],
      });
      continue;
    }
    try {
      const budget = cellBudgetMs(spec, timeoutMs, overheadMs);
      const evidence = await withDeadline<PathEvidence | undefined>(
        collect(result, spec, timeoutMs),
        budget,
        () => undefined,
      );
      if (evidence === undefined) throw new Error(`not collected within ${budget / 1000} s`);
      const files = [write('path.txt', `${evidence.path}\n`)];
      for (const { node, files: texts } of evidence.nodes)
        for (const [name, text] of Object.entries(texts)) files.push(write(join(node, name), text));
      collected.set(result.cell, { diedAt: evidence.diedAt, files });
    } catch (error) {
      const why = `no evidence: ${error instanceof Error ? error.message : String(error)}`;
      collected.set(result.cell, { diedAt: why, files: [write('path.txt', `${why}\n`)] });
    }
  }
  return collected;
}
