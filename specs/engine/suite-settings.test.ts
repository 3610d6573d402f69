import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ResultsFileSchema } from '../../lab/contracts/results-file.ts';
import { SettingError } from '../model/settings.ts';
import { suiteSettings } from './suite-settings.ts';

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

describe('suite settings: a bad value names its setting', function () {
  for (const { env = {}, argv = [], says } of BAD) {
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
