import { expect } from 'chai';
import type { MutationReport } from './mutation-report.ts';
import { scoresByFolder, textAt, undetectedMutants } from './mutation-report.ts';
import { compareEquivalents, linesOf, parseEquivalents, type Equivalent } from './equivalents.ts';

const at = (line: number, start: number, end: number) => ({
  start: { line, column: start },
  end: { line, column: end },
});

/** Two files in two folders: a.ts has every status once, b.ts one survivor and one killed. */
const REPORT: MutationReport = {
  files: {
    'specs/engine/a.ts': {
      source: 'const x = a === b;\nreturn x;\n',
      mutants: [
        {
          id: '1',
          mutatorName: 'EqualityOperator',
          replacement: 'a !== b',
          status: 'Killed',
          location: at(1, 11, 18),
        },
        {
          id: '2',
          mutatorName: 'ConditionalExpression',
          replacement: 'true',
          status: 'Survived',
          location: at(1, 11, 18),
        },
        {
          id: '3',
          mutatorName: 'ConditionalExpression',
          replacement: 'false',
          status: 'Timeout',
          location: at(1, 11, 18),
        },
        {
          id: '4',
          mutatorName: 'BlockStatement',
          replacement: '{}',
          status: 'NoCoverage',
          location: at(2, 1, 10),
        },
        {
          id: '5',
          mutatorName: 'StringLiteral',
          replacement: '""',
          status: 'CompileError',
          location: at(2, 1, 10),
        },
        {
          id: '6',
          mutatorName: 'StringLiteral',
          replacement: '""',
          status: 'Ignored',
          location: at(2, 1, 10),
        },
      ],
    },
    'lab/text/b.ts': {
      source: "split('**')\n",
      mutants: [
        {
          id: '7',
          mutatorName: 'StringLiteral',
          replacement: '""',
          status: 'Survived',
          location: at(1, 7, 11),
        },
        {
          id: '8',
          mutatorName: 'StringLiteral',
          replacement: '"x"',
          status: 'Killed',
          location: at(1, 7, 11),
        },
      ],
    },
  },
};

describe('mutation report', () => {
  it('cuts the replaced text by 1-based positions, end exclusive, across lines', () => {
    expect(textAt('abc\ndef\n', { line: 1, column: 2 }, { line: 1, column: 3 })).to.equal('b');
    expect(textAt('abc\ndef\n', { line: 1, column: 3 }, { line: 2, column: 3 })).to.equal('c\nde');
  });

  it('scores each folder as Stryker does: killed and timed out over all but excluded mutants', () => {
    expect(scoresByFolder(REPORT)).to.deep.equal([
      { folder: 'lab/text', detected: 1, undetected: 1, excluded: 0, score: 50 },
      { folder: 'specs/engine', detected: 2, undetected: 2, excluded: 2, score: 50 },
      { folder: 'all', detected: 3, undetected: 3, excluded: 2, score: 50 },
    ]);
  });

  it('lists survivors and uncovered mutants with the text they replaced, by file and line', () => {
    expect(undetectedMutants(REPORT)).to.deep.equal([
      {
        file: 'lab/text/b.ts',
        line: 1,
        mutator: 'StringLiteral',
        original: "'**'",
        replacement: '""',
        status: 'Survived',
      },
      {
        file: 'specs/engine/a.ts',
        line: 1,
        mutator: 'ConditionalExpression',
        original: 'a === b',
        replacement: 'true',
        status: 'Survived',
      },
      {
        file: 'specs/engine/a.ts',
        line: 2,
        mutator: 'BlockStatement',
        original: 'return x;',
        replacement: '{}',
        status: 'NoCoverage',
      },
    ]);
  });
});

