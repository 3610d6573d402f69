/** Writes trend.html and trend.md for a history store. */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HistoryError } from './history-error.ts';
import type { HistoryStore } from './history-store.ts';
import { computeTrend, type TrendReport } from './trend.ts';
import { renderTrendHtml } from './trend-html.ts';
import { renderTrendMarkdown } from './trend-markdown.ts';

export const TREND_FILES = { html: 'trend.html', markdown: 'trend.md' } as const;

/** Where the trend goes by default: `$ARTIFACTS` (Prow), else `test-results/`. */
export function trendDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(
    env.ARTIFACTS !== undefined && env.ARTIFACTS !== '' ? env.ARTIFACTS : 'test-results',
  );
}

/** Parses `--window`: a whole number of runs, at least 1. */
export function parseWindow(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new HistoryError(
      `--window: expected a whole number of runs ≥ 1, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

export interface WrittenTrend {
  report: TrendReport;
  html: string;
  markdown: string;
}

/** Computes the trend of every run in `store` and writes both files into `outDir`. */
export function writeTrend(
  store: HistoryStore,
  outDir: string,
  window: number,
  now: Date = new Date(),
): WrittenTrend {
  const report = computeTrend(store.readAll(), window, now);
  mkdirSync(outDir, { recursive: true });
  const files = {
    html: [join(outDir, TREND_FILES.html), renderTrendHtml(report)],
    markdown: [join(outDir, TREND_FILES.markdown), renderTrendMarkdown(report)],
  } as const;
  for (const [file, text] of Object.values(files)) {
    // Write then rename: a job uploading the folder never picks up half a page.
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  }
  return { report, html: files.html[0], markdown: files.markdown[0] };
}
