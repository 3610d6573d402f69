import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { RecordingRunner } from '../../lab/testing/recording-runner.ts';
import { smallReport } from '../testing/small-report.ts';
import { renderJunit } from './junit-writer.ts';
import { JUNIT_XSD, JunitValidationError, validateJunit } from '../testing/junit-validator.ts';

const dir = mkdtempSync(join(tmpdir(), 'hybrid-xsd-'));
function file(name: string, xml: string): string {
  const path = join(dir, name);
  writeFileSync(path, xml);
  return path;
}

const GOOD = renderJunit(smallReport(true));

describe('report: validateJunit', function () {
  it('accepts a generated report', async function () {
    const path = file('good.xml', GOOD);
    expect(await validateJunit(path)).to.deep.equal({ valid: true, file: path });
  });

  const broken: [string, string][] = [
    [
      'a testcase without a name',
      GOOD.replace(/<testcase classname="([^"]+)" name="[^"]+"/, '<testcase classname="$1"'),
    ],
    [
      'a non-numeric test count',
      GOOD.replace(
        /<testsuite name="([^"]+)"(.*?) tests="\d+"/,
        '<testsuite name="$1"$2 tests="many"',
      ),
    ],
    [
      'a failure outside a testcase',
      GOOD.replace('<properties>', '<failure message="x"/><properties>'),
    ],
    ['an unknown element', GOOD.replace('</testcase>', '<flaky/></testcase>')],
    [
      'system-out before the failure',
      GOOD.replace(/(<failure[^>]*>.*?<\/failure>)(\s*)(<system-out>.*?<\/system-out>)/s, '$3$2$1'),
    ],
    ['a document that is not well-formed', GOOD.replace('</testsuites>', '')],
  ];
  for (const [what, xml] of broken) {
    it(`rejects ${what}, with xmllint's reasons`, async function () {
      expect(xml).not.to.equal(GOOD);
      const result = await validateJunit(file(`broken-${what.replaceAll(' ', '-')}.xml`, xml));
      expect(result.valid).to.equal(false);
      if (!result.valid) expect(result.errors.join('\n')).to.match(/error/i);
    });
  }

  it('throws a typed error when the file does not exist', async function () {
    let caught: unknown;
    await validateJunit(join(dir, 'missing.xml')).catch((err: unknown) => (caught = err));
    expect(caught).to.be.instanceOf(JunitValidationError);
    expect((caught as Error).message).to.include('missing.xml');
  });

  it('runs `xmllint --noout --schema junit.xsd FILE` through the command runner', async function () {
    const runner = new RecordingRunner();
    const path = file('recorded.xml', GOOD);
    await validateJunit(path, { runner });
    expect(runner.calls.map((c) => [c.file, ...c.args])).to.deep.equal([
      ['xmllint', '--noout', '--schema', JUNIT_XSD, path],
    ]);
  });

  it('throws a typed error when xmllint cannot judge (schema does not compile)', async function () {
    const runner = new RecordingRunner().on(/^xmllint/, {
      exitCode: 5,
      stderr: 'WXS schema junit.xsd failed to compile\n',
    });
    let caught: unknown;
    await validateJunit(file('any.xml', GOOD), { runner }).catch((err: unknown) => (caught = err));
    expect(caught).to.be.instanceOf(JunitValidationError);
    expect((caught as Error).message)
      .to.include('exit 5')
      .and.to.include('failed to compile');
  });
});