describe('equivalent mutants', () => {
  const undetected = undetectedMutants(REPORT);
  const entry: Equivalent = {
    file: 'specs/engine/a.ts',
    mutator: 'ConditionalExpression',
    original: 'a === b',
    replacement: 'true',
    reason: 'a and b are always equal here',
  };
  const reported = new Set(Object.keys(REPORT.files));

  it('a survivor the list explains passes; one it does not is unlisted', () => {
    const { unlisted, stale } = compareEquivalents(undetected, [entry], reported);
    expect(unlisted.map((u) => `${u.file}:${u.line}`)).to.deep.equal([
      'lab/text/b.ts:1',
      'specs/engine/a.ts:2',
    ]);
    expect(stale).to.deep.equal([]);
  });

  it('an entry must match file, mutator, original and replacement exactly', () => {
    for (const change of [
      { file: 'specs/engine/b.ts' },
      { mutator: 'EqualityOperator' },
      { original: 'a == b' },
      { replacement: 'false' },
    ]) {
      const { unlisted, stale } = compareEquivalents(
        undetected,
        [{ ...entry, ...change }],
        reported,
      );
      expect(unlisted, JSON.stringify(change)).to.have.length(3);
      expect(stale, JSON.stringify(change)).to.have.length(change.file === undefined ? 1 : 0);
    }
  });

  it('an entry with a line matches the mutant on that line only', () => {
    const onLine = (line: number) => compareEquivalents(undetected, [{ ...entry, line }], reported);
    expect(onLine(1)).to.deep.equal({
      unlisted: undetected.filter((u) => u !== undetected[1]),
      stale: [],
    });
    expect(onLine(2).unlisted).to.have.length(3);
    expect(onLine(2).stale).to.deep.equal([{ ...entry, line: 2 }]);
  });

  it('finds the lines a text starts on, a text over several lines by its first', () => {
    const source = 'a === b;\nif (a === b) {\n  x(a ===\n b);\n}\n';
    expect(linesOf(source, 'a === b')).to.deep.equal([1, 2]);
    expect(linesOf(source, 'a ===\n b')).to.deep.equal([3]);
    expect(linesOf(source, 'a !== b')).to.deep.equal([]);
    expect(linesOf('xxx', 'xx'), 'overlapping').to.deep.equal([1, 1]);
  });

  it('an uncovered mutant is never equivalent: no test ran it', () => {
    const uncovered = {
      ...entry,
      mutator: 'BlockStatement',
      original: 'return x;',
      replacement: '{}',
    };
    const { unlisted, stale } = compareEquivalents(undetected, [uncovered], reported);
    expect(unlisted.map((u) => u.status)).to.include('NoCoverage');
    expect(stale).to.deep.equal([uncovered]);
  });

  it('an entry of a file this run reported that matches no survivor is stale; other files are not judged', () => {
    const killed = { ...entry, mutator: 'EqualityOperator', replacement: 'a !== b' };
    expect(compareEquivalents(undetected, [killed], reported).stale).to.deep.equal([killed]);
    expect(
      compareEquivalents(undetected, [killed], new Set(['lab/text/b.ts'])).stale,
    ).to.deep.equal([]);
  });

  it('rejects a malformed list naming the field', () => {
    const bad = (text: string) => () => parseEquivalents(text, 'stryker-equivalent.json');
    expect(bad('{')).to.throw(/stryker-equivalent\.json: not JSON/);
    expect(bad('{"equivalent":[{"file":"a.ts"}]}')).to.throw(/equivalent\[0\]\.mutator: required/);
    expect(bad(JSON.stringify({ equivalent: [{ ...entry, reason: 'short' }] }))).to.throw(
      /equivalent\[0\]\.reason/,
    );
    expect(
      bad(JSON.stringify({ equivalent: [{ ...entry, reason: 'one\ntwo lines here' }] })),
    ).to.throw(/equivalent\[0\]\.reason: one line/);
    expect(bad(JSON.stringify({ equivalent: [{ ...entry, column: 3 }] }))).to.throw(
      /equivalent\[0\]/,
    );
    expect(bad(JSON.stringify({ equivalent: [{ ...entry, line: 0 }] }))).to.throw(
      /equivalent\[0\]\.line/,
    );
  });
});
