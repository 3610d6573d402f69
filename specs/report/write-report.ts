/** Writes all four result files synchronously, so a signal handler can call it too. */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ResultsFileSchema } from '../../lab/contracts/results-file.ts';
import { renderJunit, type RerunStyle } from './junit-writer.ts';
import { renderMatrixHtml } from './matrix-html-writer.ts';
import type { Report } from '../model/report.ts';
import { renderSummary } from './summary-writer.ts';
import { hasPerf, renderPerfHtml, renderPerfJson } from './perf-writer.ts';

/** Where results go: `$RESULTS_DIR`, else `test-results/` under the working directory. */
export function resultsDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.RESULTS_DIR && env.RESULTS_DIR !== '' ? env.RESULTS_DIR : 'test-results');
}

export interface WrittenFiles {
  junit: string;
  summary: string;
  html: string;
  json: string;
  /** Perf mode only: the figures as perfdash-like records, and their page. */
  perfJson?: string;
  perfHtml?: string;
}

/** File names inside the results directory (Prow picks up `junit_*.xml`). */
export const RESULT_FILES = {
  junit: 'junit_01.xml',
  summary: 'summary.md',
  html: 'matrix.html',
  json: 'results.json',
  perfJson: 'perf.json',
  perfHtml: 'perf.html',
} as const satisfies Record<keyof WrittenFiles, string>;

/** The machine-readable form, checked against the schema its readers use (lab/contracts/results-file.ts). */
export function renderResultsJson(report: Report): string {
  return `${JSON.stringify(ResultsFileSchema.parse(report), null, 2)}\n`;
}

/** JUNIT_RERUNS: `text` keeps retries out of JUnit elements, for consumers of Jenkins' junit-4.xsd. */
export function rerunStyle(env: NodeJS.ProcessEnv = process.env): RerunStyle {
  return env.JUNIT_RERUNS === 'text' ? 'text' : 'surefire';
}

/** Render and write junit_01.xml, summary.md, matrix.html and results.json into `dir`. */
export function writeReport(report: Report, dir: string = resultsDir()): WrittenFiles {
  mkdirSync(dir, { recursive: true });
  const rendered: Partial<Record<keyof WrittenFiles, string>> = {
    junit: renderJunit(report, dir, rerunStyle()),
    summary: renderSummary(report),
    html: renderMatrixHtml(report),
    json: renderResultsJson(report),
    ...(hasPerf(report)
      ? { perfJson: renderPerfJson(report), perfHtml: renderPerfHtml(report) }
      : {}),
  };
  const written = {} as WrittenFiles;
  for (const key of Object.keys(RESULT_FILES) as (keyof WrittenFiles)[]) {
    if (rendered[key] === undefined) continue;
    const file = join(dir, RESULT_FILES[key]);
    // Write then rename: a reader (or a second signal) never sees a half-written file.
    writeFileSync(`${file}.tmp`, rendered[key]);
    renameSync(`${file}.tmp`, file);
    written[key] = file;
  }
  return written;
}
