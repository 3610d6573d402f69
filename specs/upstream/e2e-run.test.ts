import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { BackgroundProcess, RunResult } from '../../lab/exec/command-runner.ts';
import { RecordingRunner } from '../../lab/testing/recording-runner.ts';
import { E2E_ARTIFACTS } from '../../lab/provision/artifact-catalogue.ts';
import type { E2eLab } from './e2e-lab.ts';
import { FAILED_WITHOUT_JUNIT } from './e2e-outcome.ts';
import { EMULATED_REASON, runE2e, type E2eRunOptions } from './e2e-run.ts';
import { parseUpstreamCatalogue } from './upstream-catalogue.ts';

const CATALOGUE = parseUpstreamCatalogue(
  `
universe: '^\\[sig-network\\]'
focus: [{ pattern: 'Granular', why: paths }]
leftOut: [{ pattern: 'LoadBalancer', reason: no cloud }]
knownLimits: []
crossCheck: []
`,
  'test',
);

/** A cache folder holding the files e2e.test needs (empty stand-ins: nothing runs them here). */
function cache(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hybrid-e2e-cache-'));
  for (const rel of [
    E2E_ARTIFACTS.e2eTest,
    E2E_ARTIFACTS.ginkgo,
    E2E_ARTIFACTS.repoList,
    'kubernetes/v1.20.2/linux/amd64/kubectl',
  ]) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), '');
  }
  return dir;
}

function lab(patch: Partial<E2eLab> = {}): E2eLab {
  return {
    name: 'k35',
    provider: 'netns',
    emulated: false,
    kubeconfig: '/lab/kubeconfig',
    artifactsDir: cache(),
    kubernetesVersion: 'v1.20.2',
    dnsDomain: 'cluster.local',
    windowsNodes: false,
    nodeCount: 3,
    networks: ['192.168.200.0/24'],
    e2eImages: true,
    traits: { clusterDns: 'hl-cluster-dns' },
    ...patch,
  };
}

/** ginkgo as far as the runner can tell: writes what `write` gives into the report dir and log. */
class FakeGinkgo extends RecordingRunner {
  env: Record<string, string | undefined> = {};
  constructor(private readonly write: (reportDir: string, log: string) => number) {
    super();
  }
  override spawn(
    file: string,
    args: readonly string[],
    options: { logFile?: string; env?: Record<string, string | undefined> } = {},
  ): Promise<BackgroundProcess> {
    void super.spawn(file, args);
    this.env = options.env ?? {};
    const reportDir = args
      .find((a) => a.startsWith('--report-dir='))!
      .slice('--report-dir='.length);
    const exitCode = this.write(reportDir, options.logFile!);
    const result: RunResult = {
      command: file,
      exitCode,
      stdout: '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
    };
    return Promise.resolve({
      pid: 1,
      exited: Promise.resolve(result),
      stop: () => Promise.resolve(),
    });
  }
}

function options(runner: RecordingRunner, patch: Partial<E2eRunOptions> = {}): E2eRunOptions {
  return {
    runner,
    lab: lab(),
    rawDir: join(mkdtempSync(join(tmpdir(), 'hybrid-e2e-raw-')), 'e2e'),
    catalogue: CATALOGUE,
    given: {},
    nodes: 2,
    timeoutMs: 60_000,
    say: () => undefined,
    ...patch,
  };
}

const JUNIT = `<testsuite name="Kubernetes e2e suite" tests="2">
<testcase name="[sig-network] Networking Granular Checks: Services should function for pod-Service: http" classname="Kubernetes e2e suite" time="31.5"></testcase>
<testcase name="[sig-network] Networking Granular Checks: Services should function for pod-Service: udp" classname="Kubernetes e2e suite" time="300"><failure type="Failure">utils.go:1&#xA;failed dialing endpoint</failure></testcase>
<testcase name="[sig-network] Services should create a LoadBalancer" classname="Kubernetes e2e suite" time="0"><skipped></skipped></testcase>
</testsuite>`;

