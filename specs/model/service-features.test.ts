import { expect } from 'chai';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import {
  affinityRequests,
  featureAddresses,
  internalLocalServiceName,
  internalTrafficPolicyGap,
  loadBalancerClassGap,
} from './service-features.ts';

describe('Service features: what the affinity cells ask and what a version lacks', () => {
  it('asks the fewest connections N with endpoints^(1-N) below 1e-4', () => {
    expect([2, 3, 4, 5, 10].map(affinityRequests)).to.deep.equal([15, 10, 8, 7, 6]);
    for (const k of [2, 3, 4, 5, 10, 20]) {
      const n = affinityRequests(k);
      // In integers: k^(N-1) > 1e4, and not so with one connection fewer.
      expect(k ** (n - 1), `k=${k}`).to.be.above(10_000);
      expect(k ** (n - 2), `k=${k}, one fewer`).to.be.at.most(10_000);
    }
    expect(() => affinityRequests(1)).to.throw(/two endpoints/);
  });

  it('knows internalTrafficPolicy from 1.22 on (1.21 has it behind an alpha gate, off by default)', () => {
    expect(internalTrafficPolicyGap('v1.20.2')).to.match(
      /^Kubernetes v1\.20\.2 has no internalTrafficPolicy/,
    );
    expect(internalTrafficPolicyGap('1.21.14')).to.match(
      /alpha behind the ServiceInternalTrafficPolicy/,
    );
    for (const version of ['v1.22.0', '1.30.4', 'v1.31.2+k3s1', 'v2.0.0', undefined, 'unknown'])
      expect(internalTrafficPolicyGap(version), String(version)).to.equal(undefined);
  });

  it('relies on spec.loadBalancerClass from 1.24 on (GA), not on the beta gate before', () => {
    for (const version of ['v1.20.2', '1.22.0', 'v1.23.17'])
      expect(loadBalancerClassGap(version), version).to.match(
        /has no spec\.loadBalancerClass to rely on \(GA in 1\.24/,
      );
    for (const version of ['v1.24.0', '1.31.4', 'v2.0.0', undefined, 'unknown'])
      expect(loadBalancerClassGap(version), String(version)).to.equal(undefined);
  });

  it('reads the version only from its start, every digit of the major (a leading zero too)', () => {
    expect(internalTrafficPolicyGap('01.20.0')).to.match(/^Kubernetes 01\.20\.0 has no/);
    expect(internalTrafficPolicyGap('release-1.20')).to.equal(undefined);
    expect(internalTrafficPolicyGap('')).to.equal(undefined);
  });

  it("traces the feature Services' ClusterIPs and the ExternalName's echo, nothing without them", () => {
    const nodes = [{ name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' }] as const;
    expect(featureAddresses(fakeWorkloads([...nodes]).features)).to.deep.equal([
      '10.96.3.20',
      '10.96.3.21',
      '10.96.3.30',
      '10.96.3.31',
      '10.96.3.40',
      '10.96.3.41',
      '10.96.3.50',
      '10.96.3.51',
      '198.51.100.1',
    ]);
    expect(featureAddresses(undefined)).to.deep.equal([]);
    expect(internalLocalServiceName('windows')).to.equal('internal-local-windows');
  });
});
