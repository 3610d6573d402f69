/** `lab history add|report`: the nightly per-cell trend kept in a folder of JSON-lines files. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { HistoryStore } from '../history/history-store.ts';
import { readResultsFile } from '../history/results-input.ts';
import { DEFAULT_WINDOW } from '../history/trend.ts';
import { parseWindow, trendDir, writeTrend } from '../history/write-trend.ts';

const out = (text: string) => process.stdout.write(`${text}\n`);

/** Adds `history add` and `history report` to the `lab` program. */
export function registerHistoryCommands(program: Command): void {
  const history = program
    .command('history')
    .description('keep a history of suite runs and report the per-cell trend');

  history
    .command('add')
    .description('append a run (results.json the suite wrote) to the history store')
    .argument('<results.json>')
    .requiredOption('--store <dir>', 'the history folder (one <preset>.jsonl per preset)')
    .option('--preset <name>', 'the series to file the run under (default: the lab name)')
    .option('--link <url>', 'where the run’s artifacts are (shown in the trend)')
    .action((file: string, opts: { store: string; preset?: string; link?: string }) => {
      const record = readResultsFile(resolve(file), {
        ...(opts.preset === undefined ? {} : { preset: opts.preset }),
        ...(opts.link === undefined ? {} : { link: opts.link }),
      });
      const store = new HistoryStore(resolve(opts.store));
      const result = store.add(record);
      const what = `run ${record.runId} of ${record.preset} (${record.status}${record.emulated ? ', emulated' : ''})`;
      out(
        result === 'added'
          ? `added ${what} to ${store.fileOf(record.preset)}`
          : `${what} is already in ${store.fileOf(record.preset)}; nothing added`,
      );
    });

  history
    .command('report')
    .description('write trend.html and trend.md: pass rate, flaky and failing cells per preset')
    .requiredOption('--store <dir>', 'the history folder')
    .option('--window <n>', 'runs per preset to look at', String(DEFAULT_WINDOW))
    .option('--out <dir>', 'where to write (default: $ARTIFACTS, else test-results/)')
    .action((opts: { store: string; window: string; out?: string }) => {
      const window = parseWindow(opts.window);
      const store = new HistoryStore(resolve(opts.store));
      const written = writeTrend(
        store,
        opts.out === undefined ? trendDir() : resolve(opts.out),
        window,
      );
      for (const s of written.report.series) {
        out(
          `${s.preset}${s.emulated ? ' (EMULATED)' : ''}: ${s.runs.length} of ${s.totalRuns} runs, ` +
            `${s.failing.length} failing now, ${s.flaky.length} flaky`,
        );
        for (const c of s.failing) out(`  failing since ${c.failingSince!.runId}: ${c.cell}`);
        for (const c of s.flaky) out(`  flaky: ${c.cell}`);
      }
      out(`trend: ${written.html}, ${written.markdown}`);
    });
}
