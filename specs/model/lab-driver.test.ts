/** sendProbe: which of the driver's three ways a cell's request leaves by, and what it names. */
import { expect } from 'chai';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import {
  hostNetworkSource,
  sendProbe,
  type DeployedPod,
  type ProbeReply,
  type ProbeRequest,
  type SuiteNode,
} from './lab-driver.ts';

const NODES: SuiteNode[] = [
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'outside', os: 'linux', role: 'worker', ip: '192.168.200.12' },
];
const REQUEST: ProbeRequest = { kind: 'http', url: 'http://10.96.0.20:80/hostname' };

/** A reply that only says which way the driver was asked, from where. */
const answer = (via: string) => Promise.resolve({ via } as unknown as ProbeReply);
/** A driver that says which way it was asked, from where. */
const recording = {
  probeFromPod: (pod: DeployedPod, _r: ProbeRequest, ms: number) =>
    answer(`pod ${pod.name} ${pod.ip} ${ms}`),
  probeFromOutside: (_r: ProbeRequest, ms: number) => answer(`outside ${ms}`),
  probeFromNode: (node: string, _r: ProbeRequest, ms: number) => answer(`node ${node} ${ms}`),
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
