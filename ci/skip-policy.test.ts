/** Every test skips through lab/testing/skip.ts, so no skip is silent and CI refuses avoidable ones. */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';

const ALLOWED = new Set([
  'lab/testing/skip.ts', // the one skip
  'specs/engine/matrix-suite.ts', // cells a lab cannot host: JUnit <skipped message="reason">
]);

describe('skip policy', function () {
  it('no test skips by itself (this.skip, it.skip, describe.skip, xit): only through skipTest', function () {
    const files = execFileSync('git', ['ls-files', '*.ts'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && !ALLOWED.has(f) && !f.startsWith('node_modules/'));
    const bare = /\bthis\.skip\(\)|\b(it|describe|context|specify)\.skip\(|\bx(it|describe)\(/;
    const offenders = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (bare.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).to.deep.equal([]);
  });
});
