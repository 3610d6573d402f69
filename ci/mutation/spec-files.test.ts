import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { specFiles } from './spec-files.ts';

describe('mutation test files', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'hl-spec-files-'));
    for (const f of [
      'a/x.test.ts',
      'a/y.test.ts',
      'a/b/z.test.ts',
      'a/x.ts',
      'node_modules/m/a.test.ts',
      '.git/a.test.ts',
    ]) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '');
    }
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('matches `*` within a folder, `**` across, minus the ignored, sorted, as absolute paths', () => {
    expect(specFiles(root, ['a/*.test.ts'], [])).to.deep.equal([
      join(root, 'a/x.test.ts'),
      join(root, 'a/y.test.ts'),
    ]);
    expect(specFiles(root, ['a/**.test.ts'], ['a/y.test.ts'])).to.deep.equal([
      join(root, 'a/b/z.test.ts'),
      join(root, 'a/x.test.ts'),
    ]);
  });

  it('never looks into node_modules or dot folders', () => {
    expect(specFiles(root, ['**.test.ts'], [])).to.have.length(3);
  });
});
