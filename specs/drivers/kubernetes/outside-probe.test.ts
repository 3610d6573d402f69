import { expect } from 'chai';
import {
  startEndpointBackend,
  type EndpointBackend,
} from '../../../lab/testing/endpoint-backend.ts';
import { probeFromHost } from './outside-probe.ts';

const sweep = (base: string, expect: string[], maxRequests: number) => ({
  kind: 'endpoints' as const,
  base,
  service: 'web-linux',
  expect,
  maxRequests,
});

describe('probeFromHost endpoints (sweeping a backend on 127.0.0.1)', function () {
  this.timeout(10_000);
  const backends: EndpointBackend[] = [];
  const start = async (...args: Parameters<typeof startEndpointBackend>) => {
    const backend = await startEndpointBackend(...args);
    backends.push(backend);
    return backend.base;
  };
  after(() => {
    backends.forEach((b) => {
      b.close();
    });
  });

  it('stops once every expected endpoint answered, each with the client IP it saw', async () => {
    const base = await start('pod-a');
    const reply = await probeFromHost(sweep(base, ['pod-a'], 5), 1000);
    expect(reply).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
    expect(reply.requests).to.have.length(1);
    expect(reply.ms)
      .to.be.a('number')
      .and.at.least(reply.requests![0]!.ms ?? Infinity);
  });

  it('bounds each request by timeoutMs, not the sweep', async () => {
    const base = await start('pod-a', { delayMs: 100 });
    const reply = await probeFromHost(sweep(base, ['pod-nosuch'], 3), 400);
    expect(reply.result).to.equal('ok');
    expect(reply.answers).to.have.length(3);
  });

  it('times out at the request that hangs, keeping what answered before it', async () => {
    const base = await start('pod-a', { silentOn: [2] });
    expect(await probeFromHost(sweep(base, ['pod-nosuch'], 3), 200)).to.deep.include({
      result: 'timeout',
      error: 'request 2 of 3: no answer within 200 ms',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
  });

  it('classifies a refused connection as the http probe does', async () => {
    const base = await start('pod-a');
    backends.at(-1)!.close();
    const reply = await probeFromHost(sweep(base, ['pod-a'], 4), 1000);
    expect(reply).to.deep.include({ result: 'refused', answers: [] });
    expect(reply.error).to.match(/^request 1 of 4: .*ECONNREFUSED/);
  });
});
