/** Service-feature cells on a small lab: pod-to-nodeport. */
import { expect } from 'chai';
import { podToNodePort } from './feature-cells.ts';
import { LAB, LINUX, metas } from '../testing/feature-cells-fixtures.ts';

describe('Service-feature cells on a small lab: ids, titles, endpoints and skip reasons', () => {
  it('pod-to-nodeport: each source node via its own node (same-node) and each other node (cross-node)', () => {
    expect(
      metas(podToNodePort({ kind: 'pod-to-nodeport', from: 'windows', to: 'linux' }, LAB)),
    ).to.deep.equal([
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/cross-node/win1/lin1/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux win1-to-lin1 cross-node via node-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1', name: 'web-linux', label: 'linux node' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/cross-node/win1/cp1/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux win1-to-cp1 cross-node via node-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'cp1', name: 'web-linux', label: 'linux node' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/same-node/win1/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux win1-to-win1 same-node via node-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'windows', node: 'win1', name: 'web-linux', label: 'windows node' },
        placement: 'same-node',
      },
    ]);
  });

  it('pod-to-nodeport without a node of the Service OS skips both placements, naming it', () => {
    expect(
      metas(podToNodePort({ kind: 'pod-to-nodeport', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'pod-to-nodeport/linux-to-windows',
        cell: 'pod-to-nodeport/linux-to-windows/same-node/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport linux-to-windows same-node via node-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows node' },
        placement: 'same-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-nodeport/linux-to-windows',
        cell: 'pod-to-nodeport/linux-to-windows/cross-node/none/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport linux-to-windows cross-node via node-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows node' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-nodeport without a source node skips both placements, naming the source OS', () => {
    expect(
      metas(podToNodePort({ kind: 'pod-to-nodeport', from: 'windows', to: 'linux' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/same-node/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux same-node via node-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'web-linux', label: 'linux node' },
        placement: 'same-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/cross-node/none/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux cross-node via node-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'web-linux', label: 'linux node' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });
});
