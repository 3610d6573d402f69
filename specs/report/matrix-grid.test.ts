import { expect } from 'chai';
import { sampleCells } from '../testing/sample-report.ts';
import { smallCells } from '../testing/small-report.ts';
import { buildGrids, gridKey, gridStatus, verdictCounts } from './matrix-grid.ts';

describe('report: matrix grid', function () {
  it('makes one grid per via in order of appearance, labels in engine order', function () {
    const grids = buildGrids(sampleCells());
    expect(grids.map((g) => g.via)).to.deep.equal(['ip', 'dns', 'cluster-ip', 'node-ip']);
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
});
