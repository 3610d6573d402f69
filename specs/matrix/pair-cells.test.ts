/** Pairwise cells: what each one probes, and why a lab cannot host one (issue 36's survivors). */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from './expand-cells.ts';
import { hostNetworkPods, icmp, podToPod } from './pair-cells.ts';
import { MATRIX } from './rows.ts';
import { LAB, LINUX, WINDOWS, metas } from '../testing/small-lab.ts';

const node = (name: string, os: 'linux' | 'windows', ip: string): SuiteNode => ({
  name,
  os,
  role: name === 'cp1' ? 'control-plane' : 'worker',
  ip,
});
const HYBRID = [
  node('cp1', 'linux', '192.168.200.10'),
  node('lin1', 'linux', '192.168.200.11'),
  node('win1', 'windows', '192.168.200.13'),
  node('win2', 'windows', '192.168.200.14'),
];
const PAIRWISE = /^(pod-to-pod|pod-to-pod-udp|icmp|host-network-to-pod)\//;

describe('pairwise cells', () => {
  const w = fakeWorkloads(HYBRID);
  const ipOf = (name: string) => w.pods.find((p) => p.name === name)!.ip;

  it('a same-node cell reaches the other pod on the node, never the source pod itself (loopback)', () => {
    const sameNode = expandCells(MATRIX, HYBRID).filter(
      (c) => PAIRWISE.test(c.meta.row) && c.meta.placement === 'same-node',
    );
    expect(sameNode.length).to.be.above(10);
    for (const cell of sameNode) {
      const spec = cell.probe!(w);
      const node = cell.meta.source.node;
      const backend = `netexec-${node}-b`;
      expect(cell.meta.target, cell.meta.cell).to.include({ node, name: backend });
      expect(spec.from, cell.meta.cell).to.not.equal(backend);
      const { request, check } = spec;
      const host =
        request.kind === 'http'
          ? new URL(request.url).hostname
          : 'host' in request
            ? request.host
            : '';
      expect([ipOf(backend), `${backend}.netexec.ns.svc.cluster.local`], cell.meta.cell).to.include(
        host,
      );
      const reached =
        check.kind === 'source-ip'
          ? check.peer
          : check.kind === 'echo-reply'
            ? check.from
            : check.kind === 'body'
              ? check.expect
              : undefined;
      expect([ipOf(backend), backend], cell.meta.cell).to.include(reached);
    }
  });

  it('a cross-node cell reaches the source slot of the peer node', () => {
    const cell = expandCells(MATRIX, HYBRID).find(
      (c) => c.meta.cell === 'pod-to-pod/windows-to-linux/cross-node/win1/lin1/ip',
    )!;
    expect(cell.probe!(w)).to.deep.equal({
      from: 'netexec-win1-a',
      request: { kind: 'http', url: `http://${ipOf('netexec-lin1-a')}:8080/clientip` },
      check: { kind: 'source-ip', expect: ipOf('netexec-win1-a'), peer: ipOf('netexec-lin1-a') },
    });
  });

  it('on a Linux-only lab, a pair cell with a Windows end names Windows as what the lab lacks', () => {
    const linuxOnly = HYBRID.filter((n) => n.os === 'linux');
    const skipped = expandCells(MATRIX, linuxOnly).filter(
      (c) => PAIRWISE.test(c.meta.row) && c.meta.row.includes('windows'),
    );
    expect(skipped.map((c) => c.meta.row)).to.include.members([
      'pod-to-pod/linux-to-windows',
      'pod-to-pod/windows-to-linux',
      'pod-to-pod/windows-to-windows',
    ]);
    for (const cell of skipped) {
      expect(cell.probe, cell.meta.cell).to.equal(undefined);
      expect(cell.skip, cell.meta.cell).to.match(
        /^needs (a|two) windows nodes?; the lab has 0 windows nodes$/,
      );
    }
  });

  it('on a Windows-only lab, a pair cell with a Linux end names Linux', () => {
    const windowsOnly = HYBRID.filter((n) => n.os === 'windows');
    const cell = expandCells(MATRIX, windowsOnly).find(
      (c) => c.meta.row === 'pod-to-pod/windows-to-linux',
    )!;
    expect(cell.skip).to.equal('needs a linux node; the lab has 0 linux nodes');
    const same = expandCells(MATRIX, windowsOnly.slice(0, 1)).find(
      (c) => c.meta.row === 'icmp/windows-to-windows' && c.meta.placement === 'cross-node',
    )!;
    expect(same.skip).to.equal('needs two windows nodes; the lab has 1 windows node');
  });
});

