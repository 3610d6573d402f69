import { expect } from 'chai';
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import { NOT_FORWARDED_MS, type CellPlan } from '../model/cell-plan.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from './expand-cells.ts';
import { MATRIX, type MatrixRow } from './rows.ts';

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

  it('covers every row of DESIGN §7, pod-to-pod and pod-to-service over UDP, and DNS over TCP, with stable kebab-case ids', () => {
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

  it('asks hairpin cells to reach the source pod itself through its own Service', () => {
    const w = workloads(HYBRID);
    const cell = cells.find((c) => c.meta.cell === 'hairpin/windows/win2/dns')!;
    expect(cell.meta.source).to.include({ node: 'win2', name: 'netexec-win2-a' });
    expect(cell.meta.target).to.include({ node: 'win2', name: 'hairpin-win2' });
    expect(cell.probe!(w)).to.deep.equal({
      from: 'netexec-win2-a',
      request: {
        kind: 'endpoints',
        base: 'http://hairpin-win2.ns.svc.cluster.local:80',
        service: 'hairpin-win2',
        expect: ['netexec-win2-a'],
        maxRequests: 20,
      },
      check: { kind: 'every-endpoint', expect: ['netexec-win2-a'] },
    });
    const byIp = cells.find((c) => c.meta.cell === 'hairpin/linux/cp1/cluster-ip')!.probe!(w);
    expect(byIp.request).to.have.property('base', 'http://10.96.1.10:80');
  });

  it('asks pod-to-pod cells to see the source pod IP, outbound NAT the node IP', () => {
    const w = workloads(HYBRID);
    const p2p = cells.find(
      (c) => c.meta.cell === 'pod-to-pod/linux-to-windows/cross-node/lin1/win1/dns',
    )!.probe!(w);
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
    const search = cells.find((c) => c.meta.cell === 'dns/search-list/windows/win2/dns')!.probe!(w);
    expect(search.from).to.equal('netexec-win2-a');
    // Looked up with curl to the port the kubernetes Service answers (443): no wait on port 80.
    expect(search.request).to.deep.equal({ kind: 'dns', name: 'kubernetes.default', port: 443 });
    expect(search.check).to.deep.equal({ kind: 'answer', expect: '10.96.0.1' });
  });

  it('asks large-response cells for a body of several packets from a pod on another node', () => {
    const w = workloads(HYBRID);
    const big = cells.find(
      (c) => c.meta.cell === 'large-response/windows-to-linux/cross-node/win1/lin1/ip',
    )!;
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

  it('asks Service and NodePort cells for every endpoint, Service cells with the source pod IP', () => {
    const w = workloads(HYBRID);
    const svc = cells.find((c) => c.meta.cell === 'pod-to-service/windows-to-linux/win2/dns')!;
    const spec = svc.probe!(w);
    const linuxEndpoints = ['netexec-cp1-b', 'netexec-lin1-b', 'netexec-lin2-b'];
    expect(spec.from).to.equal('netexec-win2-a');
    expect(spec.request).to.deep.include({
      kind: 'endpoints',
      service: 'web-linux',
      maxRequests: 60,
    });
    expect(spec.request).to.have.property('base', 'http://web-linux.ns.svc.cluster.local:80');
    expect(spec.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: linuxEndpoints,
      source: w.pods.find((p) => p.name === 'netexec-win2-a')!.ip,
    });
    const udp = cells.find((c) => c.meta.cell === 'pod-to-service-udp/windows-to-linux/win2/dns')!;
    expect(udp.probe!(w).request).to.deep.include({
      kind: 'endpoints',
      base: 'udp://web-linux.ns.svc.cluster.local:8081',
      maxRequests: 60,
    });
    expect(udp.probe!(w).check).to.deep.equal(spec.check);
    const np = cells.find((c) => c.meta.cell === 'nodeport/external-to-windows-node/win2/node-ip')!;
    const nodePort = np.probe!(w);
    expect(nodePort.from).to.equal('outside');
    expect(nodePort.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: ['netexec-win1-b', 'netexec-win2-b'],
    });
    const npUdp = cells.find(
      (c) => c.meta.cell === 'nodeport-udp/external-to-windows-node/win2/node-ip',
    )!;
    const win2 = HYBRID.find((n) => n.name === 'win2')!;
    expect(npUdp.probe!(w).request).to.have.property('base', `udp://${win2.ip}:30181`);
    expect(npUdp.probe!(w).check).to.deep.equal(nodePort.check);
  });

  it('asks ICMP cells for an echo reply from the target pod, or from the external address', () => {
    const w = workloads(HYBRID);
    const ping = cells.find(
      (c) => c.meta.cell === 'icmp/windows-to-linux/cross-node/win1/lin2/ip',
    )!;
    expect(ping.meta.title).to.equal('icmp windows-to-linux win1-to-lin2 cross-node via ip');
    const target = w.pods.find((p) => p.name === 'netexec-lin2-a')!.ip;
    expect(ping.probe!(w)).to.deep.equal({
      from: 'netexec-win1-a',
      request: { kind: 'icmp', host: target },
      check: { kind: 'echo-reply', from: target },
    });
    const outbound = cells.find((c) => c.meta.cell === 'icmp-outbound/linux/lin1/ip')!;
    expect(outbound.meta.target).to.include({ node: 'outside' });
    expect(outbound.probe!(w)).to.deep.equal({
      from: 'netexec-lin1-a',
      request: { kind: 'icmp', host: '198.51.100.1' },
      check: { kind: 'echo-reply', from: '198.51.100.1' },
    });
  });

  it('asks host network cells for the right server, from and to every node', () => {
    const w = workloads(HYBRID);
    const toPod = cells.find(
      (c) => c.meta.cell === 'host-network-to-pod/linux-to-windows/cross-node/lin2/win1/ip',
    )!;
    expect(toPod.meta.title).to.equal(
      'host-network-to-pod linux-to-windows lin2-to-win1 cross-node via ip',
    );
    expect(toPod.meta.source).to.include({ node: 'lin2', name: 'host-network' });
    const target = w.pods.find((p) => p.name === 'netexec-win1-a')!;
    expect(toPod.probe!(w)).to.deep.equal({
      from: 'host-network:lin2',
      request: { kind: 'http', url: `http://${target.ip}:8080/hostname` },
      check: { kind: 'body', expect: 'netexec-win1-a' },
    });
    const toHost = cells.find(
      (c) => c.meta.cell === 'pod-to-host-network/windows-to-windows/same-node/win2/ip',
    )!;
    expect(toHost.probe!(w)).to.deep.equal({
      from: 'netexec-win2-a',
      request: { kind: 'http', url: 'http://192.168.200.14:8085/hostname' },
      check: { kind: 'body', expect: 'win2' },
    });
    const svc = cells.find(
      (c) => c.meta.cell === 'host-network-to-service/windows-to-linux/win1/cluster-ip',
    )!.probe!(w);
    expect(svc.from).to.equal('host-network:win1');
    expect(svc.request).to.deep.include({ base: 'http://10.96.0.20:80', maxRequests: 60 });
    // Masqueraded off the node: who answered counts, not whom it saw.
    expect(svc.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: ['netexec-cp1-b', 'netexec-lin1-b', 'netexec-lin2-b'],
    });
    const own = cells.find(
      (c) => c.meta.cell === 'host-network-to-own-nodeport/windows/win2/node-ip',
    )!.probe!(w);
    expect(own.from).to.equal('host-network:win2');
    expect(own.request).to.deep.include({ base: 'http://192.168.200.14:30081' });
  });

  it("asks Local traffic policy cells for the node's own endpoint with the client address, or for nothing", () => {
    const w = workloads(HYBRID);
    const ids = (row: string) =>
      cells.filter((c) => c.meta.row === row).map((c) => c.meta.target.node);
    // Every node of the OS but the last hosts an endpoint of its OS's Local Service.
    expect(ids('nodeport-local/external-to-linux-node')).to.deep.equal(['cp1', 'lin1']);
    expect(ids('nodeport-local/external-to-windows-node')).to.deep.equal(['win1']);
    expect(ids('nodeport-local-none/external-to-linux-node')).to.deep.equal(['lin2']);
    expect(ids('nodeport-local-none/external-to-windows-node')).to.deep.equal(['win2']);
    const local = cells.find(
      (c) => c.meta.cell === 'nodeport-local/external-to-linux-node/lin1/node-ip',
    )!;
    expect(local.meta.target).to.include({ node: 'lin1', name: 'local-linux' });
    expect(local.probe!(w)).to.deep.equal({
      from: 'outside',
      request: {
        kind: 'endpoints',
        base: 'http://192.168.200.11:30280',
        service: 'local-linux',
        // Asked until every backend answered: all 20 requests are made where only one may.
        expect: ['netexec-cp1-b', 'netexec-lin1-b'],
        maxRequests: 20,
      },
      check: {
        kind: 'every-endpoint',
        expect: ['netexec-lin1-b'],
        source: '192.168.200.1',
        only: true,
      },
    });
    const none = cells.find(
      (c) => c.meta.cell === 'nodeport-local-none/external-to-windows-node/win2/node-ip',
    )!;
    expect(none.probe!(w)).to.deep.equal({
      from: 'outside',
      request: { kind: 'http', url: 'http://192.168.200.14:30281/hostname' },
      check: { kind: 'not-forwarded' },
      timeoutMs: NOT_FORWARDED_MS,
    });
  });
});

