/** Matrix expansion of the default lab: the rows, ids, placements, titles and skips. */
import { expect } from 'chai';
import { expandCells } from './expand-cells.ts';
import { MATRIX } from './rows.ts';
import { HYBRID } from '../testing/expand-cells-fixtures.ts';

describe('matrix expansion', () => {
  const cells = expandCells(MATRIX, HYBRID);

  it('covers every row of the matrix (docs/suite.md), pod-to-pod and pod-to-service over UDP, and DNS over TCP, with stable kebab-case ids', () => {
    expect([...new Set(cells.map((c) => c.meta.row))]).to.deep.equal([
      'pod-to-pod/windows-to-windows',
      'pod-to-pod/windows-to-linux',
      'pod-to-pod/linux-to-windows',
      'pod-to-pod/linux-to-linux',
      'pod-to-pod-udp/windows-to-windows',
      'pod-to-pod-udp/windows-to-linux',
      'pod-to-pod-udp/linux-to-windows',
      'pod-to-pod-udp/linux-to-linux',
      'large-response/windows-to-windows',
      'large-response/windows-to-linux',
      'large-response/linux-to-windows',
      'large-response/linux-to-linux',
      'pod-to-service/linux-to-windows',
      'pod-to-service/windows-to-linux',
      'pod-to-service/linux-to-linux',
      'pod-to-service/windows-to-windows',
      'pod-to-service-udp/linux-to-windows',
      'pod-to-service-udp/windows-to-linux',
      'pod-to-service-udp/linux-to-linux',
      'pod-to-service-udp/windows-to-windows',
      'hairpin/linux',
      'hairpin/windows',
      'host-network-to-pod/windows-to-windows',
      'host-network-to-pod/windows-to-linux',
      'host-network-to-pod/linux-to-windows',
      'host-network-to-pod/linux-to-linux',
      'pod-to-host-network/windows-to-windows',
      'pod-to-host-network/windows-to-linux',
      'pod-to-host-network/linux-to-windows',
      'pod-to-host-network/linux-to-linux',
      'host-network-to-service/linux-to-windows',
      'host-network-to-service/windows-to-linux',
      'host-network-to-service/linux-to-linux',
      'host-network-to-service/windows-to-windows',
      'host-network-to-own-nodeport/linux',
      'host-network-to-own-nodeport/windows',
      'nodeport/external-to-windows-node',
      'nodeport/external-to-linux-node',
      'nodeport-udp/external-to-windows-node',
      'nodeport-udp/external-to-linux-node',
      'nodeport-local/external-to-windows-node',
      'nodeport-local/external-to-linux-node',
      'nodeport-local-none/external-to-windows-node',
      'nodeport-local-none/external-to-linux-node',
      'outbound-nat/linux',
      'outbound-nat/windows',
      'icmp/windows-to-windows',
      'icmp/windows-to-linux',
      'icmp/linux-to-windows',
      'icmp/linux-to-linux',
      'icmp-outbound/linux',
      'icmp-outbound/windows',
      'dns/short-name/linux',
      'dns/fqdn/linux',
      'dns/search-list/linux',
      'dns/short-name/windows',
      'dns/fqdn/windows',
      'dns/search-list/windows',
      'dns-tcp/linux',
      'dns-tcp/windows',
      'pod-to-nodeport/linux-to-linux',
      'pod-to-nodeport/linux-to-windows',
      'pod-to-nodeport/windows-to-linux',
      'pod-to-nodeport/windows-to-windows',
      'affinity/linux-to-linux',
      'affinity/linux-to-windows',
      'affinity/windows-to-linux',
      'affinity/windows-to-windows',
      'health-check-nodeport/external-to-linux-service',
      'health-check-nodeport/external-to-windows-service',
      'external-name/linux',
      'external-name/windows',
      'dual-protocol/linux-to-linux',
      'dual-protocol/linux-to-windows',
      'dual-protocol/windows-to-linux',
      'dual-protocol/windows-to-windows',
      'pod-to-apiserver/linux',
      'pod-to-apiserver/windows',
      'internal-local/linux-to-linux',
      'internal-local/linux-to-windows',
      'internal-local/windows-to-linux',
      'internal-local/windows-to-windows',
      'churn/linux-to-linux',
      'churn/windows-to-linux',
      'churn/linux-to-windows',
      'churn/windows-to-windows',
    ]);
    for (const c of cells) expect(c.meta.cell).to.match(/^[a-z0-9/-]+$/);
    expect(new Set(cells.map((c) => c.meta.cell)).size).to.equal(cells.length);
  });

  it('hosts every cell on the default lab (470 cells, none skipped)', () => {
    expect(cells).to.have.length(470);
    expect(cells.filter((c) => c.skip !== undefined)).to.deep.equal([]);
  });

  it('makes every node a source and a target: each ordered pair cross-node, each node same-node', () => {
    const names = HYBRID.map((n) => n.name);
    for (const [row, via] of ['pod-to-pod/', 'pod-to-pod-udp/'].flatMap((r) =>
      ['ip', 'dns'].map((v) => [r, v] as const),
    )) {
      const of = cells.filter((c) => c.meta.row.startsWith(row) && c.meta.via === via);
      const pairs = of.map((c) => `${c.meta.source.node}>${c.meta.target.node}`).sort();
      const expected = names.flatMap((a) => names.map((b) => `${a}>${b}`));
      expect(pairs, `${row} ${via}`).to.deep.equal(expected.sort());
    }
    const large = cells.filter((c) => c.meta.row.startsWith('large-response/'));
    expect(large).to.have.length(names.length * (names.length - 1));
    for (const [row, via] of ['host-network-to-pod/', 'pod-to-host-network/', 'icmp/'].map(
      (r) => [r, 'ip'] as const,
    )) {
      const of = cells.filter((c) => c.meta.row.startsWith(row) && c.meta.via === via);
      const pairs = of.map((c) => `${c.meta.source.node}>${c.meta.target.node}`).sort();
      const expected = names.flatMap((a) => names.map((b) => `${a}>${b}`));
      expect(pairs, row).to.deep.equal(expected.sort());
    }
    for (const row of [
      'outbound-nat/',
      'dns/fqdn/',
      'dns-tcp/',
      'pod-to-service/',
      'hairpin/',
      'host-network-to-service/',
      'host-network-to-own-nodeport/',
    ]) {
      const sources = new Set(
        cells.filter((c) => c.meta.row.startsWith(row)).map((c) => c.meta.source.node),
      );
      expect([...sources].sort(), row).to.deep.equal([...names].sort());
    }
  });

  it('titles carry the tags --grep selects on, node names included', () => {
    const titles = cells.map((c) => c.meta.title);
    expect(titles).to.include('pod-to-pod windows-to-linux win2-to-lin1 cross-node via ip');
    expect(titles).to.include('pod-to-pod linux-to-linux lin2 same-node via dns');
    expect(titles).to.include('pod-to-pod-udp linux-to-windows lin1-to-win2 cross-node via ip');
    expect(titles).to.include('pod-to-service linux-to-windows cp1-to-win1+win2 via cluster-ip');
    expect(titles).to.include('nodeport external-to-windows-node win2 via node-ip');
    expect(titles).to.include('dns search-list from windows win2 via dns');
    expect(titles).to.include('dns over tcp from linux lin2 via dns');
    expect(titles).to.include(
      'churn linux-to-windows backend-recreated lin1-to-win1+win2 via cluster-ip',
    );
    expect(titles).to.include('churn windows-to-linux scaled-to-zero win2-to-none via cluster-ip');
    expect(titles).to.include(
      'nodeport-local external-to-windows-node win1 with a local endpoint via node-ip',
    );
    expect(titles).to.include(
      'nodeport-local-none external-to-linux-node lin2 without a local endpoint via node-ip',
    );
    // --grep win2: exactly the cells whose probe starts or ends on win2 (Services: a backend there).
    const touching = cells.filter(
      (c) => c.meta.source.node === 'win2' || c.meta.target.node.split(',').includes('win2'),
    );
    expect(cells.filter((c) => c.meta.title.includes('win2'))).to.deep.equal(touching);
    // Today's greps still select their rows, and the Service features' (pod-to-nodeport, the
    // health-check node port, a Local policy, one port for TCP and UDP, names) theirs too.
    const count = (word: string) => titles.filter((t) => t.includes(word)).length;
    expect(count('nodeport')).to.equal(20 + 50 + 10);
    expect(count('local')).to.equal(5 + 10 + 10);
    expect(count('host-network')).to.equal(25 + 25 + 10 + 5);
    expect(count('outbound-nat')).to.equal(5);
    expect(count('cross-node')).to.equal(160 + 40);
    expect(count('icmp')).to.equal(25 + 5);
    expect(count('udp')).to.equal(75 + 10);
    expect(count('hairpin')).to.equal(10);
    expect(count('churn')).to.equal(40);
    expect(count('tcp')).to.equal(5 + 10);
    expect(titles.filter((t) => /dns/.test(t))).to.have.length(
      25 + 25 + 10 + 10 + 5 + 15 + 5 + 5 + 5,
    );
  });

  it('skips with a reason what a lab with one Windows node cannot host', () => {
    const small = expandCells(
      MATRIX,
      HYBRID.filter((n) => n.name !== 'win2' && n.name !== 'lin2'),
    );
    const skipped = small.filter((c) => c.skip !== undefined);
    expect(skipped.map((c) => c.meta.cell)).to.deep.equal([
      'pod-to-pod/windows-to-windows/cross-node/none/none/ip',
      'pod-to-pod/windows-to-windows/cross-node/none/none/dns',
      'pod-to-pod-udp/windows-to-windows/cross-node/none/none/ip',
      'pod-to-pod-udp/windows-to-windows/cross-node/none/none/dns',
      'large-response/windows-to-windows/cross-node/none/none/ip',
      'host-network-to-pod/windows-to-windows/cross-node/none/none/ip',
      'pod-to-host-network/windows-to-windows/cross-node/none/none/ip',
      'nodeport-local-none/external-to-windows-node/none/node-ip',
      'icmp/windows-to-windows/cross-node/none/none/ip',
      'affinity/linux-to-windows/sticky/none/cluster-ip',
      'affinity/linux-to-windows/timeout/none/cluster-ip',
      'affinity/windows-to-windows/sticky/none/cluster-ip',
      'affinity/windows-to-windows/timeout/none/cluster-ip',
    ]);
    expect(skipped[0]!.skip).to.equal('needs two windows nodes; the lab has 1 windows node');
    expect(skipped.at(-6)!.skip).to.equal('needs two windows nodes; the lab has 1 windows node');
    expect(skipped.at(-1)!.skip).to.equal(
      'needs two windows endpoints to tell a sticky Service from one that is not; the lab has 1 windows node',
    );
  });

  it('keeps Windows rows as skipped cells on a Linux-only lab instead of dropping them', () => {
    const linuxOnly = expandCells(
      MATRIX,
      HYBRID.filter((n) => n.os === 'linux'),
    );
    const outbound = linuxOnly.filter((c) => c.meta.row === 'outbound-nat/windows');
    expect(outbound).to.have.length(1);
    expect(outbound[0]!.skip).to.equal('the lab has no windows nodes');
    const hairpin = linuxOnly.filter((c) => c.meta.row === 'hairpin/windows');
    expect(hairpin.map((c) => [c.meta.cell, c.skip])).to.deep.equal([
      ['hairpin/windows/none/cluster-ip', 'needs a windows node; the lab has 0 windows nodes'],
      ['hairpin/windows/none/dns', 'needs a windows node; the lab has 0 windows nodes'],
    ]);
  });
});
