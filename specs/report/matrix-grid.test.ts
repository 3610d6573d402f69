import { expect } from 'chai';
import { sampleCells } from '../testing/sample-report.ts';
import { smallCells } from '../testing/small-report.ts';
import { BY_NODE, buildGrids, gridKey, gridStatus, verdictCounts } from './matrix-grid.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import { Outcome, type CellResult } from '../../lab/contracts/results-file.ts';
import type { SuiteNode } from '../model/lab-driver.ts';

const NODES: SuiteNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
  { name: 'win2', os: 'windows', role: 'worker', ip: '192.168.200.14' },
];

/** The suite's cells on NODES, failed where `broken` says so. */
function results(broken: (cell: CellResult) => boolean): CellResult[] {
  return expandCells(MATRIX, NODES).map((plan) => {
    const cell: CellResult = {
      ...plan.meta,
      expected: Outcome.Ok,
      verdict: 'pass',
      actual: Outcome.Ok,
      detail: '',
      durationMs: 1,
      attempts: 1,
    };
    return broken(cell) ? { ...cell, verdict: 'fail', actual: Outcome.Timeout } : cell;
  });
}

describe('report: matrix grid', function () {
  it('makes one grid per via in order of appearance, labels in engine order', function () {
    const grids = buildGrids(sampleCells());
    expect(grids.map((g) => g.title)).to.deep.equal([
      'via ip',
      'via dns',
      'via cluster-ip',
      'via node-ip',
    ]);
    expect(grids[0]?.sources).to.deep.equal(['windows pod', 'linux pod']);
    expect(grids[0]?.targets).to.deep.equal(['windows pod', 'linux pod', 'external']);
  });

  it('aggregates every cell that falls into a position', function () {
    const ip = buildGrids(sampleCells())[0]!;
    const pos = ip.positions.get(gridKey('windows pod', 'external'))!;
    expect(pos.cells).to.have.length(4);
    expect(verdictCounts(pos)).to.deep.equal([
      ['unexpected-pass', 1],
      ['expected-failure', 3],
    ]);
    expect(pos.status).to.equal('fail');
    expect(ip.positions.has(gridKey('linux pod', 'nowhere'))).to.equal(false);
  });

  it('colours red over amber over green over grey', function () {
    expect(gridStatus({ pass: 5, fail: 1, 'expected-failure': 2 })).to.equal('fail');
    expect(gridStatus({ pass: 5, 'unexpected-pass': 1 })).to.equal('fail');
    expect(gridStatus({ pass: 5, 'expected-failure': 1, skipped: 1 })).to.equal('expected-failure');
    expect(gridStatus({ pass: 1, skipped: 3 })).to.equal('pass');
    expect(gridStatus({ skipped: 3 })).to.equal('skipped');
  });

  it('keeps infrastructure cells out of the grids', function () {
    const all = buildGrids(smallCells()).flatMap((g) =>
      [...g.positions.values()].flatMap((p) => p.cells),
    );
    expect(all.map((c) => c.row)).not.to.include('infrastructure');
    expect(all).to.have.length(5);
  });

  it('the node view shows a node whose pods cannot reach Linux pods as one red row', function () {
    const cells = results(
      (c) => c.source.node === 'win2' && c.target.os === 'linux' && c.row.startsWith('pod-to-pod'),
    );
    const grids = buildGrids(cells, BY_NODE);
    expect(grids.map((g) => g.title)).to.deep.equal([
      'pod-to-pod by node',
      'pod-to-pod-udp by node',
      'large-response by node',
      'pod-to-service by node',
      'pod-to-service-udp by node',
      'hairpin by node',
      'host-network-to-pod by node',
      'pod-to-host-network by node',
      'host-network-to-service by node',
      'host-network-to-own-nodeport by node',
      'nodeport by node',
      'nodeport-udp by node',
      'nodeport-local by node',
      'nodeport-local-none by node',
      'outbound-nat by node',
      'icmp by node',
      'icmp-outbound by node',
      'dns by node',
      'dns-tcp by node',
      'pod-to-nodeport by node',
      'affinity by node',
      'health-check-nodeport by node',
      'external-name by node',
      'dual-protocol by node',
      'pod-to-apiserver by node',
      'internal-local by node',
      'churn by node',
    ]);
    const p2p = grids[0]!;
    expect(p2p.sources).to.have.members(['cp1', 'lin1', 'win1', 'win2']);
    expect(p2p.targets).to.have.members(['cp1', 'lin1', 'win1', 'win2']);
    const red = [...p2p.positions.values()].filter((p) => p.status === 'fail');
    expect(red.map((p) => `${p.source}>${p.target}`).sort()).to.deep.equal([
      'win2>cp1',
      'win2>lin1',
    ]);
    // Services, NodePorts, the echo and DNS are columns of their own.
    expect(grids[3]!.targets).to.deep.equal(['linux service', 'windows service']);
    expect(grids[4]!.targets).to.deep.equal(['linux service', 'windows service']);
    // Rows and columns: Windows nodes first, then Linux, each by name.
    expect(grids[0]!.sources).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    // Host network: a node to a pod, every node a row and a column.
    expect(grids[6]!.sources).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    expect(grids[6]!.targets).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    // Hairpin: every node's pod to its own Service, one column per OS.
    expect(grids[5]!.sources).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    expect(grids[5]!.targets).to.have.members([
      "windows pod's own service",
      "linux pod's own service",
    ]);
    expect(grids[10]!.sources).to.deep.equal(['outside']);
    expect(grids[10]!.targets).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    expect(grids[11]!.sources).to.deep.equal(['outside']);
    expect(grids[11]!.targets).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    // Local traffic policy: via the nodes with a local endpoint, then via those without.
    expect(grids[12]!.targets).to.deep.equal(['win1', 'cp1']);
    expect(grids[13]!.targets).to.deep.equal(['win2', 'lin1']);
    expect(grids[14]!.targets).to.deep.equal(['external']);
    // ICMP pod to pod: node by node; outbound: one column outside.
    expect(grids[15]!.targets).to.deep.equal(['win1', 'win2', 'cp1', 'lin1']);
    expect(grids[16]!.targets).to.deep.equal(['external']);
    expect(grids[17]!.targets).to.deep.equal(['cluster DNS']);
  });
});
