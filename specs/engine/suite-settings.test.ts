import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ResultsFileSchema } from '../../lab/contracts/results-file.ts';
import { SettingError } from '../model/settings.ts';
import { budgetSettings, suiteSettings } from './suite-settings.ts';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Each setting the suite reads with a bad value, and what its message must say. */
const BAD: { env?: Record<string, string>; argv?: string[]; says: RegExp }[] = [
  {
    env: { PROFILE: 'bogus' },
    says: /^PROFILE: unknown profile "bogus" \(PROFILE=strict\|known-limitations\)/,
  },
  { env: { CONCURRENCY: 'abc' }, says: /^CONCURRENCY must be a positive integer, got "abc"/ },
  { env: { CONCURRENCY: '0' }, says: /^CONCURRENCY must be a positive integer, got "0"/ },
  { env: { PROBE_TIMEOUT_MS: '-1' }, says: /^PROBE_TIMEOUT_MS must be a positive integer/ },
  { env: { DEPLOY_TIMEOUT_MS: '1.5' }, says: /^DEPLOY_TIMEOUT_MS must be a positive integer/ },
  { argv: ['--grep', '(unclosed'], says: /^--grep: / },
  { env: { EXTERNAL_ECHO_PORT: 'x' }, says: /^EXTERNAL_ECHO_PORT must be a port number/ },
  { env: { HYBRID_KEEP_RUN_NAMESPACE: 'yes' }, says: /^HYBRID_KEEP_RUN_NAMESPACE must be 1 or 0/ },
  { env: { CLEANUP_TIMEOUT_MS: 'soon' }, says: /^CLEANUP_TIMEOUT_MS must be a positive integer/ },
  { env: { AGNHOST_IMAGE: 'Not An Image' }, says: /^AGNHOST_IMAGE must look like / },
];

/** More bad values, checked in-process only (the child-process run above covers the mechanism). */
const BAD_IN_PROCESS: typeof BAD = [
  { env: { SUITE: 'bench' }, says: /^SUITE must be one of matrix, perf, got 'bench'$/ },
  { env: { SLOW: 'ignore' }, says: /^SLOW must be one of fail, warn, got 'ignore'$/ },
  { env: { FLAKY: 'retry' }, says: /^FLAKY must be one of fail, warn, got 'retry'$/ },
  { env: { SLOW_RATIO: '1' }, says: /^SLOW_RATIO must be a number above 1, got "1"$/ },
  { env: { SLOW_FLOOR_MS: '0' }, says: /^SLOW_FLOOR_MS must be a number above 0, got "0"$/ },
  { env: { PERF_LOSS: '1e3' }, says: /^PERF_LOSS must be a number above 0, got "1e3"$/ },
];

