/** sendProbe: which of the driver's three ways a cell's request leaves by, and what it names. */
import { expect } from 'chai';
import type { ProbeReply, ProbeRequest } from '../model/cell-plan.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { hostNetworkSource, sendProbe, type DeployedPod, type SuiteNode } from './lab-driver.ts';

const NODES: SuiteNode[] = [
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'outside', os: 'linux', role: 'worker', ip: '192.168.200.12' },
];
const REQUEST: ProbeRequest = { kind: 'http', url: 'http://10.96.0.20:80/hostname' };

/** A driver that says which way it was asked, from where. */
const recording = {
  probeFromPod: async (pod: DeployedPod, _r: ProbeRequest, ms: number) =>
    ({ via: `pod ${pod.name} ${pod.ip} ${ms}` }) as unknown as ProbeReply,
  probeFromOutside: async (_r: ProbeRequest, ms: number) =>
    ({ via: `outside ${ms}` }) as unknown as ProbeReply,
  probeFromNode: async (node: string, _r: ProbeRequest, ms: number) =>
    ({ via: `node ${node} ${ms}` }) as unknown as ProbeReply,
};

describe('sendProbe', () => {
  const w = fakeWorkloads(NODES);
  const send = (from: string) =>
    sendProbe(recording, w, { from, request: REQUEST, check: { kind: 'refused' } }, 500);

  it('sends from outside, from a node named after the host-network prefix, or from the named pod', async () => {
    expect(await send('outside')).to.deep.equal({ via: 'outside 500' });
    expect(await send(hostNetworkSource('outside'))).to.deep.equal({ via: 'node outside 500' });
    expect(await send('netexec-lin1-b')).to.deep.equal({
      via: 'pod netexec-lin1-b 10.244.0.11 500',
    });
  });

  it('a pod that was not deployed is an error naming it', () => {
    expect(() => send('netexec-lin9-a')).to.throw('pod netexec-lin9-a is not deployed');
    expect(() => send('lin1:host-network:')).to.throw('pod lin1:host-network: is not deployed');
  });
});
