import { expect } from 'chai';
import { formatAge, parseDuration } from './duration.ts';

describe('durations as typed and as shown', () => {
  it('reads a whole number and a unit', () => {
    expect(parseDuration('90s', '--older-than')).to.equal(90_000);
    expect(parseDuration('30m', '--older-than')).to.equal(1_800_000);
    expect(parseDuration(' 6h ', '--older-than')).to.equal(21_600_000);
    expect(parseDuration('2d', '--older-than')).to.equal(172_800_000);
  });

  it('refuses anything else, naming the option and an example', () => {
    for (const text of ['6', 'h', '0h', '-1h', '1.5h', '6 h', '6hours', '', '9999999999999999d'])
      expect(() => parseDuration(text, '--older-than'), text).to.throw(
        /^--older-than: expected a whole number above 0 and a unit \(s, m, h or d\), e\.g\. 6h; got /,
      );
  });

  it('shows an age in the largest unit it fills', () => {
    expect([45_000, 60_000, 1_250_000, 7_200_000, 90_000_000, -5].map(formatAge)).to.deep.equal([
      '45 s',
      '1 min',
      '20 min',
      '2 h',
      '1 d',
      '0 s',
    ]);
  });
});
