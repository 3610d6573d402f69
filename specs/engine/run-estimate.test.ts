import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  clusterOf,
  durationText,
  estimateLine,
  estimateMs,
  estimateTable,
  MEASURED_RUN,
} from './run-estimate.ts';
import { FULL_MESH, meshForCluster, RING_ABOVE_NODES } from '../matrix/mesh.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';

describe('the run before it starts: mesh by cluster size and an estimate', () => {
  it('a cluster the harness did not make, above 8 nodes: a ring unless MESH asks', () => {
    const big = { provider: 'existing', nodes: RING_ABOVE_NODES + 1 };
    expect(meshForCluster(FULL_MESH, false, big)).to.deep.equal({ ...FULL_MESH, mode: 'ring' });
    // MESH=full asked for the whole mesh.
    expect(meshForCluster(FULL_MESH, true, big)).to.equal(FULL_MESH);
    // 8 nodes or fewer, or a lab the harness made: as before.
    expect(meshForCluster(FULL_MESH, false, { ...big, nodes: RING_ABOVE_NODES })).to.equal(
      FULL_MESH,
    );
    expect(meshForCluster(FULL_MESH, false, { provider: 'libvirt', nodes: 30 })).to.equal(
      FULL_MESH,
    );
    const ring = { mode: 'ring' as const, peers: 2, rotation: 5 };
    expect(meshForCluster(ring, false, big)).to.equal(ring);
  });

  it('estimates from the measured run, scaled by cells and probes in flight', () => {
    expect(estimateMs(MEASURED_RUN.cells, MEASURED_RUN.concurrency)).to.equal(MEASURED_RUN.wallMs);
    expect(estimateMs(2 * MEASURED_RUN.cells, 8)).to.equal(2 * MEASURED_RUN.wallMs);
    expect(estimateMs(MEASURED_RUN.cells, 4)).to.equal(2 * MEASURED_RUN.wallMs);
    expect(estimateMs(MEASURED_RUN.cells, 0)).to.equal(8 * MEASURED_RUN.wallMs);
    // The measured lab's cells are what today's matrix probes there (3 Linux nodes, Windows skipped).
    const probed = expandCells(MATRIX, clusterOf(3, 0)).filter((c) => c.probe !== undefined);
    expect(probed).to.have.length(MEASURED_RUN.cells);
  });

  it('says durations as a person would', () => {
    expect(durationText(45_400)).to.equal('45 s');
    expect(durationText(119_000)).to.equal('119 s');
    expect(durationText(120_000)).to.equal('2 min');
    expect(durationText(19 * 60_000)).to.equal('19 min');
    expect(durationText(133 * 60_000)).to.equal('2 h 13 min');
  });

  it('prints the cells, the mesh, the estimate and where the per-cell time comes from', () => {
    expect(estimateLine(1440, FULL_MESH, 8)).to.equal(
      '1,440 cells (MESH=full), about 19 min with 8 probes in flight (per cell as measured on the real netns-kubeadm lab: 168 cells in 130 s at 8 in flight, Linux pods only; Windows execs are slower)',
    );
  });

  it('the clusters of the table: 6 + 4 and 18 + 12 nodes, as the issue counted them', () => {
    const nodes = clusterOf(6, 4);
    expect(nodes.map((n) => n.name)).to.deep.equal([
      'cp1',
      'lin1',
      'lin2',
      'lin3',
      'lin4',
      'lin5',
      'win1',
      'win2',
      'win3',
      'win4',
    ]);
    expect(new Set(clusterOf(18, 12).map((n) => n.ip)).size).to.equal(30);
    expect(expandCells(MATRIX, nodes)).to.have.length(1440);
    expect(expandCells(MATRIX, clusterOf(18, 12))).to.have.length(10_320);
  });

  it("docs/existing.md's table is the code's", () => {
    const doc = readFileSync(new URL('../../docs/existing.md', import.meta.url), 'utf8');
    const section = doc.split('## How long a run takes')[1]!.split('\n## ')[0]!;
    const table = section.split('\n').filter((line) => line.startsWith('|'));
    expect(table).to.deep.equal(estimateTable());
  });
});