describe('matrix expansion on a small lab: outbound, DNS and perf rows', () => {
  const LAB: SuiteNode[] = [
    node('cp1', 'linux', 'control-plane', '192.168.200.10'),
    node('lin1', 'linux', 'worker', '192.168.200.11'),
    node('win1', 'windows', 'worker', '192.168.200.13'),
  ];
  const LINUX = LAB.slice(0, 2);
  const WINDOWS = LAB.slice(2);
  /** A cell's meta, with its skip reason when the lab cannot host it. */
  const metas = (cells: CellPlan[]) =>
    cells.map((c) => (c.skip === undefined ? c.meta : { ...c.meta, skip: c.skip }));

  it('outbound-nat: a cell per node of the OS toward the outside', () => {
    expect(
      metas(
        expandCells(
          [
            { kind: 'outbound-nat', from: 'windows' },
            { kind: 'icmp-outbound', from: 'windows' },
          ],
          LAB,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'outbound-nat/windows',
        cell: 'outbound-nat/windows/win1/ip',
        via: 'ip',
        title: 'outbound-nat windows win1 via ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'external', node: 'outside', label: 'external' },
        placement: '',
      },
      {
        row: 'icmp-outbound/windows',
        cell: 'icmp-outbound/windows/win1/ip',
        via: 'ip',
        title: 'icmp-outbound windows win1 via ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'external', node: 'outside', label: 'external' },
        placement: '',
      },
    ]);
  });

  it('outbound rows without a node of the OS skip, naming it', () => {
    expect(
      metas(
        expandCells(
          [
            { kind: 'outbound-nat', from: 'windows' },
            { kind: 'icmp-outbound', from: 'linux' },
          ],
          LINUX,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'outbound-nat/windows',
        cell: 'outbound-nat/windows/none/ip',
        via: 'ip',
        title: 'outbound-nat windows via ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'external', node: 'outside', label: 'external' },
        placement: '',
        skip: 'the lab has no windows nodes',
      },
      {
        row: 'icmp-outbound/linux',
        cell: 'icmp-outbound/linux/cp1/ip',
        via: 'ip',
        title: 'icmp-outbound linux cp1 via ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'external', node: 'outside', label: 'external' },
        placement: '',
      },
      {
        row: 'icmp-outbound/linux',
        cell: 'icmp-outbound/linux/lin1/ip',
        via: 'ip',
        title: 'icmp-outbound linux lin1 via ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'external', node: 'outside', label: 'external' },
        placement: '',
      },
    ]);
  });

  it('DNS rows: a cell per node of the OS toward the cluster DNS, titled with the lookup', () => {
    expect(
      metas(
        expandCells(
          [
            { kind: 'dns', from: 'windows', lookup: 'fqdn' },
            { kind: 'dns-tcp', from: 'windows' },
          ],
          LAB,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'dns/fqdn/windows',
        cell: 'dns/fqdn/windows/win1/dns',
        via: 'dns',
        title: 'dns fqdn from windows win1 via dns',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: '-', label: 'cluster DNS' },
        placement: '',
      },
      {
        row: 'dns-tcp/windows',
        cell: 'dns-tcp/windows/win1/dns',
        via: 'dns',
        title: 'dns over tcp from windows win1 via dns',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: '-', label: 'cluster DNS' },
        placement: '',
      },
    ]);
  });

  it('DNS rows without a node of the OS skip, naming it', () => {
    expect(
      metas(
        expandCells(
          [
            { kind: 'dns', from: 'linux', lookup: 'short-name' },
            { kind: 'dns-tcp', from: 'linux' },
          ],
          WINDOWS,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'dns/short-name/linux',
        cell: 'dns/short-name/linux/none/dns',
        via: 'dns',
        title: 'dns short-name from linux via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: 'cluster DNS' },
        placement: '',
        skip: 'the lab has no linux nodes',
      },
      {
        row: 'dns-tcp/linux',
        cell: 'dns-tcp/linux/none/dns',
        via: 'dns',
        title: 'dns over tcp from linux via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: 'cluster DNS' },
        placement: '',
        skip: 'the lab has no linux nodes',
      },
    ]);
  });

  it('asks the cluster DNS for the Service by short name and FQDN, kubernetes.default through the search list, and over TCP', () => {
    const rows: MatrixRow[] = [
      { kind: 'outbound-nat', from: 'linux' },
      { kind: 'dns', from: 'linux', lookup: 'short-name' },
      { kind: 'dns', from: 'linux', lookup: 'fqdn' },
      { kind: 'dns', from: 'linux', lookup: 'search-list' },
      { kind: 'dns-tcp', from: 'linux' },
    ];
    const w = workloads(LINUX);
    const from = 'netexec-lin1-a';
    const specs = expandCells(rows, LINUX)
      .filter((c) => c.meta.source.node === 'lin1')
      .map((c) => c.probe!(w));
    expect(specs).to.deep.equal([
      {
        from,
        request: { kind: 'http', url: 'http://198.51.100.1:8080/clientip' },
        check: { kind: 'source-ip', expect: '192.168.200.11' },
      },
      {
        from,
        request: { kind: 'dns', name: 'web-linux', port: 80 },
        check: { kind: 'answer', expect: '10.96.0.20' },
      },
      {
        from,
        request: { kind: 'dns', name: 'web-linux.ns.svc.cluster.local', port: 80 },
        check: { kind: 'answer', expect: '10.96.0.20' },
      },
      {
        from,
        request: { kind: 'dns', name: 'kubernetes.default', port: 443 },
        check: { kind: 'answer', expect: '10.96.0.1' },
      },
      {
        from,
        request: { kind: 'dns-tcp', name: 'web-linux.ns.svc.cluster.local' },
        check: { kind: 'answer', expect: '10.96.0.20' },
      },
    ]);
  });

  it('expands every perf row once, where the first one stands, after the rows before it', () => {
    const perf = (measure: 'tcp-rr' | 'tcp-crr'): MatrixRow => ({
      kind: 'perf',
      measure,
      network: 'host',
      from: 'linux',
      to: 'linux',
    });
    const rows: MatrixRow[] = [
      { kind: 'outbound-nat', from: 'linux' },
      perf('tcp-rr'),
      { kind: 'dns-tcp', from: 'windows' },
      perf('tcp-crr'),
    ];
    expect(expandCells(rows, LAB).map((c) => c.meta.cell)).to.deep.equal([
      'outbound-nat/linux/cp1/ip',
      'outbound-nat/linux/lin1/ip',
      'perf/tcp-rr/host/linux-to-linux/cross-node/lin1/cp1/ip',
      'perf/tcp-crr/host/linux-to-linux/cross-node/lin1/cp1/ip',
      'perf/tcp-rr/host/linux-to-linux/cross-node/cp1/lin1/ip',
      'perf/tcp-crr/host/linux-to-linux/cross-node/cp1/lin1/ip',
      'dns-tcp/windows/win1/dns',
    ]);
  });

  it('orders the perf paths by the perf rows alone, whatever OS pairs other rows name first', () => {
    const hostPerf = (from: 'linux' | 'windows'): MatrixRow => ({
      kind: 'perf',
      measure: 'tcp-rr',
      network: 'host',
      from,
      to: 'linux',
    });
    const rows: MatrixRow[] = [
      { kind: 'host-network-to-service', from: 'windows', to: 'linux' },
      hostPerf('linux'),
      hostPerf('windows'),
    ];
    expect(
      expandCells(rows, LAB)
        .filter((c) => c.meta.row.startsWith('perf/'))
        .map((c) => c.meta.cell),
    ).to.deep.equal([
      'perf/tcp-rr/host/linux-to-linux/cross-node/lin1/cp1/ip',
      'perf/tcp-rr/host/linux-to-linux/cross-node/cp1/lin1/ip',
      'perf/tcp-rr/host/windows-to-linux/cross-node/win1/lin1/ip',
      'perf/tcp-rr/host/windows-to-linux/cross-node/win1/cp1/ip',
    ]);
  });
});
