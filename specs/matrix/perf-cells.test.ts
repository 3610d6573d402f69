/** Perf cells: which paths a lab's nodes give each row, how they are named, and what each measures. */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { FULL_MESH } from './mesh.ts';
import { perfCells, type PerfRow } from './perf-cells.ts';

const NODES: SuiteNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
];
const SETTINGS = { durationMs: 100, udpMbps: 2 };
const row = (
  measure: PerfRow['measure'],
  network: PerfRow['network'],
  from: PerfRow['from'],
  to: PerfRow['to'],
): PerfRow => ({ kind: 'perf', measure, network, from, to });
const linuxPod = (node: string, name: string) => ({ os: 'linux', node, label: 'linux pod', name });

describe('perf cells', () => {
  const w = fakeWorkloads(NODES);

  it('pod to pod: each node to itself (a to b), then each ordered node pair (a to a)', () => {
    const cells = perfCells([row('tcp-rr', 'pod', 'linux', 'linux')], NODES, FULL_MESH, SETTINGS);
    expect(cells.map((c) => c.meta)).to.deep.equal([
      {
        row: 'perf/tcp-rr/pod/linux-to-linux',
        cell: 'perf/tcp-rr/pod/linux-to-linux/same-node/lin1/ip',
        via: 'ip',
        title: 'perf tcp-rr pod linux-to-linux lin1 same-node via ip',
        source: linuxPod('lin1', 'netexec-lin1-a'),
        target: linuxPod('lin1', 'netexec-lin1-b'),
        placement: 'same-node',
      },
      {
        row: 'perf/tcp-rr/pod/linux-to-linux',
        cell: 'perf/tcp-rr/pod/linux-to-linux/same-node/cp1/ip',
        via: 'ip',
        title: 'perf tcp-rr pod linux-to-linux cp1 same-node via ip',
        source: linuxPod('cp1', 'netexec-cp1-a'),
        target: linuxPod('cp1', 'netexec-cp1-b'),
        placement: 'same-node',
      },
      {
        row: 'perf/tcp-rr/pod/linux-to-linux',
        cell: 'perf/tcp-rr/pod/linux-to-linux/cross-node/lin1/cp1/ip',
        via: 'ip',
        title: 'perf tcp-rr pod linux-to-linux lin1-to-cp1 cross-node via ip',
        source: linuxPod('lin1', 'netexec-lin1-a'),
        target: linuxPod('cp1', 'netexec-cp1-a'),
        placement: 'cross-node',
      },
      {
        row: 'perf/tcp-rr/pod/linux-to-linux',
        cell: 'perf/tcp-rr/pod/linux-to-linux/cross-node/cp1/lin1/ip',
        via: 'ip',
        title: 'perf tcp-rr pod linux-to-linux cp1-to-lin1 cross-node via ip',
        source: linuxPod('cp1', 'netexec-cp1-a'),
        target: linuxPod('lin1', 'netexec-lin1-a'),
        placement: 'cross-node',
      },
    ]);
    expect(cells.map((c) => c.probe!(w))).to.deep.equal(
      [
        ['netexec-lin1-a', '10.244.1.11'],
        ['netexec-cp1-a', '10.244.0.11'],
        ['netexec-lin1-a', '10.244.0.10'],
        ['netexec-cp1-a', '10.244.1.10'],
      ].map(([from, ip]) => ({
        from,
        request: { kind: 'perf', measure: 'tcp-rr', base: `http://${ip}:8080`, durationMs: 100 },
        check: { kind: 'measured' },
      })),
    );
  });

  it('pod to pod between OSes has no same-node path', () => {
    const cells = perfCells([row('tcp-rr', 'pod', 'linux', 'windows')], NODES, FULL_MESH, SETTINGS);
    expect(cells.map((c) => c.meta.cell)).to.deep.equal([
      'perf/tcp-rr/pod/linux-to-windows/cross-node/lin1/win1/ip',
      'perf/tcp-rr/pod/linux-to-windows/cross-node/cp1/win1/ip',
    ]);
  });

  it('host to host: a UDP stream from a node to the host netexec of its peer, at the set rate', () => {
    const cells = perfCells(
      [row('udp-stream', 'host', 'linux', 'windows')],
      NODES,
      FULL_MESH,
      SETTINGS,
    );
    expect(cells.map((c) => c.meta)).to.deep.equal(
      ['lin1', 'cp1'].map((src) => ({
        row: 'perf/udp-stream/host/linux-to-windows',
        cell: `perf/udp-stream/host/linux-to-windows/cross-node/${src}/win1/ip`,
        via: 'ip',
        title: `perf udp-stream host linux-to-windows ${src}-to-win1 cross-node via ip`,
        source: { os: 'linux', node: src, name: 'host-network', label: 'linux node' },
        target: { os: 'windows', node: 'win1', name: 'host-network', label: 'windows node' },
        placement: 'cross-node',
      })),
    );
    expect(cells[0]!.probe!(w)).to.deep.equal({
      from: 'host-network:lin1',
      request: {
        kind: 'perf',
        measure: 'udp-stream',
        base: 'udp://192.168.200.13:8086',
        durationMs: 100,
        rateMbps: 2,
      },
      check: { kind: 'measured' },
    });
  });

  it("pod to Service: one cell per source node, aimed at the Service's ClusterIP and ports", () => {
    const rows = [row('tcp-stream', 'service', 'windows', 'linux')];
    const cells = perfCells(rows, NODES, FULL_MESH, SETTINGS);
    expect(cells.map((c) => c.meta)).to.deep.equal([
      {
        row: 'perf/tcp-stream/service/windows-to-linux',
        cell: 'perf/tcp-stream/service/windows-to-linux/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'perf tcp-stream service windows-to-linux win1 via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
      },
    ]);
    expect(cells[0]!.probe!(w)).to.deep.equal({
      from: 'netexec-win1-a',
      request: {
        kind: 'perf',
        measure: 'tcp-stream',
        base: 'http://10.96.0.20:80',
        durationMs: 100,
      },
      check: { kind: 'measured' },
    });
    const udp = perfCells(
      [row('udp-stream', 'service', 'windows', 'linux')],
      NODES,
      FULL_MESH,
      SETTINGS,
    );
    expect(udp[0]!.probe!(w).request).to.deep.include({ base: 'udp://10.96.0.20:8081' });
  });

  it('a Service without endpoints is an error of the lab, not a measure', () => {
    const [cell] = perfCells(
      [row('tcp-rr', 'service', 'windows', 'linux')],
      NODES,
      FULL_MESH,
      SETTINGS,
    );
    const bare = { ...w, pods: w.pods.filter((p) => p.os !== 'linux') };
    expect(() => cell!.probe!(bare)).to.throw('the linux Service has no endpoints');
    // A pod path needs no Service: its probe goes on without one, and without any Service endpoint.
    const cross = perfCells(
      [row('tcp-rr', 'pod', 'linux', 'linux')],
      NODES,
      FULL_MESH,
      SETTINGS,
    )[2]!;
    const noBackends = { ...w, services: [], pods: w.pods.filter((p) => !p.name.endsWith('-b')) };
    expect(cross.probe!(noBackends).from).to.equal('netexec-lin1-a');
  });

  it('a lab without the target OS has no Service cells', () => {
    const linuxOnly = NODES.slice(0, 2);
    expect(
      perfCells([row('tcp-rr', 'service', 'linux', 'windows')], linuxOnly, FULL_MESH, SETTINGS),
    ).to.deep.equal([]);
  });

  it('OS pairs in the order of the rows; each path carries exactly its own rows, its measures one after another', () => {
    const rows = [
      row('tcp-rr', 'pod', 'linux', 'linux'),
      row('tcp-crr', 'pod', 'linux', 'linux'),
      row('tcp-rr', 'host', 'linux', 'linux'),
      row('tcp-rr', 'host', 'linux', 'windows'),
      row('tcp-rr', 'pod', 'windows', 'linux'),
      row('tcp-rr', 'service', 'linux', 'windows'),
    ];
    expect(perfCells(rows, NODES, FULL_MESH, SETTINGS).map((c) => c.meta.cell)).to.deep.equal([
      'perf/tcp-rr/pod/linux-to-linux/same-node/lin1/ip',
      'perf/tcp-crr/pod/linux-to-linux/same-node/lin1/ip',
      'perf/tcp-rr/pod/linux-to-linux/same-node/cp1/ip',
      'perf/tcp-crr/pod/linux-to-linux/same-node/cp1/ip',
      'perf/tcp-rr/pod/linux-to-linux/cross-node/lin1/cp1/ip',
      'perf/tcp-crr/pod/linux-to-linux/cross-node/lin1/cp1/ip',
      'perf/tcp-rr/host/linux-to-linux/cross-node/lin1/cp1/ip',
      'perf/tcp-rr/pod/linux-to-linux/cross-node/cp1/lin1/ip',
      'perf/tcp-crr/pod/linux-to-linux/cross-node/cp1/lin1/ip',
      'perf/tcp-rr/host/linux-to-linux/cross-node/cp1/lin1/ip',
      'perf/tcp-rr/host/linux-to-windows/cross-node/lin1/win1/ip',
      'perf/tcp-rr/host/linux-to-windows/cross-node/cp1/win1/ip',
      'perf/tcp-rr/service/linux-to-windows/lin1/cluster-ip',
      'perf/tcp-rr/service/linux-to-windows/cp1/cluster-ip',
      'perf/tcp-rr/pod/windows-to-linux/cross-node/win1/lin1/ip',
      'perf/tcp-rr/pod/windows-to-linux/cross-node/win1/cp1/ip',
    ]);
  });
});
