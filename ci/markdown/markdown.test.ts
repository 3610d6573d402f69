import { expect } from 'chai';
import { brokenLinks, type Repository } from './links.ts';
import { anchors, fenced, links, slug, tableCells, tables } from './markdown.ts';

const PAGE = [
  '# Title',
  '',
  'See [the suite](suite.md#endpoint-churn), `[not](a-link.md)` and ![a picture](matrix.png).',
  '',
  '```sh',
  'echo "[not](a-link-either.md)"',
  '```',
  '',
  '- a list item with a block:',
  '',
  '  ```yaml',
  '  name: x',
  '  ```',
  '',
  '| command | what |',
  '| --- | --- |',
  '| `a \\| b` | one |',
  '| `c` | two |',
  '',
  '## Title',
  '',
  '## `ci/periodic.sh`: the job, 1.20.2',
].join('\n');

describe('markdown', function () {
  it('finds fenced blocks by language, also indented ones, with their opening line', function () {
    expect(fenced(PAGE, 'sh')).to.deep.equal([
      { lang: 'sh', line: 5, body: 'echo "[not](a-link-either.md)"' },
    ]);
    expect(fenced(PAGE, 'yaml')).to.deep.equal([{ lang: 'yaml', line: 11, body: '  name: x' }]);
  });

  it('reads links in the prose only: not in code spans, not in fenced blocks', function () {
    expect(links(PAGE)).to.deep.equal([
      { line: 3, target: 'suite.md#endpoint-churn' },
      { line: 3, target: 'matrix.png' },
    ]);
  });

  it('reads tables, keeping an escaped bar inside its cell', function () {
    expect(tableCells('| `a \\| b` | one |')).to.deep.equal(['`a \\| b`', 'one']);
    expect(tables(PAGE)).to.deep.equal([
      {
        line: 15,
        header: ['command', 'what'],
        rows: [
          ['`a \\| b`', 'one'],
          ['`c`', 'two'],
        ],
      },
    ]);
  });

  it("makes GitHub's anchors: lower case, punctuation dropped, each space a dash", function () {
    expect(slug('Real Kubernetes 1.20.2 on namespace nodes')).to.equal(
      'real-kubernetes-1202-on-namespace-nodes',
    );
    expect(slug('Titles and --grep')).to.equal('titles-and---grep');
    expect(slug('When a cell fails: path evidence')).to.equal('when-a-cell-fails-path-evidence');
    expect(slug('[The suite](suite.md) rows')).to.equal('the-suite-rows');
  });

  it('numbers repeated headings as GitHub does', function () {
    expect([...anchors(PAGE)]).to.deep.equal(['title', 'title-1', 'ciperiodicsh-the-job-1202']);
  });
});

describe('relative links', function () {
  const repo = (pages: Record<string, string>, others: string[] = []): Repository => ({
    files: new Set([...Object.keys(pages), ...others]),
    read: (path) => pages[path] ?? '',
  });

  it('resolve against the page, to files, folders and headings', function () {
    const r = repo(
      {
        'docs/a.md':
          '[b](b.md#two) [self](#one) [up](../ci/) [code](../lab/x.ts) [web](https://x.io/#y)',
        'docs/b.md': '# One\n## Two\n',
      },
      ['ci/periodic.sh', 'lab/x.ts'],
    );
    expect(brokenLinks('docs/a.md', r)).to.deep.equal([
      'docs/a.md:1: #one: docs/a.md has no heading #one',
    ]);
  });

  it('name a missing file, a missing heading, an anchor into code, and a way out of the repository', function () {
    const r = repo(
      {
        'docs/a.md': '[x](nope.md)\n[y](b.md#three)\n[z](../lab/x.ts#L1)\n[w](../../etc/passwd)',
        'docs/b.md': '# One',
      },
      ['lab/x.ts'],
    );
    expect(brokenLinks('docs/a.md', r)).to.deep.equal([
      'docs/a.md:1: nope.md: no file docs/nope.md',
      'docs/a.md:2: b.md#three: docs/b.md has no heading #three',
      'docs/a.md:3: ../lab/x.ts#L1: an anchor into a file that is not Markdown',
      'docs/a.md:4: ../../etc/passwd: leaves the repository',
    ]);
  });
});