describe('pairwise cells on a small lab: ids, titles, endpoints and skip reasons', () => {
  it('pod-to-pod: a cell per node (same-node) and per ordered node pair (cross-node), and via', () => {
    expect(
      metas(
        podToPod(
          {
            kind: 'pod-to-pod',
            from: 'linux',
            to: 'linux',
            placements: ['same-node', 'cross-node'],
            vias: ['ip', 'dns'],
          },
          LAB,
          { mode: 'full', peers: 1, rotation: 0 },
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/same-node/lin1/ip',
        via: 'ip',
        title: 'pod-to-pod linux-to-linux lin1 same-node via ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-b' },
        placement: 'same-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/same-node/lin1/dns',
        via: 'dns',
        title: 'pod-to-pod linux-to-linux lin1 same-node via dns',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-b' },
        placement: 'same-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/same-node/cp1/ip',
        via: 'ip',
        title: 'pod-to-pod linux-to-linux cp1 same-node via ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-b' },
        placement: 'same-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/same-node/cp1/dns',
        via: 'dns',
        title: 'pod-to-pod linux-to-linux cp1 same-node via dns',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-b' },
        placement: 'same-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/cross-node/lin1/cp1/ip',
        via: 'ip',
        title: 'pod-to-pod linux-to-linux lin1-to-cp1 cross-node via ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/cross-node/lin1/cp1/dns',
        via: 'dns',
        title: 'pod-to-pod linux-to-linux lin1-to-cp1 cross-node via dns',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/cross-node/cp1/lin1/ip',
        via: 'ip',
        title: 'pod-to-pod linux-to-linux cp1-to-lin1 cross-node via ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/cross-node/cp1/lin1/dns',
        via: 'dns',
        title: 'pod-to-pod linux-to-linux cp1-to-lin1 cross-node via dns',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        placement: 'cross-node',
      },
    ]);
  });

  it('pod-to-pod cross-node within an OS of one node skips, needing two', () => {
    expect(
      metas(
        podToPod(
          {
            kind: 'pod-to-pod-udp',
            from: 'windows',
            to: 'windows',
            placements: ['same-node', 'cross-node'],
            vias: ['ip'],
          },
          LAB,
          { mode: 'full', peers: 1, rotation: 0 },
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-pod-udp/windows-to-windows',
        cell: 'pod-to-pod-udp/windows-to-windows/same-node/win1/ip',
        via: 'ip',
        title: 'pod-to-pod-udp windows-to-windows win1 same-node via ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-b' },
        placement: 'same-node',
      },
      {
        row: 'pod-to-pod-udp/windows-to-windows',
        cell: 'pod-to-pod-udp/windows-to-windows/cross-node/none/none/ip',
        via: 'ip',
        title: 'pod-to-pod-udp windows-to-windows cross-node via ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'windows', node: '-', label: 'windows pod' },
        placement: 'cross-node',
        skip: 'needs two windows nodes; the lab has 1 windows node',
      },
    ]);
  });

  it('pod-to-pod without a node of the OS skips each placement and via, needing one', () => {
    expect(
      metas(
        podToPod(
          {
            kind: 'pod-to-pod',
            from: 'linux',
            to: 'linux',
            placements: ['same-node', 'cross-node'],
            vias: ['ip', 'dns'],
          },
          WINDOWS,
          { mode: 'full', peers: 1, rotation: 0 },
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/same-node/none/ip',
        via: 'ip',
        title: 'pod-to-pod linux-to-linux same-node via ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: 'linux pod' },
        placement: 'same-node',
        skip: 'needs a linux node; the lab has 0 linux nodes',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/same-node/none/dns',
        via: 'dns',
        title: 'pod-to-pod linux-to-linux same-node via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: 'linux pod' },
        placement: 'same-node',
        skip: 'needs a linux node; the lab has 0 linux nodes',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/cross-node/none/none/ip',
        via: 'ip',
        title: 'pod-to-pod linux-to-linux cross-node via ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: 'linux pod' },
        placement: 'cross-node',
        skip: 'needs two linux nodes; the lab has 0 linux nodes',
      },
      {
        row: 'pod-to-pod/linux-to-linux',
        cell: 'pod-to-pod/linux-to-linux/cross-node/none/none/dns',
        via: 'dns',
        title: 'pod-to-pod linux-to-linux cross-node via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: 'linux pod' },
        placement: 'cross-node',
        skip: 'needs two linux nodes; the lab has 0 linux nodes',
      },
    ]);
  });

  it('icmp without a node of the target OS skips, its ends blank', () => {
    expect(
      metas(
        icmp({ kind: 'icmp', from: 'linux', to: 'windows', placements: ['cross-node'] }, LINUX, {
          mode: 'full',
          peers: 1,
          rotation: 0,
        }),
      ),
    ).to.deep.equal([
      {
        row: 'icmp/linux-to-windows',
        cell: 'icmp/linux-to-windows/cross-node/none/none/ip',
        via: 'ip',
        title: 'icmp linux-to-windows cross-node via ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', label: 'windows pod' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it("host-network-to-pod: each node's own network toward the pods of the others", () => {
    expect(
      metas(
        hostNetworkPods(
          { kind: 'host-network-to-pod', from: 'windows', to: 'linux', placements: ['cross-node'] },
          LAB,
          { mode: 'full', peers: 1, rotation: 0 },
        ),
      ),
    ).to.deep.equal([
      {
        row: 'host-network-to-pod/windows-to-linux',
        cell: 'host-network-to-pod/windows-to-linux/cross-node/win1/lin1/ip',
        via: 'ip',
        title: 'host-network-to-pod windows-to-linux win1-to-lin1 cross-node via ip',
        source: { os: 'windows', node: 'win1', name: 'host-network', label: 'windows node' },
        target: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        placement: 'cross-node',
      },
      {
        row: 'host-network-to-pod/windows-to-linux',
        cell: 'host-network-to-pod/windows-to-linux/cross-node/win1/cp1/ip',
        via: 'ip',
        title: 'host-network-to-pod windows-to-linux win1-to-cp1 cross-node via ip',
        source: { os: 'windows', node: 'win1', name: 'host-network', label: 'windows node' },
        target: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        placement: 'cross-node',
      },
    ]);
  });

  it('host-network-to-pod without a node of the target OS skips, its ends blank', () => {
    expect(
      metas(
        hostNetworkPods(
          { kind: 'host-network-to-pod', from: 'linux', to: 'windows', placements: ['cross-node'] },
          LINUX,
          { mode: 'full', peers: 1, rotation: 0 },
        ),
      ),
    ).to.deep.equal([
      {
        row: 'host-network-to-pod/linux-to-windows',
        cell: 'host-network-to-pod/linux-to-windows/cross-node/none/none/ip',
        via: 'ip',
        title: 'host-network-to-pod linux-to-windows cross-node via ip',
        source: { os: 'linux', node: '-', name: 'host-network', label: 'linux node' },
        target: { os: 'windows', node: '-', label: 'windows pod' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-host-network without a node of the target OS skips, its ends blank', () => {
    expect(
      metas(
        hostNetworkPods(
          { kind: 'pod-to-host-network', from: 'linux', to: 'windows', placements: ['cross-node'] },
          LINUX,
          { mode: 'full', peers: 1, rotation: 0 },
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-host-network/linux-to-windows',
        cell: 'pod-to-host-network/linux-to-windows/cross-node/none/none/ip',
        via: 'ip',
        title: 'pod-to-host-network linux-to-windows cross-node via ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'host-network', label: 'windows node' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-pod over UDP asks the far pod for the client address and must see the source', () => {
    const [cell] = podToPod(
      {
        kind: 'pod-to-pod-udp',
        from: 'linux',
        to: 'windows',
        placements: ['cross-node'],
        vias: ['ip'],
      },
      LAB,
    );
    const w = fakeWorkloads(LAB);
    expect(cell!.probe!(w)).to.deep.include({
      request: { kind: 'udp', host: '10.244.2.10', port: 8081, message: 'clientip' },
      check: { kind: 'source-ip', expect: '10.244.1.10', peer: '10.244.2.10' },
    });
  });
});
