/**
 * The JUnit file against every schema its consumers hold it to: the project's own, the Jenkins
 * xunit plugin's junit-10.xsd and the older Jenkins junit-4.xsd (both vendored, with their source,
 * in specs/report/), checked with xmllint.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { renderJunit } from './junit-writer.ts';
import { JUNIT_XSD, validateJunit } from '../testing/junit-validator.ts';
import { flaggedReport } from '../testing/flagged-report.ts';
import { sampleReport } from '../testing/sample-report.ts';
import { smallReport } from '../testing/small-report.ts';
import { xcount, xpath } from '../testing/xpath.ts';

const schema = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const SCHEMAS = {
  'specs/report/junit.xsd': JUNIT_XSD,
  'xunit-plugin junit-10.xsd': schema('xunit-plugin-junit-10.xsd'),
  'Jenkins junit-4.xsd': schema('jenkins-junit-4.xsd'),
};

const dir = mkdtempSync(join(tmpdir(), 'hybrid-junit-schemas-'));
let n = 0;
function write(xml: string): string {
  const file = join(dir, `junit-${++n}.xml`);
  writeFileSync(file, xml);
  return file;
}

async function errorsAgainst(file: string, xsd: string): Promise<string[]> {
  const result = await validateJunit(file, { schema: xsd });
  return result.valid ? [] : result.errors;
}

describe('report: JUnit against every schema its consumers use', function () {
  this.timeout(30_000);
  const reports = {
    'the emulated sample run': () => sampleReport(true),
    'the real sample run': () => sampleReport(false),
    'a run of every verdict': () => smallReport(true),
  };
  for (const [what, report] of Object.entries(reports)) {
    for (const [name, xsd] of Object.entries(SCHEMAS)) {
      it(`${what} is valid against ${name}`, async function () {
        expect(await errorsAgainst(write(renderJunit(report())), xsd)).to.deep.equal([]);
      });
    }
  }

  it('writes a skip reason as the element text and no skipped count on <testsuites>', function () {
    const file = write(renderJunit(smallReport(false)));
    expect(xcount(file, '//skipped[@message]')).to.equal(0);
    expect(
      xpath(file, '//testcase[starts-with(@name, "outbound-nat windows win1")]/skipped'),
    ).to.match(/^expected failure: Windows outbound NAT/);
    expect(xcount(file, '/testsuites[@skipped]')).to.equal(0);
    expect(xpath(file, '/testsuites/testsuite/@skipped')).to.equal('2');
  });

  describe('flaky and retried cells, as Surefire writes them', function () {
    let file: string;
    before(function () {
      file = write(renderJunit(flaggedReport()));
    });

    it('writes a failure a retry hid as <flakyFailure> in a passing testcase', function () {
      const flaky = '//testcase[starts-with(@name, "pod-to-pod windows-to-linux win2-to-lin1")]';
      expect(xcount(file, `${flaky}/failure`)).to.equal(0);
      expect(xpath(file, `${flaky}/flakyFailure/@type`)).to.equal('timeout');
      expect(xpath(file, `${flaky}/flakyFailure/@message`)).to.equal(
        'attempt 1 of 2: expected ok, got timeout',
      );
      expect(xpath(file, `${flaky}/flakyFailure/stackTrace`)).to.match(/^no answer within 3000 ms/);
      expect(xpath(file, `${flaky}/system-out`))
        .to.include(
          'timing: total p50 2.1 ms, max 3.4 ms; connect p50 0.3 ms, max 0.5 ms (4 requests)',
        )
        .and.to.include('flaky: 1 of 2 attempts failed');
    });

    it('writes the other failed attempts of a failed cell as <rerunFailure> after its <failure>', function () {
      const retried = '//testcase[@name="pod-to-pod windows-to-linux cross-node via dns"]';
      expect(xcount(file, `${retried}/failure`)).to.equal(1);
      expect(xcount(file, `${retried}/rerunFailure[@type="wrong-source-ip"]`)).to.equal(2);
    });

    it('fails a slow cell with its measure and baseline', function () {
      const slow = '//testcase[starts-with(@name, "pod-to-pod windows-to-linux win1-to-lin2")]';
      expect(xpath(file, `${slow}/failure/@type`)).to.equal('slow');
      expect(xpath(file, `${slow}/system-out`)).to.include(
        'slow: total-p50 912 ms is 434.3× the baseline 2.1 ms (median of 9 ',
      );
      expect(xpath(file, '//property[@name="slow-cells"]/@value')).to.equal('1');
      expect(xpath(file, '//property[@name="flaky-cells"]/@value')).to.equal('1');
    });

    it('is valid against the project schema and junit-10.xsd', async function () {
      expect(await errorsAgainst(file, SCHEMAS['specs/report/junit.xsd'])).to.deep.equal([]);
      expect(await errorsAgainst(file, SCHEMAS['xunit-plugin junit-10.xsd'])).to.deep.equal([]);
    });

    it('is refused by junit-4.xsd, which has no rerun elements; JUNIT_RERUNS=text is valid there too', async function () {
      const refused = await errorsAgainst(file, SCHEMAS['Jenkins junit-4.xsd']);
      expect(refused.join('\n')).to.match(/flakyFailure|rerunFailure/);
      const text = write(renderJunit(flaggedReport(), undefined, 'text'));
      for (const xsd of Object.values(SCHEMAS))
        expect(await errorsAgainst(text, xsd), xsd).to.deep.equal([]);
      expect(
        xpath(
          text,
          '//testcase[starts-with(@name, "pod-to-pod windows-to-linux win2-to-lin1")]/system-out',
        ),
      ).to.include('failed attempt 1: timeout: no answer within 3000 ms');
    });
  });
});
