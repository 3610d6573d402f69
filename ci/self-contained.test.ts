// The repository explains itself: no file of it points at documents kept outside it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What a reference to the design notes or style guide outside the repository looks like. */
const OUTSIDE = [/\bDESIGN\s*(?:§|\.md\b)/, /\bSTYLE\.md\b/, /\.\.\/shared\//];

describe('the repository explains itself', () => {
  it('no tracked file cites a document outside the repository', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(ts|mjs|js|sh|md|ya?ml|json|ps1|rb|txt)$|Vagrantfile$|^\.ci\/run$/.test(f));
    const found = files.flatMap((file) =>
      readFileSync(`${ROOT}${file}`, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          OUTSIDE.some((p) => p.test(line)) && file !== 'ci/self-contained.test.ts'
            ? [`${file}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).to.deep.equal([]);
  });
});
