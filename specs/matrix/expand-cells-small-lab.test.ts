/** Matrix expansion on a small lab: outbound, DNS and perf rows. */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import type { CellPlan } from '../model/cell-plan.ts';
import { expandCells } from './expand-cells.ts';
import type { MatrixRow } from './rows.ts';
import { node, workloads } from '../testing/expand-cells-fixtures.ts';

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
