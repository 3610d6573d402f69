/** Pairwise cells: what each one probes, and why a lab cannot host one (issue 36's survivors). */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from './expand-cells.ts';
import { MATRIX } from './rows.ts';

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
