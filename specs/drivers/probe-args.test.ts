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
  it('passes each probe kind its own words before the per-request timeout', () => {
    const args = (request: ProbeRequest): string[] => probeArgs(request, 2500);
    expect(args({ kind: 'http', url: 'http://10.96.0.9/hostname' })).to.deep.equal([
      'http',
      'http://10.96.0.9/hostname',
      '--timeout-ms',
      '2500',
    ]);
    expect(args({ kind: 'dns', name: 'web-linux' })).to.deep.equal([
      'dns',
      'web-linux',
      '--timeout-ms',
      '2500',
    ]);
    expect(args({ kind: 'dns-tcp', name: 'web-linux' })).to.deep.equal([
      'dns-tcp',
      'web-linux',
      '--timeout-ms',
      '2500',
    ]);
    expect(args({ kind: 'tcp', host: '10.244.2.7', port: 8080 })).to.deep.equal([
      'tcp',
      '10.244.2.7',
      '8080',
      '--timeout-ms',
      '2500',
    ]);
    expect(args({ kind: 'icmp', host: '10.244.2.7' })).to.deep.equal([
      'icmp',
      '10.244.2.7',
      '--timeout-ms',
      '2500',
    ]);
    expect(args({ kind: 'udp', host: '10.244.2.7', port: 8081, message: 'echo hi' })).to.deep.equal(
      ['udp', '10.244.2.7', '8081', 'echo hi', '--timeout-ms', '2500'],
    );
  });

  it('passes a perf run its duration and lets the program run the duration plus one timeout', () => {
    const perf: ProbeRequest = {
      kind: 'perf',
      measure: 'tcp-stream',
      base: 'http://10.244.2.7:5201',
      durationMs: 10000,
    };
    expect(probeArgs(perf, 3000)).to.deep.equal([
      'perf',
      'tcp-stream',
      'http://10.244.2.7:5201',
      '--duration-ms',
      '10000',
      '--timeout-ms',
      '13000',
    ]);
    expect(probeProgramMs(perf, 3000)).to.equal(13000);
  });

  it('passes --rate-mbps when a perf run has a rate', () => {
    expect(
      probeArgs(
        {
          kind: 'perf',
          measure: 'tcp-stream',
          base: 'http://10.244.2.7:5201',
          durationMs: 10000,
          rateMbps: 50,
        },
        3000,
      ),
    ).to.deep.equal([
      'perf',
      'tcp-stream',
      'http://10.244.2.7:5201',
      '--duration-ms',
      '10000',
      '--rate-mbps',
      '50',
      '--timeout-ms',
      '13000',
    ]);
  });
});
