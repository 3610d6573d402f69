import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, SUITE_COMMAND } from './suite-process.ts';

describe('suite process', () => {
  it('runs the suite exactly as `npm test` does, in one process a signal reaches', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.test).to.equal(`exec ${SUITE_COMMAND.join(' ')}`);
    const config = JSON.parse(
      readFileSync(join(REPO_ROOT, '.mocharc.suite.json'), 'utf8'),
    ) as Record<string, unknown>;
    // A node flag in the config makes mocha re-spawn itself: a SIGTERM would orphan the run.
    expect(config).to.not.have.property('import');
  });
});
