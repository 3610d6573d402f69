import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { CellResult, RunInfo } from '../engine/results.ts';
import { xcount, xpath } from './fixtures/xpath.ts';
import { validateJunit } from './junit-validator.ts';
import type { Totals } from './report-model.ts';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const REPORTER = './specs/report/hybrid-reporter.ts';

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `npx mocha --import=tsx --reporter ./specs/report/hybrid-reporter.ts FIXTURE` in its own process group. */
function runMocha(
  fixture: string,
  resultsDir: string,
  onStdout?: (text: string, pid: number) => void,
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
    '--reporter',
    REPORTER,
    fixture,
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, RESULTS_DIR: resultsDir },
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

interface ResultsJson {
  run: RunInfo;
  cells: CellResult[];
  totals: Totals;
  interrupted?: string;
}

function readResults(dir: string): ResultsJson {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ResultsJson;
}

describe('report: hybrid-reporter end to end (real mocha child process)', function () {
  this.timeout(90_000);

  describe('a run with one cell of every verdict', function () {
    const dir = mkdtempSync(join(tmpdir(), 'hybrid-e2e-'));
    let child: Child;
    before(async function () {
      child = await runMocha('specs/report/fixtures/cells-fixture.ts', dir);
    });

    it("keeps mocha's spec output and exit code", function () {
      expect(child.stdout).to.include('fixture matrix');
      expect(child.stdout).to.match(/✔ pod-to-pod linux-to-windows cross-node ip/);
      expect(child.stdout).to.match(/- outbound-nat windows win1 ip/);
      expect(child.stdout).to.match(/2 passing[\s\S]*2 pending[\s\S]*4 failing/);
      expect(child.stdout).to.include(`hybrid-lab results: ${join(dir, 'junit_01.xml')}`);
      expect(child.code).to.equal(4);
    });

    it('writes junit_01.xml that validates against the XSD, one testcase per test', async function () {
      const file = join(dir, 'junit_01.xml');
      expect(await validateJunit(file)).to.deep.equal({ valid: true, file });
      expect(xcount(file, '//testcase')).to.equal(8);
      expect(xpath(file, '//testsuite/@name')).to.equal('hybrid-lab conformance (EMULATED)');
      expect(xpath(file, '//property[@name="lab"]/@value')).to.equal('fixture-lab');
      const tc = (name: string): string => `//testcase[@name="${name} [emulated]"]`;
      expect(
        xpath(file, `${tc('pod-to-pod windows-to-linux cross-node ip')}/failure/@type`),
      ).to.equal('wrong-source-ip');
      expect(xpath(file, `${tc('outbound-nat windows win1 ip')}/skipped/@message`)).to.match(
        /^expected failure: Windows outbound NAT/,
      );
      expect(
        xpath(file, `${tc('pod-to-pod windows-to-windows same-node dns')}/skipped/@message`),
      ).to.equal('needs two windows nodes');
      expect(xpath(file, `${tc('dns short-name windows dns')}/failure/@type`)).to.equal(
        'unexpected-pass',
      );
      expect(xpath(file, `${tc('infrastructure lab-ready')}/@classname`)).to.equal(
        'infrastructure',
      );
      expect(xpath(file, `${tc('infrastructure lab-ready')}/error/@type`)).to.equal('infra-error');
      expect(xpath(file, `${tc('pod-to-service linux-to-linux cluster-ip')}/failure`)).to.include(
        'TypeError: probe crashed',
      );
      expect(xpath(file, '//testcase[@name="plain mocha test passes"]/@classname')).to.equal(
        'fixture matrix plain',
      );
    });

    it('writes results.json with the run info the engine published', function () {
      const results = readResults(dir);
      expect(results.run).to.include({
        runId: 'fixture-run-1',
        lab: 'fixture-lab',
        emulated: true,
      });
      expect(results.cells.map((c) => c.verdict)).to.deep.equal([
        'pass',
        'fail',
        'expected-failure',
        'skipped',
        'unexpected-pass',
        'infra-error',
        'fail',
      ]);
      expect(results.totals).to.include({ cells: 7, passed: 1, failed: 2, otherTests: 1 });
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

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    it(`writes what it knows when interrupted with ${sig}, marking the rest not run`, async function () {
      const dir = mkdtempSync(join(tmpdir(), 'hybrid-sigint-'));
      let signalled = false;
      const child = await runMocha('specs/report/fixtures/slow-fixture.ts', dir, (text, pid) => {
        if (signalled || !text.includes('FIXTURE-SLOW-CELL-STARTED')) return;
        signalled = true;
        // Like Ctrl-C in a terminal (or a CI runner's kill): the whole process group gets the signal.
        process.kill(-pid, sig);
      });
      expect(signalled, child.stdout + child.stderr).to.equal(true);
      expect(child.stdout).to.include(`hybrid-lab interrupted by ${sig}; partial results`);
      for (const name of ['junit_01.xml', 'summary.md', 'matrix.html', 'results.json']) {
        expect(existsSync(join(dir, name)), name).to.equal(true);
      }
      const results = readResults(dir);
      expect(results.interrupted).to.equal(sig);
      expect(results.cells.map((c) => [c.verdict, c.detail])).to.deep.equal([
        ['pass', 'fine'],
        ['skipped', `not run: run interrupted by ${sig} while it ran`],
        ['skipped', `not run: run interrupted by ${sig}`],
        ['skipped', `not run: run interrupted by ${sig}`],
      ]);
      const junit = join(dir, 'junit_01.xml');
      expect(await validateJunit(junit)).to.deep.include({ valid: true });
      expect(xpath(junit, '//property[@name="interrupted"]/@value')).to.equal(sig);
      expect(xcount(junit, '//testcase/skipped[starts-with(@message, "not run")]')).to.equal(3);
      expect(readFileSync(join(dir, 'summary.md'), 'utf8')).to.include(`INTERRUPTED by ${sig}`);
    });
  }
});
