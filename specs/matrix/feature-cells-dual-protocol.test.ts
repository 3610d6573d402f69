/** Service-feature cells on a small lab: dual-protocol. */
import { expect } from 'chai';
import { dualProtocol } from './feature-cells.ts';
import { LAB, LINUX, metas } from '../testing/feature-cells-fixtures.ts';

describe('Service-feature cells on a small lab: ids, titles, endpoints and skip reasons', () => {
  it('dual-protocol: a TCP and a UDP cell per source node', () => {
    expect(
      metas(dualProtocol({ kind: 'dual-protocol', from: 'linux', to: 'windows' }, LAB)),
    ).to.deep.equal([
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/tcp/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows lin1-to-win1 tcp via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/udp/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows lin1-to-win1 udp via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/tcp/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows cp1-to-win1 tcp via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/udp/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows cp1-to-win1 udp via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
    ]);
  });

  it('dual-protocol without a node of the Service OS skips, naming it', () => {
    expect(
      metas(dualProtocol({ kind: 'dual-protocol', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/tcp/none/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows tcp via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'dual-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/udp/none/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows udp via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'dual-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('dual-protocol titles name every backend node', () => {
    const [cell] = dualProtocol({ kind: 'dual-protocol', from: 'windows', to: 'linux' }, LAB);
    expect(cell!.meta.title).to.equal(
      'dual-protocol windows-to-linux win1-to-lin1+cp1 tcp via cluster-ip',
    );
  });
});
