import { expect } from 'chai';
import {
  reviewOk,
  summaryLines,
  summaryMarkdown,
  type MutationReview,
} from './mutation-summary.ts';
import type { Undetected } from './mutation-report.ts';

const survivor: Undetected = {
  file: 'specs/engine/judge.ts',
  line: 36,
  mutator: 'EqualityOperator',
  original: 'seen === check.expect',
  replacement: 'seen !== check.expect',
  status: 'Survived',
};
const review = (over: Partial<MutationReview> = {}): MutationReview => ({
  scores: [
    { folder: 'specs/engine', detected: 9, undetected: 1, excluded: 2, score: 90 },
    { folder: 'all', detected: 9, undetected: 1, excluded: 2, score: 90 },
  ],
  undetected: [survivor],
  unlisted: [],
  stale: [],
  breakAt: 80,
  ...over,
});

describe('mutation summary', () => {
  it('passes at or over the break threshold with every survivor explained', () => {
    expect(reviewOk(review())).to.equal(true);
    expect(reviewOk(review({ breakAt: 90 }))).to.equal(true);
    expect(reviewOk(review({ breakAt: 90.5 }))).to.equal(false);
    expect(reviewOk(review({ breakAt: null }))).to.equal(true);
  });

  it('fails on a survivor nobody explained, and on a stale entry', () => {
    expect(reviewOk(review({ unlisted: [survivor] }))).to.equal(false);
    const stale = { ...survivor, reason: 'was equivalent once' };
    expect(reviewOk(review({ stale: [stale] }))).to.equal(false);
  });

  it('fails when no score was reported at all', () => {
    expect(reviewOk(review({ scores: [] }))).to.equal(false);
  });

  it('prints each folder, the count of survivors explained, and each one that is not', () => {
    const lines = summaryLines(review({ unlisted: [survivor] }), 'stryker-equivalent.json');
    expect(lines).to.include('   90.00%  specs/engine  (9/10, 2 excluded)');
    expect(lines).to.include('1 mutants undetected, 0 of them listed in stryker-equivalent.json');
    expect(lines).to.include(
      '  Survived specs/engine/judge.ts:36 EqualityOperator: "seen === check.expect" → "seen !== check.expect"',
    );
  });

  it('writes a markdown page with the verdict and a row per folder', () => {
    const md = summaryMarkdown(review(), 'stryker-equivalent.json');
    expect(md).to.match(/^### Mutation testing: 90\.00% \(break at 80\) — \*\*PASS\*\*/);
    expect(md).to.contain('| `specs/engine` | 90.00% | 9 / 10 | 2 |');
    expect(md).to.contain('1 mutants undetected; 1 listed as equivalent');
    expect(summaryMarkdown(review({ unlisted: [survivor] }), 'x.json'))
      .to.contain('**FAIL**')
      .and.contain('**Not killed and not listed:**');
  });
});
