/**
 * Runs upstream's e2e.test against a lab through ginkgo and judges it: the run's own files go to
 * `<results>/e2e/` (e2e.log, e2e.test's JUnit), the verdicts into an UpstreamRun.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../../lab/exec/command-runner.ts';
import { upstreamTotals, type UpstreamRun } from '../../lab/contracts/upstream-results.ts';
import { e2eCommand } from './e2e-command.ts';
import { e2eTools, type E2eLab } from './e2e-lab.ts';
import { judgeOutcome } from './e2e-outcome.ts';
import { parseGinkgoJunit, type GinkgoCase } from './ginkgo-junit.ts';
import {
  InternetCheckStandIn,
  PRE_CHECK_URL,
  type StandInCounts,
} from './internet-check-stand-in.ts';
import {
  selectionFor,
  type Selection,
  type SelectionRequest,
  type UpstreamCatalogue,
} from './upstream-catalogue.ts';

/** Why an emulated lab gets no upstream run. */
export const EMULATED_REASON =
  'the lab is emulated: there is no Kubernetes API server for e2e.test to test (it runs on kubeadm and existing clusters)';

/** Time ginkgo gets past its own -timeout to report and stop before it is killed. */
const GRACE_MS = 2 * 60_000;

export interface E2eRunOptions {
  runner: CommandRunner;
  lab: E2eLab;
  /** `<results>/e2e`: emptied, then e2e.log and e2e.test's JUnit files. */
  rawDir: string;
  catalogue: UpstreamCatalogue;
  given: SelectionRequest;
  /** Parallel ginkgo nodes. */
  nodes: number;
  timeoutMs: number;
  /** Stops the run (SIGINT, SIGTERM); what finished is still judged. */
  signal?: AbortSignal;
  say: (line: string) => void;
  now?: () => Date;
}

/** What a reader of the results must know of the stand-in. */
export function standInNote(counts: StandInCounts): string {
  const refused =
    counts.refused.length === 0
      ? 'nothing else asked it'
      : `it refused ${counts.refused.length} other request(s): ${counts.refused.slice(0, 3).join(', ')}`;
  return (
    `offline: e2e.test's own Internet pre-check (GET ${PRE_CHECK_URL} from the e2e.test process, not from the cluster; ` +
    `the BeforeEach of [sig-network] Networking) was answered ${counts.answered} time(s) by hybrid-lab's stand-in; ${refused}`
  );
}

/**
 * The specs the run will choose, from e2e.test's dry run (its JUnit marks them passed): what a run
 * stopped before writing its own JUnit still accounts for. Undefined when the dry run fails.
 */
async function planRun(
  runner: CommandRunner,
  e2eTest: string,
  selection: Selection,
  dir: string,
): Promise<GinkgoCase[] | undefined> {
  const result = await runner.run(
    e2eTest,
    [
      '--ginkgo.dryRun',
      '--ginkgo.noColor',
      `--ginkgo.focus=${selection.focus}`,
      `--ginkgo.skip=${selection.skip}`,
      `--report-dir=${dir}`,
      '--report-prefix=dry_',
    ],
    { check: false, timeoutMs: 120_000 },
  );
  const file = join(dir, 'junit_dry_01.xml');
  if (result.exitCode !== 0 || !existsSync(file)) return undefined;
  return parseGinkgoJunit(readFileSync(file, 'utf8'), file);
}

/** The e2e.test log of a run in `rawDir`. */
export const E2E_LOG = 'e2e.log';

export async function runE2e(options: E2eRunOptions): Promise<UpstreamRun> {
  const { lab, rawDir, catalogue } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const selection = selectionFor(catalogue, lab.traits, options.given);
  const base = {
    engine: `e2e.test ${lab.kubernetesVersion}`,
    lab: lab.name,
    focus: selection.focus,
    skip: selection.skip,
    startedAt,
  };
  const empty = { tests: [], totals: upstreamTotals([]) };
  if (lab.emulated) return { ...base, ...empty, status: 'skipped', reason: EMULATED_REASON };
  const tools = e2eTools(lab);
  if ('missing' in tools)
    return { ...base, ...empty, status: 'infra-error', reason: tools.missing };
  rmSync(rawDir, { recursive: true, force: true });
  mkdirSync(rawDir, { recursive: true });
  const log = join(rawDir, E2E_LOG);
  const command = e2eCommand({
    ...tools,
    kubeconfig: lab.kubeconfig!,
    reportDir: rawDir,
    // Without the lab's images the nodes pull upstream's names (an existing cluster online).
    repoList: lab.e2eImages ? tools.repoList : undefined,
    selection,
    nodes: options.nodes,
    timeoutMs: options.timeoutMs,
    dnsDomain: lab.dnsDomain,
    windowsNodes: lab.windowsNodes,
    nodeCount: lab.nodeCount,
  });
  const planned = await planRun(options.runner, tools.e2eTest, selection, join(rawDir, 'dry-run'));
  options.say(
    `e2e.test on ${lab.name}: ${planned === undefined ? 'its' : planned.filter((c) => c.state === 'passed').length} chosen specs, ${options.nodes} ginkgo node(s), log ${log}`,
  );
  await using standIn = await InternetCheckStandIn.start();
  const proc = await options.runner.spawn(command.file, command.args, {
    logFile: log,
    env: { ...command.env, ...standIn.env(lab.networks) },
  });
  let stopped: string | undefined;
  const stop = (why: string) => {
    stopped ??= why;
    void proc.stop();
  };
  const timer = setTimeout(() => {
    stop(`killed after ${options.timeoutMs / 60_000 + GRACE_MS / 60_000} min`);
  }, options.timeoutMs + GRACE_MS);
  const onAbort = () => {
    stop('interrupted');
  };
  options.signal?.addEventListener('abort', onAbort);
  const exited = await proc.exited;
  await standIn.stop();
  clearTimeout(timer);
  const notes = [standInNote(standIn.counts)];
  options.signal?.removeEventListener('abort', onAbort);
  const finishedAt = now().toISOString();
  const outcome = judgeOutcome({
    rawDir,
    output: existsSync(log) ? readFileSync(log, 'utf8') : '',
    planned,
    exitCode: exited.exitCode,
    stopped,
    catalogue,
    selection,
    lab: lab.traits,
  });
  return { ...base, finishedAt, notes, ...outcome, totals: upstreamTotals(outcome.tests) };
}
