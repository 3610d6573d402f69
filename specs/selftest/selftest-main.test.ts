import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

describe('npm run selftest: its command line', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-selftest-cli-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const selftest = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'specs/selftest/selftest-main.ts', ...args], {
      encoding: 'utf8',
      env: { ...process.env, LAB_HOME: join(dir, '.lab'), RESULTS_DIR: join(dir, 'results') },
    });

  for (const [args, error] of [
    [['--help'], "error: Unknown option '--help'"],
    [['--lab'], "error: Option '--lab <value>' argument missing"],
    [['stray'], "error: Unexpected argument 'stray'"],
  ] as const) {
    it(`${args.join(' ')}: one error line, the usage, exit 1, nothing written`, () => {
      const run = selftest(...args);
      expect(run.status).to.equal(1);
      const lines = run.stderr.split('\n');
      expect(lines[0]).to.match(new RegExp(`^${error.replace(/[[\]()'<>-]/g, '\\$&')}`));
      expect(lines[1]).to.match(
        /^hint: usage: npm run selftest -- \[--lab NAME\] .*\[--witness KIND,\.\.\.\] \[--slice\]$/,
      );
      expect(readdirSync(dir)).to.deep.equal([]);
    });
  }
});
