import { expect } from 'chai';
import { EMULATED_BANNER } from './cell-text.ts';
import { sampleReport } from '../testing/sample-report.ts';
import { smallReport } from '../testing/small-report.ts';
import { makeReport } from '../model/report.ts';
import { countsLine, renderSummary } from './summary-writer.ts';

describe('report: summary.md', function () {
  it('headlines the counts of every verdict', function () {
    const md = renderSummary(sampleReport(false));
    expect(md).to.include(
      '**53 passed** · **3 failed** · 4 expected failures · 1 unexpected pass · 3 skipped · 0 infra errors — 64 cells',
    );
    expect(md.split('\n')[0]).to.equal('## ❌ hybrid-lab conformance: hybrid');
  });

  it('shows a green headline when nothing needs attention', function () {
    const report = sampleReport(false);
    const clean = report.cells.filter(
      (c) => c.verdict === 'pass' || c.verdict === 'expected-failure',
    );
    const md = renderSummary(makeReport(report.run, clean));
    expect(md.split('\n')[0]).to.equal('## ✅ hybrid-lab conformance: hybrid');
  });

  it('carries the EMULATED banner only when emulated', function () {
    const emulated = renderSummary(sampleReport(true));
    expect(emulated.split('\n')[0]).to.include('(EMULATED)');
    expect(emulated).to.include(`> ⚠️ **${EMULATED_BANNER}.**`);
    expect(renderSummary(sampleReport(false))).not.to.match(/EMULATED/);
  });

  it('draws one source × target grid per via with aggregated symbols', function () {
    const md = renderSummary(sampleReport(true));
    for (const via of ['ip', 'dns', 'cluster-ip', 'node-ip'])
      expect(md).to.include(`### via ${via}\n`);
    expect(md).to.include('| source ↓ / target → | windows pod | linux pod | external |');
    expect(md).to.include('| **windows pod** | ✅ 4 | ✅ 2 | ❗ 1 ⚠️ 3 |');
    expect(md).to.include('| **linux pod** | ✅ 1 ❌ 1 | ✅ 4 | ✅ 5 |');
    expect(md).to.include('| **external** | ✅ 3 ❌ 1 | ✅ 4 ➖ 1 |');
  });

  it('lists failures with detail and expected failures with their reasons and links', function () {
    const md = renderSummary(sampleReport(true));
    expect(md).to.include(
      '### Failures (3)\n\n- **pod-to-pod linux-to-windows cross-node via ip udp**',
    );
    expect(md).to.include(
      '- **pod-to-service windows-to-linux via cluster-ip tcp**: expected ok, got wrong-source-ip — backend netexec-lin2-a saw client',
    );
    expect(md).to.include('### Unexpected passes (1)');
    expect(md).to.include('### Expected failures (4)');
    expect(md).to.include(
      '[https://github.com/kubernetes/kubernetes/issues/62029](https://github.com/kubernetes/kubernetes/issues/62029)',
    );
    expect(md).to.include('### Skipped (3)');
  });

  it('escapes data: no raw HTML, table pipes or emphasis from probe output', function () {
    const md = renderSummary(smallReport(false));
    expect(md).not.to.include('<script>');
    expect(md).not.to.include('\u001b');
    expect(md).to.include(
      '&lt;script&gt;alert("x")&lt;/script&gt; &amp; \\]\\]&gt; red \\| \\*bold\\* \\`code\\`',
    );
  });

  it('lists infrastructure errors and failed hooks apart from network failures', function () {
    const md = renderSummary(smallReport(false));
    expect(md).to.include(
      '### Infrastructure errors (1)\n\n- **infrastructure lab ready** — node win1 NotReady kubelet',
    );
    expect(md).to.include('### Other failed tests (1)');
    expect(md).to.include('— plus 2 other tests, 1 failed');
  });

  it('says loudly when the run was interrupted', function () {
    const report = sampleReport(false);
    const cut = report.cells.map((c, i) =>
      i < 10
        ? c
        : { ...c, verdict: 'skipped' as const, detail: 'not run: run interrupted by SIGINT' },
    );
    const md = renderSummary(makeReport(report.run, cut, [], 'SIGINT'));
    expect(md).to.include('> 🛑 **INTERRUPTED by SIGINT** — 54 cells not run.');
    expect(md.split('\n')[0]).to.match(/^## ❌/);
  });

  it('pluralises the counts', function () {
    const t = smallReport(false).totals;
    expect(countsLine(t)).to.equal(
      '**1 passed** · **1 failed** · 1 expected failure · 1 unexpected pass · 1 skipped · 1 infra error — 6 cells — plus 2 other tests, 1 failed',
    );
  });

  it('does not call an empty run green', function () {
    const md = renderSummary(makeReport(sampleReport(false).run, []));
    expect(md.split('\n')[0]).to.equal('## ⚠️ hybrid-lab conformance: hybrid');
    expect(md).to.include('**No matrix cell ran**');
  });
});