describe('e2e run', function () {
  it('on an emulated lab it runs nothing and says why', async function () {
    const runner = new RecordingRunner();
    const run = await runE2e(
      options(runner, { lab: lab({ emulated: true, kubeconfig: undefined }) }),
    );
    expect(run).to.deep.include({ status: 'skipped', reason: EMULATED_REASON, tests: [] });
    expect(runner.calls).to.deep.equal([]);
  });

  it('a cache without e2e.test is an infrastructure error naming what to build', async function () {
    const runner = new RecordingRunner();
    const run = await runE2e(
      options(runner, { lab: lab({ artifactsDir: mkdtempSync(join(tmpdir(), 'empty-')) }) }),
    );
    expect(run.status).to.equal('infra-error');
    expect(run.reason).to.match(
      /lacks .*e2e\.test.*build it with `bash vagrant\/artifacts\/kubernetes\/build\.sh`/,
    );
    expect(runner.calls).to.deep.equal([]);
  });

  it('judges e2e.test`s JUnit files, offline images mapped and the Internet pre-check answered by the stand-in', async function () {
    const runner = new FakeGinkgo((dir, log) => {
      writeFileSync(join(dir, 'junit_e2e_01.xml'), JUNIT);
      writeFileSync(log, 'Ran 2 of 5667 Specs\n');
      return 1;
    });
    const run = await runE2e(options(runner));
    expect(run.status).to.equal('ran');
    expect(run.totals).to.deep.include({ tests: 3, passed: 1, failed: 1, skipped: 1 });
    expect(run.tests.find((t) => t.verdict === 'skipped')?.reason).to.equal('left out: no cloud');
    expect(runner.env.KUBE_TEST_REPO_LIST).to.match(/e2e\/repo-list\.yaml$/);
    expect(runner.env.HTTP_PROXY).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(runner.env.NO_PROXY).to.include('192.168.200.0/24');
    expect(run.notes?.[0]).to.include('answered 0 time(s)');
  });

  it('no JUnit at all is an infrastructure error quoting the end of the log', async function () {
    const runner = new FakeGinkgo((_dir, log) => {
      writeFileSync(log, 'Failure [BeforeSuite]\nUnable to connect to the server\n');
      return 1;
    });
    const run = await runE2e(options(runner));
    expect(run.status).to.equal('infra-error');
    expect(run.reason).to.include(
      'e2e.test wrote no JUnit (ginkgo exit 1): Failure [BeforeSuite] | Unable to connect to the server',
    );
  });

  it('a run that timed out is an infrastructure error, with what finished still judged', async function () {
    const runner = new FakeGinkgo((dir, log) => {
      writeFileSync(join(dir, 'junit_e2e_01.xml'), JUNIT);
      writeFileSync(log, 'panic: test timed out after 30m0s\n');
      return 2;
    });
    const run = await runE2e(options(runner));
    expect(run).to.deep.include({
      status: 'infra-error',
      reason: 'e2e.test did not finish: test timed out after 30m0s',
    });
    expect(run.totals.passed).to.equal(1);
  });

  it('a run ginkgo stopped before any JUnit still reports what finished, and what never did', async function () {
    const spec = (what: string) =>
      `[sig-network] Networking Granular Checks: Services should function for ${what}`;
    const runner = new FakeGinkgo((_dir, log) => {
      writeFileSync(
        log,
        [
          `{"msg":"PASSED ${spec('pod-Service: http')}","total":-1}`,
          `[2] {"msg":"FAILED ${spec('pod-Service: udp')}","total":-1}`,
          '|  Ginkgo timed out waiting for all parallel nodes to report back!  |',
        ].join('\n'),
      );
      return 1;
    });
    // The dry run: e2e.test's JUnit lists the specs it would choose as passed.
    runner.on(/--ginkgo\.dryRun/, (call) => {
      const dir = call.args
        .find((a) => a.startsWith('--report-dir='))!
        .slice('--report-dir='.length);
      mkdirSync(dir, { recursive: true });
      const cases = ['pod-Service: http', 'pod-Service: udp', 'node-Service: http']
        .map((w) => `<testcase name="${spec(w)}" classname="x" time="0"></testcase>`)
        .concat(
          '<testcase name="[sig-network] Services should create a LoadBalancer" classname="x" time="0"><skipped></skipped></testcase>',
        );
      writeFileSync(join(dir, 'junit_dry_01.xml'), `<testsuite>${cases.join('')}</testsuite>`);
      return { exitCode: 0 };
    });
    const run = await runE2e(options(runner));
    expect(run.status).to.equal('infra-error');
    expect(run.reason).to.equal(
      'e2e.test wrote no JUnit (ginkgo exit 1, ginkgo timed out (its -timeout) waiting for its parallel nodes): the verdicts of the 2 specs that finished come from its progress lines; 1 never finished',
    );
    expect(
      run.tests.map((t) => [t.name, t.verdict, t.selected, t.reason ?? t.message]),
    ).to.deep.equal([
      [
        spec('node-Service: http'),
        'skipped',
        true,
        'not run: e2e.test stopped before it finished (ginkgo timed out (its -timeout) waiting for its parallel nodes)',
      ],
      [spec('pod-Service: http'), 'pass', true, undefined],
      [spec('pod-Service: udp'), 'fail', true, FAILED_WITHOUT_JUNIT],
      [
        '[sig-network] Services should create a LoadBalancer',
        'skipped',
        false,
        'left out: no cloud',
      ],
    ]);
  });

  it('existing clusters without the lab`s images keep upstream`s image names', async function () {
    const runner = new FakeGinkgo((dir) => {
      writeFileSync(join(dir, 'junit_e2e_01.xml'), JUNIT);
      return 0;
    });
    await runE2e(options(runner, { lab: lab({ e2eImages: false }) }));
    expect(runner.env.KUBE_TEST_REPO_LIST).to.equal(undefined);
  });
});
