import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  decodeXml,
  GinkgoJunitError,
  mergeGinkgoCases,
  parseGinkgoJunit,
  type GinkgoCase,
} from './ginkgo-junit.ts';

// The shape ginkgo v1.11's JUnit reporter writes (encoding/xml: &#34; &#xA; and friends).
const XML = `<?xml version="1.0" encoding="UTF-8"?>
  <testsuite name="Kubernetes e2e suite" tests="3" failures="1" errors="0" time="61.2">
      <testcase name="[sig-network] Networking Granular Checks: Pods should function for intra-pod communication: http [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" time="40.123"></testcase>
      <testcase name="[sig-network] Services should be able to create a functioning NodePort service [Conformance]" classname="Kubernetes e2e suite" time="12.5">
          <failure type="Failure">/go/src/k8s.io/kubernetes/test/e2e/network/service.go:1174&#xA;Unexpected error:&#xA;    &lt;*errors.errorString | 0xc000&gt;: {s: &#34;service is not reachable within 2m0s timeout on endpoint nodeport-test:80 over TCP protocol&#34;}&#xA;/go/src/k8s.io/kubernetes/test/e2e/network/service.go:1180</failure>
          <system-out>STEP: creating service</system-out>
      </testcase>
      <testcase name="[sig-windows] Services should be able to create a functioning NodePort service for Windows" classname="Kubernetes e2e suite" time="0.2">
          <skipped></skipped>
      </testcase>
      <testcase name="[k8s.io] Pods should be submitted &amp; removed" classname="Kubernetes e2e suite" time="0"><skipped></skipped></testcase>
  </testsuite>`;

describe('ginkgo JUnit', function () {
  it('reads every testcase with its state, failure text and time', function () {
    const cases = parseGinkgoJunit(XML, 'junit_e2e_01.xml');
    expect(cases.map((c) => c.state)).to.deep.equal(['passed', 'failed', 'skipped', 'skipped']);
    expect(cases[0]).to.deep.equal({
      name: '[sig-network] Networking Granular Checks: Pods should function for intra-pod communication: http [NodeConformance] [Conformance]',
      state: 'passed',
      durationMs: 40123,
    });
    expect(cases[1]!.message).to.include('\nUnexpected error:\n');
    expect(cases[1]!.message).to.include(
      '<*errors.errorString | 0xc000>: {s: "service is not reachable',
    );
    expect(cases[3]!.name).to.equal('[k8s.io] Pods should be submitted & removed');
  });

  it('decodes character references and the named entities', function () {
    expect(decodeXml('a &amp;&lt;&gt;&quot;&apos; &#34;&#x41;&#xA;')).to.equal('a &<>"\' "A\n');
  });

  it('a file without a testsuite or a testcase without a name is an error naming the file', function () {
    expect(() => parseGinkgoJunit('<html></html>', 'x.xml'))
      .to.throw(GinkgoJunitError)
      .with.property('message')
      .that.includes('x.xml');
    expect(() =>
      parseGinkgoJunit('<testsuite><testcase time="1"></testcase></testsuite>', 'y.xml'),
    ).to.throw(/y\.xml: a <testcase> without a name/);
  });

  it('merges parallel nodes: a spec one node ran wins over the others listing it skipped', function () {
    const spec = (state: GinkgoCase['state']): GinkgoCase => ({ name: 'a', state, durationMs: 1 });
    expect(
      mergeGinkgoCases([[spec('skipped')], [spec('failed')], [spec('skipped')]]),
    ).to.deep.equal([spec('failed')]);
    expect(mergeGinkgoCases([[spec('passed')], [spec('skipped')]])).to.deep.equal([spec('passed')]);
  });
});

describe('ginkgo JUnit of a real run', function () {
  it('reads the excerpt of e2e.test v1.20.2 on a netns kubeadm lab (testdata/junit_e2e_excerpt.xml)', function () {
    const xml = readFileSync(new URL('testdata/junit_e2e_excerpt.xml', import.meta.url), 'utf8');
    const cases = parseGinkgoJunit(xml, 'junit_e2e_excerpt.xml');
    expect(cases.map((c) => [c.name, c.state])).to.deep.equal([
      [
        '[sig-network] Networking Granular Checks: Pods should function for intra-pod communication: http [NodeConformance] [Conformance]',
        'passed',
      ],
      [
        '[sig-network] NetworkPolicy API should support creating NetworkPolicy API operations',
        'skipped',
      ],
      [
        '[sig-network] Services should implement service.kubernetes.io/service-proxy-name',
        'failed',
      ],
      [
        '[sig-windows] Services should be able to create a functioning NodePort service for Windows',
        'skipped',
      ],
    ]);
    expect(cases[2]!.message).to.include('received [/bin/sh: 1: wget: not found]');
  });
});
