/** Cell parts: endpoints of pods and nodes, and what a cell of missing workloads says. */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { hostEnd, hostNetexec, pod, podEnd, service } from './cell-parts.ts';

const NODES: SuiteNode[] = [{ name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' }];

describe('cell parts', () => {
  const w = fakeWorkloads(NODES);

  it('a pod end is labelled by its OS and named only when a pod is named', () => {
    expect(podEnd('windows', '-')).to.deep.equal({
      os: 'windows',
      node: '-',
      label: 'windows pod',
    });
    expect(podEnd('linux', 'lin1', 'netexec-lin1-a')).to.deep.equal({
      os: 'linux',
      node: 'lin1',
      label: 'linux pod',
      name: 'netexec-lin1-a',
    });
    expect(hostEnd('windows', 'win1')).to.deep.equal({
      os: 'windows',
      node: 'win1',
      name: 'host-network',
      label: 'windows node',
    });
  });

  it('a pod, Service or host netexec that was not deployed is an error naming it', () => {
    expect(() => pod(w, 'netexec-lin9-a')).to.throw('pod netexec-lin9-a was not deployed');
    expect(() => service({ ...w, services: [] }, 'windows')).to.throw(
      'service web-windows was not deployed',
    );
    expect(() => hostNetexec(w, 'win1')).to.throw('no host-network netexec was deployed on win1');
  });
});
