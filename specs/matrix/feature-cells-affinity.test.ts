/** Service-feature cells on a small lab: affinity, and feature cells of a driver without the feature Services. */
import { expect } from 'chai';
import type { Workloads } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { affinity, dualProtocol, internalLocal } from './feature-cells.ts';
import { LAB, LINUX, metas } from '../testing/feature-cells-fixtures.ts';

describe('Service-feature cells on a small lab: ids, titles, endpoints and skip reasons', () => {
  it('affinity: a sticky and an across-the-timeout cell per source node, naming every backend node', () => {
    expect(metas(affinity({ kind: 'affinity', from: 'windows', to: 'linux' }, LAB))).to.deep.equal([
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/sticky/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux win1-to-lin1+cp1 sticky via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
      },
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/timeout/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux win1-to-lin1+cp1 across the timeout via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
      },
    ]);
  });

  it('affinity toward an OS with one node skips both variants: one endpoint cannot tell', () => {
    expect(metas(affinity({ kind: 'affinity', from: 'linux', to: 'windows' }, LAB))).to.deep.equal([
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/sticky/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows sticky via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: 'win1', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs two windows endpoints to tell a sticky Service from one that is not; the lab has 1 windows node',
      },
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/timeout/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows timeout via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: 'win1', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs two windows endpoints to tell a sticky Service from one that is not; the lab has 1 windows node',
      },
    ]);
  });

  it('affinity without a node of the Service OS skips, naming it', () => {
    expect(
      metas(affinity({ kind: 'affinity', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/sticky/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows sticky via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/timeout/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows timeout via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('affinity without a source node skips, naming the source OS', () => {
    expect(
      metas(affinity({ kind: 'affinity', from: 'windows', to: 'linux' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/sticky/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux sticky via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/timeout/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux timeout via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('a feature cell of a driver without the feature Services fails naming what is missing', () => {
    const w = fakeWorkloads(LAB);
    const [sticky, timeout] = affinity({ kind: 'affinity', from: 'windows', to: 'linux' }, LAB);
    const bare: Workloads = { ...w };
    delete bare.features;
    expect(() => sticky!.probe!(bare)).to.throw('no Service-feature Services were deployed');
    const none = { ...w, features: { ...w.features!, affinity: [], affinityTimeout: [] } };
    expect(() => sticky!.probe!(none)).to.throw('no affinity Service of linux was deployed');
    expect(() => timeout!.probe!(none)).to.throw(
      'no affinity timeout Service of linux was deployed',
    );
    const [local] = internalLocal({ kind: 'internal-local', from: 'linux', to: 'linux' }, LAB);
    expect(() => local!.probe!({ ...w, features: { ...w.features!, internalLocal: [] } })).to.throw(
      'no internalTrafficPolicy Local Service of linux was deployed',
    );
    const [dual] = dualProtocol({ kind: 'dual-protocol', from: 'linux', to: 'windows' }, LAB);
    expect(() => dual!.probe!({ ...w, features: { ...w.features!, dualProtocol: [] } })).to.throw(
      'no dual-protocol Service of windows was deployed',
    );
  });
});
