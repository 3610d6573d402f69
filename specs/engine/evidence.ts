/**
 * Path evidence for the run's cells once every probe is done: for each failing cell (every cell
 * with EVIDENCE=all), up to EVIDENCE_MAX_CELLS, the driver's view of the nodes on its path and one
 * traced retry, written under `<results>/evidence/<cell id>/`. Cells go one after another (each
 * traces a retry, and traces of two flows at once would mix); each cell's nodes in parallel.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../model/cell-plan.ts';
import type { LabDriver } from '../model/lab-driver.ts';
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
  settings: SuiteSettings['evidence'],
): { result: CellResult; spec: ProbeSpec }[] {
  if (settings.cells === 'off') return [];
  const wanted = results.filter(
    ({ result }) =>
      settings.cells === 'all' || result.verdict === 'fail' || result.verdict === 'infra-error',
  );
  return wanted.slice(0, settings.maxCells);
}

/**
 * Collects and writes the evidence of `cells`; returns what each result gets. A cell whose
 * collection fails gets the reason as its evidence, so a report never hides that it is missing.
 */
export async function collectEvidence(
  driver: LabDriver,
  cells: readonly { result: CellResult; spec: ProbeSpec }[],
  resultsDir: string,
  timeoutMs: number,
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
    try {
      const evidence = await collect(result, spec, timeoutMs);
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
