import { expect } from 'chai';
import type { ProbeRequest } from '../model/lab-driver.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import { probeArgs, probeProgramMs } from './probe-args.ts';

const endpoints: ProbeRequest = {
  kind: 'endpoints',
  base: 'http://10.96.101.21:80',
  service: 'web-linux',
  expect: ['netexec-lin1-a', 'netexec-lin2-a'],
  maxRequests: 8,
};

describe('probe.mjs arguments', () => {
  it('passes an endpoints sweep as BASE, --expect, --max-requests and the per-request timeout', () => {
    expect(probeArgs(endpoints, 3000)).to.deep.equal([
      'endpoints',
      'http://10.96.101.21:80',
      '--expect',
      'netexec-lin1-a,netexec-lin2-a',
      '--max-requests',
      '8',
      '--timeout-ms',
      '3000',
    ]);
  });

  it('passes --min-requests when the sweep has one', () => {
    expect(probeArgs({ ...endpoints, minRequests: 30 }, 3000)).to.deep.equal([
      'endpoints',
      'http://10.96.101.21:80',
      '--expect',
      'netexec-lin1-a,netexec-lin2-a',
      '--max-requests',
      '8',
      '--min-requests',
      '30',
      '--timeout-ms',
      '3000',
    ]);
  });

  it('refuses a sweep that expects no endpoint: an infrastructure error naming the Service', () => {
    let error: unknown;
    try {
      probeArgs({ ...endpoints, expect: [] }, 3000);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as InfrastructureError).message).to.equal(
      'Service web-linux (http://10.96.101.21:80) has no endpoint to expect: a sweep of none would pass without a request',
    );
    expect((error as InfrastructureError).hint).to.match(/pods ready/);
  });

  it('lets a sweep run for two timeouts (one failing request, the answered ones), other probes one', () => {
    expect(probeProgramMs(endpoints, 3000)).to.equal(6000);
    expect(probeProgramMs({ kind: 'tcp', host: '10.244.2.7', port: 8080 }, 3000)).to.equal(3000);
  });
});
