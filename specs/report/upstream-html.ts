/** matrix.html's part on upstream's e2e.test: a loud banner for disagreements, then the section. */
import type { CrossCheckRow, SideVerdict } from '../../lab/contracts/upstream-results.ts';
import { upstreamHasProblems } from '../../lab/contracts/upstream-results.ts';
import { escapeHtml as h } from '../../lab/text/escape.ts';
import type { Report } from '../model/report.ts';
import {
  disagreementLine,
  disagreements,
  failureHeadline,
  skipGroups,
  testsOf,
  upstreamCounts,
} from './upstream-text.ts';

/** Styles of the upstream part, added to the page's stylesheet. */
export const UPSTREAM_CSS = `
.banner-disagree{background:#cf222e;color:#fff;text-align:left}
.banner-disagree ul{margin:6px 0 0;font-size:14px;font-weight:400}
section.upstream{padding:0 24px 24px}
section.upstream table{border-collapse:collapse;background:#fff}
section.upstream td,section.upstream th{border:1px solid #d0d7de;padding:4px 8px;font-size:13px;text-align:left}
section.upstream td.side{text-align:center;font-weight:700}
`;

/** The banner at the top of the page: every disagreement between upstream and the matrix. */
export function upstreamBannerHtml(report: Report): string {
  const rows = disagreements(report.upstream);
  if (rows.length === 0) return '';
  return (
    `<div class="banner banner-disagree">❗ ${rows.length} DISAGREEMENT${rows.length === 1 ? '' : 'S'} between upstream e2e.test and the matrix — one of the two is wrong` +
    `<ul>${rows.map((r) => `<li>${h(disagreementLine(r))}</li>`).join('')}</ul></div>`
  );
}

/** The upstream section; empty when e2e.test did not run beside this matrix run. */
export function upstreamSectionHtml(report: Report): string {
  const run = report.upstream;
  if (run === undefined) return '';
  const status = run.status === 'skipped' ? 'skipped' : upstreamHasProblems(run) ? 'fail' : 'pass';
  const head = `<h2><span class="tag st-${status}">${h(status === 'fail' ? 'problems' : status)}</span> Upstream ${h(run.engine)} on ${h(run.lab)}</h2>`;
  if (run.status === 'skipped') {
    return `<section class="upstream">${head}<p>Skipped: ${h(run.reason ?? '')}</p></section>`;
  }
  const parts = [head];
  if (run.status === 'infra-error')
    parts.push(`<p><b>e2e.test did not run through:</b> ${h(run.reason ?? '')}</p>`);
  parts.push(`<p><b>${h(upstreamCounts(run))}</b></p>`);
  for (const note of run.notes ?? []) parts.push(`<p>ℹ ${h(note)}</p>`);
  parts.push(`<p class="cellid">focus ${h(run.focus)}<br>skip ${h(run.skip)}</p>`);
  parts.push(crossCheckTable(run.crossCheck ?? []));
  const list = (title: string, items: string[]) => {
    if (items.length > 0)
      parts.push(`<h3>${h(title)} (${items.length})</h3><ul>${items.join('')}</ul>`);
  };
  const failed = (verdict: 'fail' | 'infra-error') =>
    testsOf(run, verdict).map(
      (t) =>
        `<li><b>${h(t.name)}</b> — ${h(failureHeadline(t.message))}<pre class="detail">${h(t.message ?? '')}</pre></li>`,
    );
  list('Upstream infrastructure errors', failed('infra-error'));
  list('Upstream failures', failed('fail'));
  list(
    'Upstream unexpected passes: a known limit no longer holds',
    testsOf(run, 'unexpected-pass').map(
      (t) => `<li><b>${h(t.name)}</b> — listed because ${h(t.reason ?? '')}</li>`,
    ),
  );
  list(
    'Upstream expected failures: limits of the lab',
    testsOf(run, 'expected-failure').map((t) => `<li>${h(t.name)} — ${h(t.reason ?? '')}</li>`),
  );
  list(
    'Upstream skipped, by reason',
    skipGroups(run).map(
      (g) =>
        `<li><b>${g.tests.length}</b> — ${h(g.reason)}<details><summary>specs</summary><ul>${g.tests.map((t) => `<li>${h(t.name)}</li>`).join('')}</ul></details></li>`,
    ),
  );
  return `<section class="upstream">${parts.join('\n')}</section>`;
}

const SIDE: Record<SideVerdict, [string, string]> = {
  pass: ['✔', 'pass'],
  fail: ['✘', 'fail'],
  partial: ['✘ some nodes', 'fail'],
  none: ['–', 'skipped'],
};

function crossCheckTable(rows: readonly CrossCheckRow[]): string {
  if (rows.length === 0) return '';
  const side = (s: SideVerdict) => `<td class="side st-${SIDE[s][1]}">${SIDE[s][0]}</td>`;
  const body = rows.map(
    (r) =>
      `<tr><td>${h(r.test)}</td>${side(r.upstream)}<td>${h(r.rows.join(', '))}${r.note === undefined ? '' : `<br><small>${h(r.note)}</small>`}</td>${side(r.matrix)}<td>${r.agreement === 'disagree' ? '<b>❗ DISAGREE</b>' : h(r.agreement)}</td></tr>`,
  );
  return `<h3>Cross-check: upstream beside the matrix</h3><table><thead><tr><th>upstream spec</th><th>upstream</th><th>matrix rows</th><th>matrix</th><th></th></tr></thead><tbody>${body.join('\n')}</tbody></table>`;
}
