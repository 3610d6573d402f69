import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ResultsFileSchema, type ResultsFile } from '../../lab/contracts/results-file.ts';
import { parse } from 'yaml';
import { planLab, serializePlan } from '../../lab/plan/plan-lab.ts';
import { validateSpec } from '../../lab/spec/load-spec.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { xcount, xpath } from '../testing/xpath.ts';
import { validateJunit } from '../testing/junit-validator.ts';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const FIXTURE = 'specs/testing/matrix-fixture.ts';

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** mocha on the fixture spec (the real engine over a scripted driver) in its own process group. */
function runMocha(
  mode: string,
  resultsDir: string,
  onStdout?: (text: string, pid: number) => void,
  extraArgs: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Child> {
  // In one process, as `npm test` runs it: given a node flag, mocha re-spawns itself and its
  // wrapper turns one SIGINT into SIGINT + SIGTERM, so the run could report either signal.
  const args = [
    '--import',
    'tsx',
    'node_modules/mocha/bin/mocha.js',
    '--no-config',
    '--no-package',
    '--no-color',
    FIXTURE,
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, RESULTS_DIR: resultsDir, FIXTURE_MODE: mode, ...extraEnv },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout?.(stdout, child.pid!);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => {
      done({ code, signal, stdout, stderr });
    });
  });
}

function readResults(dir: string): ResultsFile {
  return ResultsFileSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
}

