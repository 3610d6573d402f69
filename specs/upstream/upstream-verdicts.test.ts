import { expect } from 'chai';
import type { GinkgoCase } from './ginkgo-junit.ts';
import { parseUpstreamCatalogue, selectionFor } from './upstream-catalogue.ts';
import { judgeUpstream, SKIPPED_AT_RUN_TIME, type JudgeInput } from './upstream-verdicts.ts';

const CATALOGUE = parseUpstreamCatalogue(
  `
universe: '\\[sig-network\\]|\\[sig-windows\\]'
focus:
  - { pattern: 'Granular', why: paths }
  - { pattern: '\\[sig-windows\\]', why: windows }
  - { pattern: 'DNS should', why: dns }
leftOut:
  - { pattern: 'LoadBalancer', reason: no cloud }
knownLimits:
  - { test: '[sig-network] DNS should provide DNS for pods for Hostname', reason: the stand-in lacks it, when: { clusterDns: hl-cluster-dns } }
  - { test: '[sig-network] DNS should provide DNS for the cluster', reason: flaky here, when: { clusterDns: hl-cluster-dns } }
crossCheck: []
`,
  'test',
);
const LAB = { clusterDns: 'hl-cluster-dns' } as const;

function judge(cases: GinkgoCase[], patch: Partial<JudgeInput> = {}) {
  return judgeUpstream({
    cases,
    skipReasons: new Map(),
    catalogue: CATALOGUE,
    selection: selectionFor(CATALOGUE, LAB),
    lab: LAB,
    ...patch,
  });
}
const c = (name: string, state: GinkgoCase['state'], message?: string): GinkgoCase => ({
  name,
  state,
  durationMs: 5,
  ...(message === undefined ? {} : { message }),
});

describe('upstream verdicts', function () {
  it('passes and failures of specs nobody lists are pass and fail, with the message', function () {
    const tests = judge([
      c('[sig-network] Granular pod-Service: http', 'passed'),
      c('[sig-network] Granular pod-Service: udp', 'failed', 'file.go:1\nno answer'),
    ]);
    expect(tests.map((t) => [t.verdict, t.selected, t.message])).to.deep.equal([
      ['pass', true, undefined],
      ['fail', true, 'file.go:1\nno answer'],
    ]);
  });

  it('a known limit that fails is an expected failure with its reason; one that passes is an unexpected pass', function () {
    const tests = judge([
      c('[sig-network] DNS should provide DNS for pods for Hostname', 'failed', 'timed out'),
      c('[sig-network] DNS should provide DNS for the cluster', 'passed'),
    ]);
    expect(tests.map((t) => [t.verdict, t.reason])).to.deep.equal([
      ['expected-failure', 'the stand-in lacks it'],
      ['unexpected-pass', 'flaky here'],
    ]);
  });

  it('a known limit of another kind of lab stays a failure', function () {
    const tests = judge(
      [c('[sig-network] DNS should provide DNS for pods for Hostname', 'failed', 'x')],
      {
        lab: { clusterDns: 'coredns' },
      },
    );
    expect(tests[0]!.verdict).to.equal('fail');
  });

  it('every skipped spec of the universe says why: left out, not in the focus, or skipped by e2e.test', function () {
    const windows =
      '[sig-windows] Services should be able to create a functioning NodePort service for Windows';
    const tests = judge(
      [
        c('[sig-network] Services should create a LoadBalancer', 'skipped'),
        c('[sig-network] EndpointSlice should have Endpoints', 'skipped'),
        c(windows, 'skipped'),
        c('[sig-network] DNS should support configurable pod DNS nameservers', 'skipped'),
      ],
      {
        skipReasons: new Map([
          [windows, 'Only supported for node OS distro [windows] (not debian)'],
        ]),
      },
    );
    expect(tests.map((t) => [t.name, t.selected, t.reason])).to.deep.equal([
      [
        '[sig-network] DNS should support configurable pod DNS nameservers',
        true,
        SKIPPED_AT_RUN_TIME,
      ],
      [
        '[sig-network] EndpointSlice should have Endpoints',
        false,
        'not in the default focus (not a data-plane spec); run it with --focus',
      ],
      ['[sig-network] Services should create a LoadBalancer', false, 'left out: no cloud'],
      [
        windows,
        true,
        'skipped by e2e.test: Only supported for node OS distro [windows] (not debian)',
      ],
    ]);
  });

  it('specs outside the universe are dropped when skipped and kept when they ran', function () {
    const tests = judge(
      [
        c('[sig-storage] Volumes should mount', 'skipped'),
        c('[sig-apps] Deployment should roll', 'failed', 'boom'),
      ],
      { selection: { focus: 'Deployment', skip: '', focusKind: 'given' } },
    );
    expect(tests.map((t) => [t.name, t.verdict])).to.deep.equal([
      ['[sig-apps] Deployment should roll', 'fail'],
    ]);
  });

  it('a cross-checked run says so of the specs it did not choose', function () {
    const tests = judge([c('[sig-network] DNS should x', 'skipped')], {
      selection: { focus: 'Granular', skip: '', focusKind: 'cross-checked' },
    });
    expect(tests[0]!.reason).to.equal(
      'not in the cross-checked run (--cross-checked: only the specs paired with matrix rows)',
    );
  });

  it('a user focus names itself as the reason a spec did not run', function () {
    const tests = judge([c('[sig-network] DNS should x', 'skipped')], {
      selection: { focus: 'Granular', skip: '', focusKind: 'given' },
    });
    expect(tests[0]!.reason).to.equal('not in --focus Granular');
  });

  it('a failed suite hook is an infrastructure error, not a network failure', function () {
    const tests = judge([
      c('BeforeSuite', 'failed', 'nodes not ready'),
      c('[sig-network] Granular x', 'skipped'),
    ]);
    expect(tests.find((t) => t.name === '[e2e.test] BeforeSuite')).to.include({
      verdict: 'infra-error',
      message: 'nodes not ready',
    });
  });
});
