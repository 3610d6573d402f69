import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import {
  UsageError,
  formatHostPort,
  parseCommandLine,
  parseIntInRange,
  parseOrExit,
} from './args.mjs';

/** The UsageError `run` throws, or a failure when it throws none. */
function usageErrorOf(run: () => unknown): UsageError {
  try {
    run();
  } catch (err) {
    expect(err).to.be.an.instanceOf(UsageError);
    return err as UsageError;
  }
  expect.fail('no UsageError thrown');
}

describe('workload command lines', () => {
  describe('parseCommandLine', () => {
    it('takes flags as --name value and --name=value, keeping positionals in order', () => {
      const { positionals, flags } = parseCommandLine(
        ['tcp', '--timeout-ms=250', '10.0.0.1', '--expect', 'a=b', '80'],
        ['timeout-ms', 'expect'],
      );
      expect(positionals).to.deep.equal(['tcp', '10.0.0.1', '80']);
      expect([...flags]).to.deep.equal([
        ['timeout-ms', '250'],
        ['expect', 'a=b'],
      ]);
    });

    it('keeps an empty value given as --name=', () => {
      expect([...parseCommandLine(['--expect='], ['expect']).flags]).to.deep.equal([
        ['expect', ''],
      ]);
    });

    it('reads a hole in argv as an empty positional', () => {
      const argv = ['a', undefined, 'b'] as unknown as string[];
      expect(parseCommandLine(argv, []).positionals).to.deep.equal(['a', '', 'b']);
    });

    it('names an unknown flag, one given twice and one without a value in a UsageError', () => {
      const known = ['timeout-ms'];
      const unknown = usageErrorOf(() => parseCommandLine(['--timeout=5'], known));
      expect(unknown.name).to.equal('UsageError');
      expect(unknown.message).to.equal('unknown flag --timeout');
      expect(
        usageErrorOf(() => parseCommandLine(['--timeout-ms', '1', '--timeout-ms=2'], known))
          .message,
      ).to.equal('flag --timeout-ms given twice');
      expect(usageErrorOf(() => parseCommandLine(['x', '--timeout-ms'], known)).message).to.equal(
        'flag --timeout-ms needs a value',
      );
    });
  });

  describe('parseIntInRange', () => {
    it('accepts a decimal integer from min to max inclusive', () => {
      expect(parseIntInRange('1', 'PORT', 1, 65535)).to.equal(1);
      expect(parseIntInRange('65535', 'PORT', 1, 65535)).to.equal(65535);
    });

    it('refuses anything else, naming what, the range and the text', () => {
      for (const text of [
        '0',
        '65536',
        '12x',
        'x12',
        '-1',
        '1.5',
        '',
        '1e3',
        '0x10',
        ' 12',
        '12 ',
      ]) {
        expect(usageErrorOf(() => parseIntInRange(text, 'PORT', 1, 65535)).message).to.equal(
          `PORT must be an integer from 1 to 65535, got '${text}'`,
        );
      }
    });
  });

  describe('formatHostPort', () => {
    it('joins host and port as Go does, brackets around IPv6 only', () => {
      expect(formatHostPort('10.244.12.34', 8080)).to.equal('10.244.12.34:8080');
      expect(formatHostPort('fd00:10:244::5', 8080)).to.equal('[fd00:10:244::5]:8080');
    });

    it('drops the ::ffff: of an IPv4-mapped peer, whatever the case and width of its octets', () => {
      expect(formatHostPort('::ffff:10.244.12.34', 80)).to.equal('10.244.12.34:80');
      expect(formatHostPort('::FFFF:1.2.3.4', 80)).to.equal('1.2.3.4:80');
    });

    it('keeps ::ffff: that is not a whole IPv4-mapped prefix', () => {
      expect(formatHostPort('1::ffff:1.2.3.4', 80)).to.equal('[1::ffff:1.2.3.4]:80');
      expect(formatHostPort('::ffff:1.2.3.4%eth0', 80)).to.equal('[::ffff:1.2.3.4%eth0]:80');
      expect(formatHostPort('::ffff:a.2.3.4', 80)).to.equal('::ffff:a.2.3.4:80');
    });
  });

  describe('parseOrExit', () => {
    it('returns what the parser returns', () => {
      expect(parseOrExit('prog', 'usage: prog', () => 42)).to.equal(42);
    });

    it('rethrows an error that is no UsageError', () => {
      expect(() =>
        parseOrExit('prog', 'usage: prog', () => {
          throw new RangeError('bug');
        }),
      ).to.throw(RangeError, 'bug');
    });

    it('prints the message and the usage text and exits 2 on a UsageError', () => {
      const args = new URL('./args.mjs', import.meta.url).href;
      const script =
        `const { parseOrExit, UsageError } = await import(${JSON.stringify(args)});\n` +
        `parseOrExit('prog', 'usage: prog N', () => { throw new UsageError('N must be 1'); });\n`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect({ status: child.status, stderr: child.stderr, stdout: child.stdout }).to.deep.equal({
        status: 2,
        stderr: 'prog: N must be 1\nusage: prog N\n',
        stdout: '',
      });
    });
  });
});