describe('suite settings: a bad value names its setting', function () {
  for (const { env = {}, argv = [], says } of [...BAD, ...BAD_IN_PROCESS]) {
    const what = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv].join(' ');
    it(`${what}: SettingError`, function () {
      expect(() => suiteSettings(env, ['node', 'mocha', ...argv]))
        .to.throw(SettingError)
        .with.property('message')
        .that.matches(says);
    });
  }

  it('good values and defaults pass', function () {
    const settings = suiteSettings({ CONCURRENCY: '3', PROFILE: 'known-limitations' }, [
      '--serial',
    ]);
    expect(settings).to.deep.include({ concurrency: 1, timeoutMs: 3000, deployTimeoutMs: 300_000 });
    expect(settings.profile.name).to.equal('known-limitations');
  });

  it('empty variables mean their defaults, like unset ones', function () {
    const settings = suiteSettings(
      { PROFILE: '', SUITE: '', EVIDENCE: '', SLOW: '', SLOW_CONFIRMATIONS: '', SLOW_RATIO: '' },
      [],
    );
    expect(settings.profile.name).to.equal('strict');
    expect(settings.suite).to.equal('matrix');
    expect(settings.evidence).to.deep.equal({ cells: 'failed', maxCells: 10, asked: false });
    expect(settings.budget).to.deep.include({ slow: 'fail', confirmations: 3, ratio: 5 });
  });

  it('each setting reaches its own field', function () {
    const settings = suiteSettings(
      {
        DEPLOY_TIMEOUT_MS: '1000',
        PERF_DURATION_MS: '500',
        PERF_UDP_MBPS: '7',
        EVIDENCE: 'all',
        EVIDENCE_MAX_CELLS: '4',
        CONCURRENCY: '5',
      },
      [],
    );
    expect(settings).to.deep.include({
      concurrency: 5,
      deployTimeoutMs: 1000,
      perf: { durationMs: 500, udpMbps: 7 },
      evidence: { cells: 'all', maxCells: 4, asked: true },
    });
  });

  it('the matrix covers the full mesh; perf mode a ring, one measure at a time', function () {
    const matrix = suiteSettings({ CONCURRENCY: '4' }, []);
    expect([matrix.suite, matrix.concurrency, matrix.mesh.mode]).to.deep.equal([
      'matrix',
      4,
      'full',
    ]);
    const perf = suiteSettings({ SUITE: 'perf', CONCURRENCY: '4' }, []);
    expect([perf.suite, perf.concurrency, perf.mesh.mode, perf.budget.flaky]).to.deep.equal([
      'perf',
      1,
      'ring',
      'fail',
    ]);
  });

  it('the run id is the UTC day and six hex digits', function () {
    expect(suiteSettings({}, []).runId).to.match(/^20[0-9]{6}-[0-9a-f]{6}$/);
  });

  it('a bad profile or --grep keeps the underlying error as its cause', function () {
    for (const [env, argv] of [
      [{ PROFILE: 'bogus' }, []],
      [{}, ['--grep', '(unclosed']],
    ] as const) {
      let thrown: unknown;
      try {
        suiteSettings(env, argv);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(SettingError);
      expect((thrown as SettingError).cause).to.be.instanceOf(Error);
    }
  });

  describe('the budget', function () {
    it('takes each of its variables, and SLOW_CONFIRMATIONS=0 turns confirmation off', function () {
      const budget = budgetSettings(
        {
          SLOW_RATIO: '2.5',
          SLOW_FLOOR_MS: '40',
          SLOW_CONFIRMATIONS: '0',
          SLOW: 'warn',
          FLAKY: 'fail',
          PERF_RATIO: '20',
          PERF_TOLERANCE: '0.25',
          PERF_LOSS: '0.01',
        },
        { slow: 'fail' },
      );
      expect(budget).to.deep.equal({
        ratio: 2.5,
        floorMs: 40,
        minPeers: 3,
        slow: 'warn',
        flaky: 'fail',
        confirmations: 0,
        flakyFraction: 0.05,
        perf: { ratio: 20, tolerance: 0.25, loss: 0.01, minPeers: 2 },
      });
    });

    it("defaults: the profile's slow policy, flaky warns on the matrix and fails in perf mode", function () {
      const matrix = budgetSettings({ SLOW_CONFIRMATIONS: '4' }, { slow: 'warn' });
      expect(matrix).to.deep.include({ slow: 'warn', flaky: 'warn', confirmations: 4 });
      expect(budgetSettings({}, {}, 'perf')).to.deep.include({ slow: 'fail', flaky: 'fail' });
    });

    for (const good of ['7', '12', '0.5', '2.25']) {
      it(`SLOW_FLOOR_MS=${good} is a number`, function () {
        expect(budgetSettings({ SLOW_FLOOR_MS: good }, {}).floorMs).to.equal(Number(good));
      });
    }

    for (const bad of ['+2', '2 ', '1e3', '-2', '0', '3.', '.5', 'x']) {
      it(`SLOW_FLOOR_MS=${JSON.stringify(bad)} names the variable, the bound and the default`, function () {
        expect(() => budgetSettings({ SLOW_FLOOR_MS: bad }, {}))
          .to.throw(SettingError, `SLOW_FLOOR_MS must be a number above 0, got "${bad}"`)
          .with.property('hint', 'unset SLOW_FLOOR_MS for the default (100)');
      });
    }

    it('SLOW_RATIO must be above 1: 1 is not, 1.5 is', function () {
      expect(() => budgetSettings({ SLOW_RATIO: '1' }, {})).to.throw(SettingError);
      expect(budgetSettings({ SLOW_RATIO: '1.5' }, {}).ratio).to.equal(1.5);
    });
  });

  describe('`npm test` with a bad setting (the real spec file, in a child process)', function () {
    this.timeout(60_000);
    for (const { env = {}, argv = [], says } of BAD.filter((b) => b.env !== undefined)) {
      const what = Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      it(`${what}: its own message, one infrastructure testcase, exit 1`, function () {
        const dir = mkdtempSync(join(tmpdir(), 'hl-settings-'));
        const run = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            'node_modules/mocha/bin/mocha.js',
            '--config',
            '.mocharc.suite.json',
            ...argv,
          ],
          {
            cwd: REPO,
            env: {
              ...process.env,
              ...env,
              RESULTS_DIR: dir,
              LAB_HOME: join(dir, 'labs'),
              CI: 'true',
            },
            encoding: 'utf8',
          },
        );
        expect(run.status).to.equal(1);
        expect(run.stderr).to.match(new RegExp(`hybrid-lab: ${says.source.slice(1)}`));
        expect(run.stdout + run.stderr).to.not.match(/Top-level await|cjs/);
        const results = ResultsFileSchema.parse(
          JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')),
        );
        expect(results.cells.map((c) => [c.cell, c.verdict])).to.deep.equal([
          ['infrastructure/lab-ready', 'infra-error'],
        ]);
        expect(results.cells[0]!.detail).to.match(says);
        expect(readFileSync(join(dir, 'junit_01.xml'), 'utf8')).to.match(/infrastructure/);
      });
    }
  });
});
