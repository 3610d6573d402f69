import { expect } from 'chai';
import { run } from '../testing/history-records.ts';
import { computeTrend } from './trend.ts';
import { renderTrendHtml } from './trend-html.ts';
import { renderTrendMarkdown } from './trend-markdown.ts';

const W = 'pod-to-pod/windows-to-linux/cross-node/ip';
const O = 'outbound-nat/windows/win1/ip';
const NOW = new Date('2026-11-30T08:00:00Z');

function reportOf(...records: ReturnType<typeof run>[]) {
  return computeTrend(records, 14, NOW);
}

describe('trend.md and trend.html', () => {
  const mixed = reportOf(run(1), run(2, { [O]: 'fail' }), run(3, { [W]: 'fail' }));

  it('markdown names the failing cells with the run they started failing in, and the flaky ones', () => {
    const md = renderTrendMarkdown(mixed);
    const failing = md.slice(md.indexOf('### ❌ Failing now (1)'), md.indexOf('### 🔀 Flaky'));
    expect(failing).to.contain('pod-to-pod windows-to-linux cross-node ip');
    expect(failing).to.contain('2026-11-03 02:17 (run run-03), 1 failed run');
    const flaky = md.slice(md.indexOf('### 🔀 Flaky (1)'), md.indexOf('### Every cell'));
    expect(flaky).to.contain('outbound-nat windows win1 ip');
    expect(flaky).to.contain('67%');
    expect(md).to.contain('**❌ 1 cell failing now** · **🔀 1 flaky**');
    expect(md).to.contain('| hybrid (EMULATED) | netns | 3 / 3 |');
  });

  it('html leads with the failing count and lists failing and flaky cells in their sections', () => {
    const html = renderTrendHtml(mixed);
    expect(html).to.contain('✘ 1 cell failing now');
    expect(html).to.contain('1 flaky cell');
    const failing = html.slice(html.indexOf('Failing now (1)'), html.indexOf('Flaky (1)'));
    expect(failing).to.contain(W);
    expect(failing).to.contain('run run-03 · 1 failed run');
    const flaky = html.slice(html.indexOf('Flaky (1)'), html.indexOf('Every cell'));
    expect(flaky).to.contain(O);
    expect(flaky).not.to.contain(W);
  });

  it('labels emulated runs as emulated, and only those', () => {
    const emulated = reportOf(run(1));
    const real = reportOf(run(1, {}, { emulated: false, provider: 'libvirt', preset: 'real' }));
    expect(renderTrendHtml(emulated)).to.contain('Includes EMULATED runs');
    expect(renderTrendHtml(emulated)).to.contain('<span class="emu">EMU</span>');
    expect(renderTrendMarkdown(emulated)).to.contain('Includes EMULATED runs');
    expect(renderTrendHtml(real)).not.to.match(/EMULATED|class="emu"/);
    expect(renderTrendMarkdown(real)).not.to.contain('EMULATED');
  });

  it('escapes details and links only http(s) artifacts', () => {
    const hostile = run(2, { [W]: 'fail' }, { link: 'javascript:alert(1)' });
    hostile.cells.find((c) => c.cell === W)!.detail = '<script>x</script> | *bold*';
    const report = reportOf(run(1, {}, { link: 'https://ci.example/r/1' }), hostile);
    const html = renderTrendHtml(report);
    expect(html).not.to.contain('<script>x');
    expect(html).to.contain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).to.contain('href="https://ci.example/r/1"');
    expect(html).not.to.contain('javascript:');
    const md = renderTrendMarkdown(report);
    expect(md).to.contain('&lt;script&gt;x&lt;/script&gt; \\| \\*bold\\*');
    expect(md).to.contain('](https://ci.example/r/1)');
    expect(md).not.to.contain('javascript:');
  });

  it('says so when the store is empty', () => {
    const empty = computeTrend([], 14, NOW);
    expect(renderTrendMarkdown(empty)).to.contain('holds no runs yet');
    expect(renderTrendHtml(empty)).to.contain('holds no runs yet');
  });
});
