/**
 * Writes an upstream run beside the matrix's results: `upstream-e2e.json` and `junit_e2e.xml`
 * always; and, where the folder holds a matrix run of the same lab, the cross-check and the
 * upstream part of results.json, summary.md and matrix.html (written again).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ResultsFileSchema } from '../../lab/contracts/results-file.ts';
import { UpstreamRunSchema, type UpstreamRun } from '../../lab/contracts/upstream-results.ts';
import { renderUpstreamJunit } from '../report/upstream-junit.ts';
import { RESULT_FILES, writeReport } from '../report/write-report.ts';
import { crossCheck } from './cross-check.ts';
import type { CrossCheckEntry } from './upstream-catalogue.ts';

/** File names in the results folder; Prow picks up `junit_*.xml`. */
export const UPSTREAM_FILES = { json: 'upstream-e2e.json', junit: 'junit_e2e.xml' } as const;

export interface UpstreamWritten {
  json: string;
  junit: string;
  /** results.json, summary.md and matrix.html now carry the run; false: no matrix run of this lab here. */
  merged: boolean;
  /** Why it was not merged. */
  notMerged?: string;
  /** The run as written, with its cross-check when merged. */
  run: UpstreamRun;
}

function write(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

/** Writes `run` into `dir`, merging it into the matrix results of the same lab found there. */
export function writeUpstream(
  run: UpstreamRun,
  dir: string,
  entries: readonly CrossCheckEntry[],
): UpstreamWritten {
  const resultsFile = join(dir, RESULT_FILES.json);
  let merged = false;
  let notMerged: string | undefined;
  let written: UpstreamRun = { ...run, junit: UPSTREAM_FILES.junit };
  if (!existsSync(resultsFile)) {
    notMerged = `no ${RESULT_FILES.json} in ${dir}: run the matrix (npm test) first for the cross-check`;
  } else {
    const parsed = ResultsFileSchema.safeParse(JSON.parse(readFileSync(resultsFile, 'utf8')));
    if (!parsed.success) {
      notMerged = `${resultsFile} is not a results.json this harness reads`;
    } else if (parsed.data.run.lab !== run.lab) {
      notMerged = `${resultsFile} is of lab ${parsed.data.run.lab}, not ${run.lab}`;
    } else {
      written = { ...written, crossCheck: crossCheck(entries, run.tests, parsed.data.cells) };
      writeReport({ ...parsed.data, upstream: written }, dir);
      merged = true;
    }
  }
  const json = join(dir, UPSTREAM_FILES.json);
  const junit = join(dir, UPSTREAM_FILES.junit);
  write(json, `${JSON.stringify(UpstreamRunSchema.parse(written), null, 2)}\n`);
  write(junit, renderUpstreamJunit(written));
  return { json, junit, merged, ...(notMerged === undefined ? {} : { notMerged }), run: written };
}
