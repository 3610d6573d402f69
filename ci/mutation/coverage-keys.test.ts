import { expect } from 'chai';
import type { MutantCoverage } from '@stryker-mutator/api/core';
import { addUnder, attributeSuites, suiteKey } from './coverage-keys.ts';

describe('mutation coverage keys', () => {
  it('adds hits under a test, a suite, or (no key) static', () => {
    const coverage: MutantCoverage = { static: {}, perTest: {} };
    addUnder(coverage, '', { '1': 1 });
    addUnder(coverage, 'a test', { '2': 1 });
    addUnder(coverage, 'a test', { '2': 2, '3': 1 });
    expect(coverage).to.deep.equal({
      static: { '1': 1 },
      perTest: { 'a test': { '2': 3, '3': 1 } },
    });
  });

  it("gives a suite's all-hook coverage to every test under it, and keeps tests' own", () => {
    const suite = suiteKey('probe endpoints');
    const coverage: MutantCoverage = {
      static: { '9': 1 },
      perTest: { [suite]: { '1': 1 }, 'probe endpoints stops': { '2': 1 } },
    };
    const under = new Map([[suite, ['probe endpoints stops', 'probe endpoints refuses']]]);
    expect(attributeSuites(coverage, under)).to.deep.equal({
      static: { '9': 1 },
      perTest: {
        'probe endpoints stops': { '1': 1, '2': 1 },
        'probe endpoints refuses': { '1': 1 },
      },
    });
  });

  it('drops the coverage of a suite that ran no test, and never mistakes a test for a suite', () => {
    const coverage: MutantCoverage = {
      static: {},
      perTest: { [suiteKey('empty')]: { '1': 1 }, suite: { '2': 1 } },
    };
    expect(attributeSuites(coverage, new Map())).to.deep.equal({
      static: {},
      perTest: { suite: { '2': 1 } },
    });
  });
});
