import { expect } from 'chai';
import type { ProbeRequest } from '../model/lab-driver.ts';
import { probeArgs, probeProgramMs } from './probe-args.ts';

const endpoints: ProbeRequest = {
  kind: 'endpoints',
  base: 'http://10.96.101.21:80',
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

  it('lets a sweep run for two timeouts (one failing request, the answered ones), other probes one', () => {
    expect(probeProgramMs(endpoints, 3000)).to.equal(6000);
    expect(probeProgramMs({ kind: 'tcp', host: '10.244.2.7', port: 8080 }, 3000)).to.equal(3000);
  });
});
