/**
 * `npm run e2e [-- --lab NAME] [--focus REGEX] [--skip REGEX] [--nodes N]`: upstream's e2e.test
 * (built from the same source as the lab's Kubernetes) on the current lab, offline, beside the
 * matrix (docs/upstream-e2e.md). Writes junit_e2e.xml and upstream-e2e.json into $RESULTS_DIR and, beside a
 * matrix run of the same lab, the cross-check into results.json, summary.md and matrix.html.
 * Exit: 0 as expected (or skipped: an emulated lab), 1 a failure, unexpected pass, disagreement
 * or a run that broke, 2 bad arguments.
 */
import { join } from 'node:path';
import { upstreamHasProblems } from '../../lab/contracts/upstream-results.ts';
import { LabError } from '../../lab/errors.ts';
import { ExecaRunner } from '../../lab/exec/execa-runner.ts';
import { fileLogger } from '../../lab/log/logger.ts';
import { resultsDir } from '../report/write-report.ts';
import { upstreamCounts, disagreementLine, disagreements } from '../report/upstream-text.ts';
import { resolveE2eLab } from './e2e-lab.ts';
import { runE2e } from './e2e-run.ts';
import { e2eSettings, E2eSettingsError } from './e2e-settings.ts';
import { loadUpstreamCatalogue } from './upstream-catalogue.ts';
import { writeUpstream } from './upstream-report.ts';

const say = (line: string) =>
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} e2e: ${line}\n`);

async function main(): Promise<number> {
  const settings = e2eSettings(process.argv.slice(2), process.env);
  const lab = resolveE2eLab(process.env, settings.lab);
  const catalogue = loadUpstreamCatalogue();
  const dir = resultsDir();
  const rawDir = join(dir, 'e2e');
  const runner = new ExecaRunner(fileLogger(join(dir, 'e2e-harness.log'), { component: 'e2e' }));
  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    say(`${signal}: stopping e2e.test; what finished is still reported`);
    abort.abort();
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const run = await runE2e({
    runner,
    lab,
    rawDir,
    catalogue,
    given: {
      ...(settings.focus === undefined ? {} : { focus: settings.focus }),
      ...(settings.skip === undefined ? {} : { skip: settings.skip }),
      ...(settings.crossChecked === true ? { crossChecked: true } : {}),
    },
    nodes: settings.nodes,
    timeoutMs: settings.timeoutMs,
    signal: abort.signal,
    say,
  });
  const written = writeUpstream(run, dir, catalogue.crossCheck);
  const head = `upstream ${run.engine} on ${run.lab}`;
  if (run.status === 'skipped') process.stdout.write(`${head}: SKIPPED — ${run.reason ?? ''}\n`);
  else {
    const took =
      run.finishedAt === undefined
        ? ''
        : ` in ${Math.round((Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000)} s`;
    process.stdout.write(`${head}: ${upstreamCounts(run)}${took}\n`);
    if (run.status === 'infra-error')
      process.stdout.write(`  DID NOT RUN THROUGH: ${run.reason ?? ''}\n`);
    for (const t of run.tests.filter(
      (t) => t.verdict === 'fail' || t.verdict === 'unexpected-pass',
    )) {
      process.stdout.write(`  ${t.verdict.toUpperCase()}: ${t.name}\n`);
    }
  }
  for (const row of disagreements(written.run))
    process.stdout.write(`  DISAGREEMENT: ${disagreementLine(row)}\n`);
  process.stdout.write(`  ${written.junit}\n  ${written.json}\n`);
  process.stdout.write(
    written.merged
      ? `  merged into ${dir}/summary.md, matrix.html and results.json\n`
      : `  not merged: ${written.notMerged ?? ''}\n`,
  );
  return upstreamHasProblems(written.run) ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof LabError)) throw error;
  process.stderr.write(
    `error: ${error.message}\n${error.hint === undefined ? '' : `  ${error.hint}\n`}`,
  );
  process.exitCode = error instanceof E2eSettingsError ? 2 : 1;
}
