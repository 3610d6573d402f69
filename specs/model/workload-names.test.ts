/** Workload names: pod slots and DNS labels built on node names. */
import { expect } from 'chai';
import { dnsLabel, hostNetworkPod, slotOf } from './workload-names.ts';

describe('workload names', () => {
  it('a DNS label has no dots, at most 63 characters, and no trailing dashes', () => {
    expect(hostNetworkPod('node.example.com')).to.equal('host-node-example-com');
    expect(dnsLabel(`${'a'.repeat(60)}.--.b`)).to.equal('a'.repeat(60));
    expect(dnsLabel('node')).to.equal('node');
  });

  it("a pod's slot is its last letter after a dash; anything else is the source slot", () => {
    expect(slotOf('netexec-lin1-b')).to.equal('b');
    expect(slotOf('netexec-lin1-b2')).to.equal('a');
  });
});
