import { expect } from 'chai';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { buildGrids, BY_NODE } from './matrix-grid.ts';
import { heatColour, latencyCards } from './latency-heatmap.ts';
import { linuxCell } from '../testing/linux-cell.ts';

function cell(src: string, dst: string, p50: number): CellResult {
  return linuxCell('pod-to-pod/linux-to-linux', src, dst, {
    title: `pod-to-pod ${src}-to-${dst}`,
    durationMs: p50,
    timing: { samples: 1, totalP50Ms: p50, totalMaxMs: p50 },
  });
}

describe('report: latency heat maps on the node grids', () => {
  it('colours the grid’s median green and ten times it red', () => {
    expect(heatColour(2, 2)).to.equal('hsl(120, 70%, 55%)');
    expect(heatColour(1, 2)).to.equal('hsl(120, 70%, 55%)');
    expect(heatColour(20, 2)).to.equal('hsl(0, 70%, 45%)');
    expect(heatColour(200, 2)).to.equal('hsl(0, 70%, 45%)');
  });

  it('shows each position’s p50, a slow node hot in its row and column', () => {
    const cells = [
      cell('a', 'b', 2),
      cell('b', 'a', 2),
      cell('a', 'c', 40),
      cell('c', 'a', 38),
      cell('b', 'c', 41),
      cell('c', 'b', 2.5),
    ];
    const html = latencyCards(buildGrids(cells, BY_NODE));
    expect(html).to.include('<h2>pod-to-pod latency</h2>');
    expect(html).to.include('median 2.5 ms');
    expect(html).to.match(
      /background:hsl\(0, 70%, 45%\)" title="pod-to-pod a-to-c: p50 40 ms, max 40 ms"><div class="big">40<\/div>/,
    );
    expect(html).to.match(/background:hsl\(120, 70%, 55%\)" title="pod-to-pod a-to-b: p50 2 ms/);
  });

  it('draws nothing where no cell was timed', () => {
    const untimed = { ...cell('a', 'b', 1) };
    delete untimed.timing;
    expect(latencyCards(buildGrids([untimed], BY_NODE))).to.equal('');
  });
});