describe('engine: the matrix suite end to end (real mocha child process, scripted driver)', function () {
  this.timeout(90_000);

  describe('a run with one cell of every verdict', function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-e2e-'));
    let child: Child;
    before(async function () {
      child = await runMocha('verdicts', dir);
    });

    it("keeps mocha's spec output and exit code", function () {
      expect(child.stdout).to.include('hybrid matrix on fixture-lab (netns, EMULATED)');
      expect(child.stdout).to.match(/✔ pod-to-pod linux-to-windows lin1-to-win1 cross-node via ip/);
      expect(child.stdout).to.match(/- outbound-nat windows win1 via ip/);
      expect(child.stdout).to.match(/1 passing[\s\S]*2 pending[\s\S]*3 failing/);
      expect(child.stdout).to.include(`hybrid-lab results: ${join(dir, 'junit_01.xml')}`);
      expect(child.code).to.equal(3);
    });

    it('writes junit_01.xml that validates against the XSD, one testcase per cell', async function () {
      const file = join(dir, 'junit_01.xml');
      expect(await validateJunit(file)).to.deep.equal({ valid: true, file });
      expect(xcount(file, '//testcase')).to.equal(6);
      expect(xpath(file, '//testsuite/@name')).to.equal('hybrid-lab conformance (EMULATED)');
      expect(xpath(file, '//property[@name="lab"]/@value')).to.equal('fixture-lab');
      const tc = (name: string): string => `//testcase[@name="${name} [emulated]"]`;
      expect(
        xpath(
          file,
          `${tc('pod-to-pod windows-to-linux win1-to-lin1 cross-node via ip')}/failure/@type`,
        ),
      ).to.equal('wrong-source-ip');
      expect(xpath(file, `${tc('outbound-nat windows win1 via ip')}/skipped`)).to.match(
        /^expected failure: Windows outbound NAT/,
      );
      expect(
        xpath(file, `${tc('pod-to-pod windows-to-windows cross-node via dns')}/skipped`),
      ).to.equal('needs two windows nodes; the lab has 1 windows node');
      expect(
        xpath(file, `${tc('dns short-name from windows win1 via dns')}/failure/@type`),
      ).to.equal('unexpected-pass');
      expect(
        xpath(file, `${tc('pod-to-service linux-to-linux lin1-to-lin1 via cluster-ip')}/failure`),
      ).to.include('TypeError: probe crashed');
    });

    it('writes results.json with the run info and one result per cell, in matrix order', function () {
      const results = readResults(dir);
      expect(results.run).to.include({
        runId: 'fixture-run-1',
        lab: 'fixture-lab',
        emulated: true,
        profile: 'fixture',
      });
      expect(results.cells.map((c) => c.verdict)).to.deep.equal([
        'pass',
        'fail',
        'expected-failure',
        'skipped',
        'unexpected-pass',
        'fail',
      ]);
      expect(results.totals).to.include({ cells: 6, passed: 1, failed: 2, otherTests: 0 });
    });

    it('writes summary.md and matrix.html, labelled emulated and escaped', function () {
      const md = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(md).to.include('EMULATED dataplane — not a real Windows/Kubernetes network');
      expect(md).to.include('**1 passed** · **2 failed**');
      const html = readFileSync(join(dir, 'matrix.html'), 'utf8');
      expect(html).to.include('<div class="banner banner-emulated">');
      expect(html).not.to.include('<script>');
      expect(html).to.include('&lt;script&gt;');
    });
  });

  it('a lab that cannot be opened is one infrastructure testcase, also when --grep filters it out', async function () {
    for (const args of [[], ['--grep', 'pod-to-pod']]) {
      const dir = mkdtempSync(join(tmpdir(), 'hybrid-open-'));
      const child = await runMocha('open-fails', dir, undefined, args);
      expect(child.code, args.join(' ')).to.equal(1);
      expect(child.stderr).to.include('hybrid-lab: lab fixture-lab is down, not up');
      const results = readResults(dir);
      expect(results.cells.map((c) => [c.cell, c.verdict])).to.deep.equal([
        ['infrastructure/lab-ready', 'infra-error'],
      ]);
      expect(results.cells[0]!.detail).to.include('hint: npm run lab:up');
      expect(await validateJunit(join(dir, 'junit_01.xml'))).to.deep.include({ valid: true });
    }
  });

  it('a lab with a plan that cannot be opened is labelled from its plan: an emulated libvirt lab stays EMULATED', async function () {
    const home = mkdtempSync(join(tmpdir(), 'hybrid-labhome-'));
    const spec = readFileSync(join(REPO, 'lab/presets/libvirt-emulated.yaml'), 'utf8');
    const plan = planLab(validateSpec(parse(spec), 'libvirt-emulated.yaml'));
    new LabStore(home).create(plan.name, spec, serializePlan(plan));
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-open-'));
    const child = await runMocha('open-fails', dir, undefined, [], {
      LAB_HOME: home,
      LAB: plan.name,
    });
    expect(child.code).to.equal(1);
    expect(child.stdout).to.include(`hybrid matrix on ${plan.name} (libvirt, EMULATED)`);
    const results = readResults(dir);
    expect(results.run).to.deep.include({ lab: plan.name, provider: 'libvirt', emulated: true });
    expect(results.run.kubernetesVersion).to.match(/ \(emulated\)$/);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).to.match(/EMULATED/);
    expect(readFileSync(join(dir, 'matrix.html'), 'utf8')).to.match(/EMULATED/);
    const junit = join(dir, 'junit_01.xml');
    expect(xpath(junit, '//property[@name="emulated"]/@value')).to.equal('yes');
  });

  it('a deploy that outlasts DEPLOY_TIMEOUT_MS is the infrastructure failure, and no cell probes after it', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-deploy-'));
    const child = await runMocha('deploy-hangs', dir);
    expect(child.code).to.not.equal(0);
    const results = readResults(dir);
    expect(results.other.map((o) => [o.state, o.message])).to.deep.include([
      'hook-failed',
      'the lab was not ready with the workloads deployed within 1000 ms (DEPLOY_TIMEOUT_MS)',
    ]);
    expect(results.cells.filter((c) => c.verdict !== 'skipped')).to.deep.equal([]);
  });

  it("a deploy past DEPLOY_TIMEOUT_MS but within the images' own bound (the driver's imagePullTimeoutMs) goes on to the cells", async function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-pulls-'));
    const child = await runMocha('deploy-pulls', dir);
    const results = readResults(dir);
    expect(results.other, child.stdout + child.stderr).to.deep.equal([]);
    expect(results.cells.filter((c) => c.verdict !== 'skipped')).to.not.deep.equal([]);
  });

  it('a run whose --grep selects no cell fails and says so', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-empty-'));
    const child = await runMocha('verdicts', dir, undefined, ['--grep', 'no-such-cell']);
    expect(child.code).to.equal(1);
    expect(child.stderr).to.include(
      'no matrix cell ran; a conformance run that tests nothing fails',
    );
    expect(readResults(dir).totals.cells).to.equal(0);
  });

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    it(`writes what it knows when interrupted with ${sig}: results, skips with their reasons, the rest not run`, async function () {
      const dir = mkdtempSync(join(tmpdir(), 'hybrid-sigint-'));
      let signalled = false;
      const child = await runMocha('slow', dir, (text, pid) => {
        if (signalled || !text.includes('FIXTURE-SLOW-CELL-STARTED')) return;
        signalled = true;
        // Like Ctrl-C in a terminal (or a CI runner's kill): the whole process group gets the signal.
        process.kill(-pid, sig);
      });
      expect(signalled, child.stdout + child.stderr).to.equal(true);
      expect(child.signal).to.equal(sig);
      expect(child.stdout).to.include(`hybrid-lab interrupted by ${sig}; partial results`);
      for (const name of ['junit_01.xml', 'summary.md', 'matrix.html', 'results.json']) {
        expect(existsSync(join(dir, name)), name).to.equal(true);
      }
      const results = readResults(dir);
      expect(results.interrupted).to.equal(sig);
      expect(results.cells.map((c) => [c.cell, c.verdict, c.reason ?? ''])).to.deep.equal([
        ['pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip', 'pass', ''],
        [
          'pod-to-pod/windows-to-linux/cross-node/win1/lin1/ip',
          'skipped',
          `not run: run interrupted by ${sig} while it ran`,
        ],
        [
          'pod-to-pod/windows-to-windows/cross-node/none/none/ip',
          'skipped',
          'needs two windows nodes; the lab has 1 windows node',
        ],
        ['outbound-nat/linux/lin1/ip', 'skipped', `not run: run interrupted by ${sig}`],
      ]);
      expect(results.totals.notRun).to.equal(2);
      const junit = join(dir, 'junit_01.xml');
      expect(await validateJunit(junit)).to.deep.include({ valid: true });
      expect(xpath(junit, '//property[@name="interrupted"]/@value')).to.equal(sig);
      expect(xcount(junit, '//testcase/skipped[starts-with(., "not run")]')).to.equal(2);
      expect(readFileSync(join(dir, 'summary.md'), 'utf8')).to.include(`INTERRUPTED by ${sig}`);
    });
  }
});
