/**
 * Runs upstream's e2e.test against a lab through ginkgo and judges it: the run's own files go to
 * `<results>/e2e/` (e2e.log, e2e.test's JUnit), the verdicts into an UpstreamRun.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../../lab/exec/command-runner.ts';
import { upstreamTotals, type UpstreamRun } from '../../lab/contracts/upstream-results.ts';
import { e2eCommand, RAW_JUNIT_PREFIX } from './e2e-command.ts';
import { e2eTools, type E2eLab } from './e2e-lab.ts';
import { mergeGinkgoCases, parseGinkgoJunit } from './ginkgo-junit.ts';
import { ginkgoSkipReasons } from './ginkgo-skips.ts';
import {
  InternetCheckStandIn,
  PRE_CHECK_URL,
  type StandInCounts,
} from './internet-check-stand-in.ts';
import {
  selectionFor,
  type SelectionRequest,
  type UpstreamCatalogue,
} from './upstream-catalogue.ts';
import { judgeUpstream } from './upstream-verdicts.ts';

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
  options.say(`e2e.test on ${lab.name}: ${options.nodes} ginkgo node(s), log ${log}`);
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
  const output = existsSync(log) ? readFileSync(log, 'utf8') : '';
  const files = readdirSync(rawDir).filter((f) =>
    new RegExp(`^junit_${RAW_JUNIT_PREFIX}\\d+\\.xml$`).test(f),
  );
  if (files.length === 0) {
    const tail = output.trim().split('\n').slice(-8).join(' | ');
    return {
      ...base,
      ...empty,
      finishedAt,
      status: 'infra-error',
      notes,
      reason: `e2e.test wrote no JUnit (ginkgo exit ${exited.exitCode}${stopped === undefined ? '' : `, ${stopped}`}): ${tail}`,
    };
  }
  const cases = mergeGinkgoCases(
    files.map((f) => parseGinkgoJunit(readFileSync(join(rawDir, f), 'utf8'), f)),
  );
  const tests = judgeUpstream({
    cases,
    skipReasons: ginkgoSkipReasons(output),
    catalogue,
    selection,
    lab: lab.traits,
  });
  // ginkgo's -timeout reaches e2e.test as -test.timeout, which panics when it expires.
  const broken =
    stopped ?? /^panic: test timed out after \S+/m.exec(output)?.[0].replace(/^panic: /, '');
  return {
    ...base,
    finishedAt,
    status: broken === undefined ? 'ran' : 'infra-error',
    notes,
    ...(broken === undefined ? {} : { reason: `e2e.test did not finish: ${broken}` }),
    tests,
    totals: upstreamTotals(tests),
  };
}
