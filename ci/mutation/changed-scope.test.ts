import { expect } from 'chai';
import { changedMutate, importClosure, parseDiff } from './changed-scope.ts';

const DIFF = [
  'diff --git a/a.ts b/a.ts',
  '--- a/a.ts',
  '+++ b/a.ts',
  '@@ -3,2 +3,4 @@ function one() {',
  '-old',
  '+new',
  '@@ -20 +22 @@',
  '-x',
  '+y',
  '@@ -30,2 +31,0 @@',
  '-gone',
  '-gone too',
  'diff --git a/fresh.ts b/fresh.ts',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/fresh.ts',
  '@@ -0,0 +1,5 @@',
  '+a',
  'diff --git a/dropped.ts b/dropped.ts',
  '--- a/dropped.ts',
  '+++ /dev/null',
  '@@ -1,3 +0,0 @@',
].join('\n');

describe('the part of a mutation scope a change touched', () => {
  it("reads each hunk's new lines; a cut marks the lines around it; a new file is whole", () => {
    const changed = parseDiff(DIFF);
    expect([...changed.keys()]).to.deep.equal(['a.ts', 'fresh.ts']);
    expect(changed.get('a.ts')).to.deep.equal([
      [3, 6],
      [22, 22],
      [31, 32],
    ]);
    expect(changed.get('fresh.ts')).to.deep.equal([[1, Infinity]]);
  });

  const files: Record<string, string> = {
    'lib/judge.ts': "import { x } from './verdict.ts';\nexport const j = 1;\n",
    'lib/verdict.ts': "import '../text/glob.ts';\n",
    'text/glob.ts': 'export {};\n',
    'lib/judge.test.ts': "import { j } from './judge.ts';\nimport { expect } from 'chai';\n",
    'lib/sweep.mjs': [
      'function helper() {',
      '  a;',
      '}',
      'function counted() {',
      '  b;',
      '  c;',
      '}',
    ].join('\n'),
  };
  const read = (f: string) => files[f];

  it('follows relative imports through the repository, each file once', () => {
    expect([...importClosure('lib/judge.test.ts', read)]).to.have.members([
      'lib/judge.test.ts',
      'lib/judge.ts',
      'lib/verdict.ts',
      'text/glob.ts',
    ]);
  });

  const mutate = [
    'lib/judge.ts',
    { file: 'lib/sweep.mjs', functions: ['counted'] },
    'text/glob.ts',
  ] as const;
  const tests = ['lib/judge.test.ts'];

  it("mutates only the changed lines inside the scope's part of each file", () => {
    const changed = new Map<string, [number, number][]>([
      ['lib/judge.ts', [[2, 2]]],
      // Lines 1-2 are helper (not in the scope), 5-9 straddle counted's end.
      [
        'lib/sweep.mjs',
        [
          [1, 2],
          [5, 9],
        ],
      ],
      ['other.ts', [[1, 3]]],
    ]);
    expect(changedMutate(mutate, tests, changed, read)).to.deep.equal([
      'lib/judge.ts:2-2',
      'lib/sweep.mjs:5-7',
    ]);
  });

  it('a changed test brings every part of the scope it reaches, whole', () => {
    const changed = new Map<string, [number, number][]>([['lib/judge.test.ts', [[1, 1]]]]);
    expect(changedMutate(mutate, tests, changed, read)).to.deep.equal([
      'lib/judge.ts',
      'text/glob.ts',
    ]);
  });

  it('a new file of the scope is mutated whole; an untouched scope gives nothing', () => {
    const fresh = new Map<string, [number, number][]>([['text/glob.ts', [[1, Infinity]]]]);
    expect(changedMutate(mutate, tests, fresh, read)).to.deep.equal(['text/glob.ts']);
    expect(changedMutate(mutate, tests, new Map(), read)).to.deep.equal([]);
  });
});
