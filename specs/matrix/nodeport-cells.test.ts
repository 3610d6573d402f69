/** NodePort cells: via which nodes each row goes, how its cells are named, and why a lab skips them. */
import { expect } from 'chai';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { hostNetworkToOwnNodePort, nodePort, nodePortLocal } from './nodeport-cells.ts';
import { LAB, LINUX, WINDOWS, metas } from '../testing/small-lab.ts';

describe('NodePort cells', () => {
  const w = fakeWorkloads(LAB);

  it('nodeport: from outside via every node of the OS', () => {
    expect(metas(nodePort({ kind: 'nodeport', to: 'linux' }, LAB))).to.deep.equal([
      {
        row: 'nodeport/external-to-linux-node',
        cell: 'nodeport/external-to-linux-node/cp1/node-ip',
        via: 'node-ip',
        title: 'nodeport external-to-linux-node cp1 via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'linux', node: 'cp1', label: 'linux node' },
        placement: '',
      },
      {
        row: 'nodeport/external-to-linux-node',
        cell: 'nodeport/external-to-linux-node/lin1/node-ip',
        via: 'node-ip',
        title: 'nodeport external-to-linux-node lin1 via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'linux', node: 'lin1', label: 'linux node' },
        placement: '',
      },
    ]);
  });

  it('nodeport without a node of the OS skips, naming it', () => {
    expect(metas(nodePort({ kind: 'nodeport-udp', to: 'windows' }, LINUX))).to.deep.equal([
      {
        row: 'nodeport-udp/external-to-windows-node',
        cell: 'nodeport-udp/external-to-windows-node/none/node-ip',
        via: 'node-ip',
        title: 'nodeport-udp external-to-windows-node via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'windows', node: '-', label: 'windows node' },
        placement: '',
        skip: 'the lab has no windows nodes',
      },
    ]);
  });

  it('nodeport-local: via the nodes with a local endpoint (all but the last of the OS)', () => {
    expect(metas(nodePortLocal({ kind: 'nodeport-local', to: 'linux' }, LAB))).to.deep.equal([
      {
        row: 'nodeport-local/external-to-linux-node',
        cell: 'nodeport-local/external-to-linux-node/cp1/node-ip',
        via: 'node-ip',
        title: 'nodeport-local external-to-linux-node cp1 with a local endpoint via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'linux', node: 'cp1', name: 'local-linux', label: 'linux node' },
        placement: '',
      },
    ]);
  });

  it('nodeport-local-none: via the nodes without one', () => {
    expect(metas(nodePortLocal({ kind: 'nodeport-local-none', to: 'linux' }, LAB))).to.deep.equal([
      {
        row: 'nodeport-local-none/external-to-linux-node',
        cell: 'nodeport-local-none/external-to-linux-node/lin1/node-ip',
        via: 'node-ip',
        title:
          'nodeport-local-none external-to-linux-node lin1 without a local endpoint via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'linux', node: 'lin1', name: 'local-linux', label: 'linux node' },
        placement: '',
      },
    ]);
  });

  it('nodeport-local without a node of the OS skips, needing one', () => {
    expect(metas(nodePortLocal({ kind: 'nodeport-local', to: 'windows' }, LINUX))).to.deep.equal([
      {
        row: 'nodeport-local/external-to-windows-node',
        cell: 'nodeport-local/external-to-windows-node/none/node-ip',
        via: 'node-ip',
        title: 'nodeport-local external-to-windows-node - with a local endpoint via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'windows', node: '-', name: 'local-windows', label: 'windows node' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('nodeport-local-none with a single node of the OS skips, needing two', () => {
    expect(metas(nodePortLocal({ kind: 'nodeport-local-none', to: 'windows' }, LAB))).to.deep.equal(
      [
        {
          row: 'nodeport-local-none/external-to-windows-node',
          cell: 'nodeport-local-none/external-to-windows-node/none/node-ip',
          via: 'node-ip',
          title:
            'nodeport-local-none external-to-windows-node - without a local endpoint via node-ip',
          source: { os: 'external', node: 'outside', label: 'external' },
          target: { os: 'windows', node: '-', name: 'local-windows', label: 'windows node' },
          placement: '',
          skip: 'needs two windows nodes; the lab has 1 windows node',
        },
      ],
    );
  });

  it("host-network-to-own-nodeport: each node's own network via its own address", () => {
    expect(
      metas(hostNetworkToOwnNodePort({ kind: 'host-network-to-own-nodeport', from: 'linux' }, LAB)),
    ).to.deep.equal([
      {
        row: 'host-network-to-own-nodeport/linux',
        cell: 'host-network-to-own-nodeport/linux/lin1/node-ip',
        via: 'node-ip',
        title: 'host-network-to-own-nodeport linux lin1 via node-ip',
        source: { os: 'linux', node: 'lin1', name: 'host-network', label: 'linux node' },
        target: { os: 'linux', node: 'lin1', name: 'web-linux', label: 'linux node' },
        placement: '',
      },
      {
        row: 'host-network-to-own-nodeport/linux',
        cell: 'host-network-to-own-nodeport/linux/cp1/node-ip',
        via: 'node-ip',
        title: 'host-network-to-own-nodeport linux cp1 via node-ip',
        source: { os: 'linux', node: 'cp1', name: 'host-network', label: 'linux node' },
        target: { os: 'linux', node: 'cp1', name: 'web-linux', label: 'linux node' },
        placement: '',
      },
    ]);
  });

  it('host-network-to-own-nodeport without a node of the OS skips, naming it', () => {
    expect(
      metas(
        hostNetworkToOwnNodePort({ kind: 'host-network-to-own-nodeport', from: 'linux' }, WINDOWS),
      ),
    ).to.deep.equal([
      {
        row: 'host-network-to-own-nodeport/linux',
        cell: 'host-network-to-own-nodeport/linux/none/node-ip',
        via: 'node-ip',
        title: 'host-network-to-own-nodeport linux via node-ip',
        source: { os: 'linux', node: '-', name: 'host-network', label: 'linux node' },
        target: { os: 'linux', node: '-', name: 'web-linux', label: 'linux node' },
        placement: '',
        skip: 'the lab has no linux nodes',
      },
    ]);
  });

  it('nodeport sweeps the TCP node port over HTTP and the UDP one over UDP', () => {
    const [tcp] = nodePort({ kind: 'nodeport', to: 'windows' }, LAB);
    const [udp] = nodePort({ kind: 'nodeport-udp', to: 'windows' }, LAB);
    expect(tcp!.probe!(w).request).to.deep.include({ base: 'http://192.168.200.13:30081' });
    expect(udp!.probe!(w).request).to.deep.include({ base: 'udp://192.168.200.13:30181' });
  });

  it('a nodeport-local probe without the Local Service deployed is an error naming it', () => {
    const [cell] = nodePortLocal({ kind: 'nodeport-local', to: 'linux' }, LAB);
    expect(() => cell!.probe!({ ...w, local: [] })).to.throw(
      'service local-linux was not deployed',
    );
  });
});
