import { expect } from 'chai';
import { EMULATED_BANNER } from './cell-text.ts';
import { sampleReport } from '../testing/sample-report.ts';
import { smallReport } from '../testing/small-report.ts';
import { renderMatrixHtml } from './matrix-html-writer.ts';
import { makeReport } from '../model/report.ts';

/** The grid cell elements (`<td class="pos …">…</td>`) of a page. */
function positions(html: string): string[] {
  return [...html.matchAll(/<td class="pos [^"]*"[^>]*>.*?<\/td>/gs)].map((m) => m[0]);
}

describe('report: matrix.html', function () {
  it('is self-contained: inline CSS, no scripts, no external resources', function () {
    const html = renderMatrixHtml(sampleReport(true));
    expect(html).to.match(/^<!doctype html>/);
    expect(html).to.include('<style>');
    expect(html).not.to.match(/<script|<link|<img|<iframe|\ssrc=|url\(|@import/i);
  });

  it('shows a prominent EMULATED banner only when emulated', function () {
    const emulated = renderMatrixHtml(sampleReport(true));
    expect(emulated).to.match(
      new RegExp(`<body>\\s*<div class="banner banner-emulated">⚠ ${EMULATED_BANNER}`),
    );
    expect(emulated).to.include(
      '<title>hybrid-lab matrix — hybrid 20250301-3fa9c2 (EMULATED)</title>',
    );
    const real = renderMatrixHtml(sampleReport(false)).replace(/<style>.*<\/style>/s, '');
    expect(real).not.to.match(/EMULATED|emulated|banner-emulated/);
  });

  it('has a run-info header, totals and a legend', function () {
    const html = renderMatrixHtml(sampleReport(false));
    for (const text of [
      '20250301-3fa9c2',
      'libvirt',
      '1.30.4',
      'known-limitations',
      'Windows Server 2022',
    ]) {
      expect(html).to.include(text);
    }
    expect(html).to.include('<span class="chip st-pass">53 passed</span>');
    expect(html).to.include('<span class="chip st-fail">1 unexpected pass</span>');
    expect(html).to.include('<div class="legend">');
  });

  it('draws one grid per via, coloured by the worst verdict at each position', function () {
    const html = renderMatrixHtml(sampleReport(true));
    expect(html.match(/<section class="card"><h2>via /g)).to.have.length(4);
    const [overview, nodeView = ''] = html.split('<h2 class="view">Node by node');
    const cells = positions(overview!);
    // The node view follows, one grid per path.
    expect(nodeView.match(/<section class="card"><h2>[a-z-]+ by node</g)?.length).to.be.greaterThan(
      2,
    );
    const count = (status: string): number =>
      cells.filter((c) => c.startsWith(`<td class="pos st-${status}"`)).length;
    expect(count('fail')).to.equal(4);
    expect(count('expected-failure')).to.equal(1);
    expect(count('pass')).to.be.greaterThan(10);
    const outbound = cells.find((c) => c.includes('outbound-nat windows win1'));
    expect(outbound).to.match(/^<td class="pos st-fail"/);
    expect(outbound).to.include('<div>1 unexpected pass</div><div>3 expected failures</div>');
  });

  it('lists every cell of a position in its tooltip and details', function () {
    const html = renderMatrixHtml(sampleReport(true));
    const cell = positions(html).find((c) =>
      c.includes('cross-node via ip udp: expected ok, got timeout'),
    );
    expect(cell).to.include(
      'title="✔ pod-to-pod linux-to-windows cross-node via ip tcp: ok\n✘ pod-to-pod',
    );
    expect(cell).to.include(
      '<li>✘ pod-to-pod linux-to-windows cross-node via ip udp: expected ok, got timeout — no UDP echo',
    );
  });

  it('escapes everything that comes from data, in text and attributes', function () {
    const html = renderMatrixHtml(smallReport(false));
    expect(html).not.to.include('<script>');
    expect(html).not.to.include('alert("x")');
    expect(html).not.to.include('\u001b');
    expect(html).to.include('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ]]&gt; red');
    for (const title of html.matchAll(/title="([^"]*)"/g)) expect(title[1]).not.to.match(/[<>]/);
  });

  it('turns http(s) links in reasons into anchors, and nothing else', function () {
    const report = smallReport(false);
    const cells = report.cells.map((c) =>
      c.verdict === 'expected-failure'
        ? { ...c, reason: `see javascript:alert(1) and ${c.reason ?? ''}` }
        : c,
    );
    const html = renderMatrixHtml(makeReport(report.run, cells));
    expect(html).to.include(
      '<a href="https://github.com/kubernetes/kubernetes/issues/62029">https://github.com/kubernetes/kubernetes/issues/62029</a>',
    );
    expect(html).not.to.include('href="javascript');
  });

  it('marks interrupted runs with a banner', function () {
    const report = sampleReport(false);
    const html = renderMatrixHtml(makeReport(report.run, report.cells, [], 'SIGTERM'));
    expect(html).to.include('<div class="banner banner-interrupted">■ INTERRUPTED by SIGTERM');
  });
});
