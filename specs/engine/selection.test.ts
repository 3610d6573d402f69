import { expect } from 'chai';
import { selectionFromArgv } from './selection.ts';

/** Which of these titles the argv selects. */
const selected = (argv: string[], titles: string[]) =>
  titles.filter((t) => selectionFromArgv(['node', 'mocha', ...argv]).matches(t));

const TITLES = ['pod-to-pod a.c', 'pod-to-pod abc', 'service xyz'];

describe('selection from mocha flags', function () {
  it('no flag selects every cell', function () {
    expect(selected([], TITLES)).to.deep.equal(TITLES);
  });

  for (const argv of [['--grep', 'a.c'], ['--grep=a.c'], ['-g', 'a.c']]) {
    it(`${argv.join(' ')} is a regular expression`, function () {
      expect(selected(argv, TITLES)).to.deep.equal(['pod-to-pod a.c', 'pod-to-pod abc']);
    });
  }

  for (const argv of [['--fgrep', 'a.c'], ['--fgrep=a.c'], ['-f', 'a.c']]) {
    it(`${argv.join(' ')} is a fixed string`, function () {
      expect(selected(argv, TITLES)).to.deep.equal(['pod-to-pod a.c']);
    });
  }

  it('--fgrep escapes every regular-expression character', function () {
    const title = 'x.*+?^${}()|[]\\y';
    expect(selected(['-f', title], [title, 'x'])).to.deep.equal([title]);
  });

  for (const flag of ['--invert', '-i']) {
    it(`${flag} selects the cells the grep does not match`, function () {
      expect(selected(['-g', 'a.c', flag], TITLES)).to.deep.equal(['service xyz']);
    });
  }

  it('--grep=x keeps everything after the first = as the pattern', function () {
    expect(selected(['--grep=k=v'], ['k=v', 'k'])).to.deep.equal(['k=v']);
  });

  it('-g=x is not read as a grep for x: every cell stays selected (mocha itself greps "=x")', function () {
    expect(selected(['-g=a.c'], TITLES)).to.deep.equal(TITLES);
  });

  it('a flag with its value missing at the end matches everything', function () {
    expect(selected(['-g'], TITLES)).to.deep.equal(TITLES);
  });

  it('other arguments and flags do not select', function () {
    expect(selected(['--serial', 'specs/a=b.test.ts', '--reporter', 'dot'], TITLES)).to.deep.equal(
      TITLES,
    );
  });
});
