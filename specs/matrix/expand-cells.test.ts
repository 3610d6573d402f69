import { expect } from 'chai';
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from './expand-cells.ts';
import { MATRIX } from './rows.ts';

const node = (
  name: string,
  os: 'linux' | 'windows',
  role: 'control-plane' | 'worker',
  ip: string,
): SuiteNode => ({ name, os, role, ip });
const HYBRID = [
  node('cp1', 'linux', 'control-plane', '192.168.200.10'),
  node('lin1', 'linux', 'worker', '192.168.200.11'),
  node('lin2', 'linux', 'worker', '192.168.200.12'),
  node('win1', 'windows', 'worker', '192.168.200.13'),
  node('win2', 'windows', 'worker', '192.168.200.14'),
];

const workloads = (nodes: SuiteNode[]): Workloads => fakeWorkloads(nodes);

describe('matrix expansion', () => {
  const cells = expandCells(MATRIX, HYBRID);

  it('covers every row of DESIGN §7 with stable kebab-case ids', () => {
    expect([...new Set(cells.map((c) => c.meta.row))]).to.deep.equal([
      'pod-to-pod/windows-to-windows',
      'pod-to-pod/windows-to-linux',
      'pod-to-pod/linux-to-windows',
      'pod-to-pod/linux-to-linux',
      'large-response/windows-to-windows',
      'large-response/windows-to-linux',
      'large-response/linux-to-windows',
      'large-response/linux-to-linux',
      'pod-to-service/linux-to-windows',
      'pod-to-service/windows-to-linux',
      'pod-to-service/linux-to-linux',
      'pod-to-service/windows-to-windows',
      'nodeport/external-to-windows-node',
      'nodeport/external-to-linux-node',
      'outbound-nat/linux',
      'outbound-nat/windows',
      'dns/short-name/linux',
      'dns/fqdn/linux',
      'dns/search-list/linux',
      'dns/short-name/windows',
      'dns/fqdn/windows',
      'dns/search-list/windows',
    ]);
    for (const c of cells) expect(c.meta.cell).to.match(/^[a-z0-9/-]+$/);
    expect(new Set(cells.map((c) => c.meta.cell)).size).to.equal(cells.length);
  });

  it('hosts every cell on the default lab (40 cells, none skipped)', () => {
    expect(cells).to.have.length(40);
    expect(cells.filter((c) => c.skip !== undefined)).to.deep.equal([]);
  });

  it('titles carry the tags --grep selects on', () => {
    const titles = cells.map((c) => c.meta.title);
    expect(titles).to.include('pod-to-pod windows-to-linux cross-node via dns');
    expect(titles).to.include('nodeport external-to-windows-node win2 via node-ip');
    expect(titles.filter((t) => /dns/.test(t))).to.have.length.greaterThan(10);
  });

  it('skips with a reason what a lab with one Windows node cannot host', () => {
    const small = expandCells(
      MATRIX,
      HYBRID.filter((n) => n.name !== 'win2' && n.name !== 'lin2'),
    );
    const skipped = small.filter((c) => c.skip !== undefined);
    expect(skipped.map((c) => c.meta.cell)).to.deep.equal([
      'pod-to-pod/windows-to-windows/cross-node/ip',
      'pod-to-pod/windows-to-windows/cross-node/dns',
      'large-response/windows-to-windows/cross-node/ip',
    ]);
    expect(skipped[0]!.skip).to.equal('needs two windows nodes; the lab has 1 windows node');
  });

  it('keeps Windows rows as skipped cells on a Linux-only lab instead of dropping them', () => {
    const linuxOnly = expandCells(
      MATRIX,
      HYBRID.filter((n) => n.os === 'linux'),
    );
    const outbound = linuxOnly.filter((c) => c.meta.row === 'outbound-nat/windows');
    expect(outbound).to.have.length(1);
    expect(outbound[0]!.skip).to.equal('the lab has no windows nodes');
  });

  it('asks pod-to-pod cells to see the source pod IP, outbound NAT the node IP', () => {
    const w = workloads(HYBRID);
    const p2p = cells.find((c) => c.meta.cell === 'pod-to-pod/linux-to-windows/cross-node/dns')!
      .probe!(w);
    expect(p2p.from).to.equal('netexec-lin1-a');
    expect(p2p.request).to.deep.equal({
      kind: 'http',
      url: 'http://netexec-win1-a.netexec.ns.svc.cluster.local:8080/clientip',
    });
    expect(p2p.check).to.deep.equal({
      kind: 'source-ip',
      expect: w.pods.find((p) => p.name === 'netexec-lin1-a')!.ip,
      // The name must have led to netexec-win1-a itself.
      peer: w.pods.find((p) => p.name === 'netexec-win1-a')!.ip,
    });
    const nat = cells.find((c) => c.meta.cell === 'outbound-nat/windows/win2/ip')!.probe!(w);
    expect(nat.check).to.deep.equal({ kind: 'source-ip', expect: '192.168.200.14' });
    const search = cells.find((c) => c.meta.cell === 'dns/search-list/windows/dns')!.probe!(w);
    // Looked up with curl to the port the kubernetes Service answers (443): no wait on port 80.
    expect(search.request).to.deep.equal({ kind: 'dns', name: 'kubernetes.default', port: 443 });
    expect(search.check).to.deep.equal({ kind: 'answer', expect: '10.96.0.1' });
  });

  it('asks large-response cells for a body of several packets from a pod on another node', () => {
    const w = workloads(HYBRID);
    const big = cells.find((c) => c.meta.cell === 'large-response/windows-to-linux/cross-node/ip')!;
    expect(big.meta.source.node).to.equal('win1');
    expect(big.meta.target.node).to.equal('lin1');
    const spec = big.probe!(w);
    const target = w.pods.find((p) => p.name === 'netexec-lin1-a')!;
    expect(spec.request).to.deep.equal({
      kind: 'http',
      url: `http://${target.ip}:8080/echo?msg=${'x'.repeat(8192)}`,
    });
    expect(spec.check).to.deep.equal({ kind: 'bytes', expect: 8192 });
  });
});
