import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { xcount, xpath } from '../testing/xpath.ts';
import { sampleReport } from '../testing/sample-report.ts';
import { smallReport } from '../testing/small-report.ts';
import { renderJunit } from './junit-writer.ts';
import { validateJunit } from '../testing/junit-validator.ts';
import { makeReport } from '../model/report.ts';

const dir = mkdtempSync(join(tmpdir(), 'hybrid-junit-'));
let n = 0;
function write(xml: string): string {
  const file = join(dir, `junit-${++n}.xml`);
  writeFileSync(file, xml);
  return file;
}
const tc = (title: string): string => `//testcase[starts-with(@name, '${title}')]`;

describe('report: junit writer', function () {
  for (const emulated of [true, false]) {
    it(`writes XML valid against specs/report/junit.xsd (${emulated ? 'emulated' : 'real'} sample)`, async function () {
      const file = write(renderJunit(sampleReport(emulated)));
      expect(await validateJunit(file)).to.deep.equal({ valid: true, file });
      expect(xcount(file, '//testsuite')).to.equal(1);
      expect(xcount(file, '//testcase')).to.equal(64);
    });
  }

  it('stays valid with markup, CDATA terminators and control characters in the data', async function () {
    const file = write(renderJunit(smallReport(true)));
    expect(await validateJunit(file)).to.deep.include({ valid: true });
    const detail = xpath(file, `${tc('pod-to-pod windows-to-linux cross-node via dns')}/failure`);
    expect(detail).to.include('<script>alert("x")</script> &').and.to.include('red');
    expect(detail).not.to.include('\u001b');
  });

  describe('with a small report', function () {
    let file: string;
    before(function () {
      file = write(renderJunit(smallReport(false)));
    });

    it('names the suite and records run properties, one os-build per node', function () {
      expect(xpath(file, '//testsuite/@name')).to.equal('hybrid-lab conformance');
      const prop = (name: string): string => xpath(file, `//property[@name="${name}"]/@value`);
      expect(prop('lab')).to.equal('hybrid');
      expect(prop('provider')).to.equal('libvirt');
      expect(prop('emulated')).to.equal('no');
      expect(prop('kubernetes-version')).to.equal('1.30.4');
      expect(prop('cni')).to.match(/^flannel vxlan/);
      expect(prop('profile')).to.equal('known-limitations');
      expect(prop('run-id')).to.equal('20250301-3fa9c2');
      expect(prop('os-build.win1')).to.match(/^Windows Server 2022/);
      expect(xcount(file, '//property[starts-with(@name, "os-build.")]')).to.equal(9);
    });

    it('uses the row id as classname, the cell title as name and seconds as time', function () {
      const pass = tc('pod-to-pod windows-to-linux cross-node via ip');
      expect(xpath(file, `${pass}/@classname`)).to.equal('pod-to-pod/windows-to-linux');
      expect(xpath(file, `${pass}/@name`)).to.equal(
        'pod-to-pod windows-to-linux cross-node via ip',
      );
      expect(xpath(file, `${pass}/@time`)).to.equal('1.234');
      expect(xcount(file, `${pass}/failure | ${pass}/skipped | ${pass}/error`)).to.equal(0);
    });

    it('maps a fail to <failure> with expected/actual message, outcome type and detail', function () {
      const fail = `${tc('pod-to-pod windows-to-linux cross-node via dns')}/failure`;
      expect(xpath(file, `${fail}/@message`)).to.equal('expected ok, got wrong-source-ip');
      expect(xpath(file, `${fail}/@type`)).to.equal('wrong-source-ip');
      expect(xpath(file, fail)).to.match(/^target saw 10\.244\.2\.1/);
    });

    it('maps expected failures and skips to <skipped>reason</skipped>', function () {
      const xfail = `${tc('outbound-nat windows win1 via ip')}/skipped`;
      expect(xpath(file, xfail)).to.match(/^expected failure: Windows outbound NAT/);
      const skip = `${tc('pod-to-pod windows-to-windows cross-node via ip')}/skipped`;
      expect(xpath(file, skip)).to.equal('needs two windows nodes; the lab has 1');
    });

    it('reports an unexpected pass loudly as a failure of type unexpected-pass', function () {
      const up = `${tc('outbound-nat windows win2 via ip')}/failure`;
      expect(xpath(file, `${up}/@type`)).to.equal('unexpected-pass');
      expect(xpath(file, `${up}/@message`))
        .to.match(/^UNEXPECTED PASS/)
        .and.to.include('known limitation now works')
        .and.to.include('update the profile');
    });

    it('under a warn profile, an unexpected pass passes in JUnit as it does in mocha, with the verdict in system-out', function () {
      const report = smallReport(false);
      const warned = write(
        renderJunit({ ...report, run: { ...report.run, unexpectedPass: 'warn' } }),
      );
      const up = tc('outbound-nat windows win2 via ip');
      expect(xcount(warned, `${up}/failure`)).to.equal(0);
      expect(xpath(warned, `${up}/system-out`)).to.include('verdict: unexpected-pass');
    });

    it('reports infrastructure errors as <error> under classname infrastructure', function () {
      const infra = tc('infrastructure lab ready');
      expect(xpath(file, `${infra}/@classname`)).to.equal('infrastructure');
      expect(xpath(file, `${infra}/error/@type`)).to.equal('infra-error');
      expect(xpath(file, `${infra}/error/@message`)).to.equal('node win1 NotReady');
      expect(xcount(file, `${infra}/failure`)).to.equal(0);
    });

    it('reports plain tests under their suite and failed hooks as errors', function () {
      expect(xpath(file, `${tc('plain test')}/@classname`)).to.equal('helpers');
      const hook = tc('hybrid matrix "before all" hook');
      expect(xpath(file, `${hook}/@classname`)).to.equal('infrastructure');
      expect(xpath(file, `${hook}/error/@type`)).to.equal('ProvisionError');
    });

    it('counts failures, errors and skips on the suite', function () {
      expect(xpath(file, '//testsuite/@tests')).to.equal('8');
      expect(xpath(file, '//testsuite/@failures')).to.equal('2');
      expect(xpath(file, '//testsuite/@errors')).to.equal('2');
      expect(xpath(file, '//testsuite/@skipped')).to.equal('2');
    });
  });

  it('labels emulated runs in the suite name, a property and every test name', function () {
    const file = write(renderJunit(smallReport(true)));
    expect(xpath(file, '//testsuite/@name')).to.equal('hybrid-lab conformance (EMULATED)');
    expect(xpath(file, '//property[@name="emulated"]/@value')).to.equal('yes');
    const cells = '//testcase[@classname != "helpers" and not(contains(@name, "hook"))]';
    const suffix = 'substring(@name, string-length(@name) - 10) = " [emulated]"';
    expect(xcount(file, cells)).to.equal(6);
    expect(xcount(file, `${cells}[${suffix}]`)).to.equal(6);
  });

  it('records an interruption as a property', function () {
    const report = smallReport(false);
    const file = write(renderJunit(makeReport(report.run, report.cells, [], 'SIGTERM')));
    expect(xpath(file, '//property[@name="interrupted"]/@value')).to.equal('SIGTERM');
  });
});
