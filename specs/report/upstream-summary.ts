/** summary.md's part on upstream's e2e.test: a loud banner for disagreements, then the section. */
import type { CrossCheckRow, SideVerdict } from '../../lab/contracts/upstream-results.ts';
import { upstreamHasProblems } from '../../lab/contracts/upstream-results.ts';
import { escapeMarkdown as md, truncate } from '../../lab/text/escape.ts';
import type { Report } from '../model/report.ts';
import {
  disagreementLine,
  disagreements,
  failureHeadline,
  skipGroups,
  testsOf,
  upstreamCounts,
} from './upstream-text.ts';

const MESSAGE_MAX = 300;
/** Names listed under one skip reason, at most (the rest are counted). */
const NAMES_PER_REASON = 12;

/** Right under the headline: every disagreement, so no reader misses one. */
export function upstreamBanner(report: Report): string[] {
  const rows = disagreements(report.upstream);
  if (rows.length === 0) return [];
  return [
    `> ❗ **${rows.length} DISAGREEMENT${rows.length === 1 ? '' : 'S'} between upstream e2e.test and the matrix on the same lab — one of the two is wrong:**`,
    ...rows.map((r) => `> - ${md(disagreementLine(r))}`),
    '',
  ];
}

/** The upstream section; nothing when e2e.test did not run beside this matrix run. */
export function upstreamSection(report: Report): string[] {
  const run = report.upstream;
  if (run === undefined) return [];
  const icon = run.status === 'skipped' ? '➖' : upstreamHasProblems(run) ? '❌' : '✅';
  const out = [`## ${icon} Upstream ${md(run.engine)} on ${md(run.lab)}`, ''];
  if (run.status === 'skipped') return [...out, `Skipped: ${md(run.reason ?? '')}`, ''];
  if (run.status === 'infra-error')
    out.push(`> 🚧 **e2e.test did not run through:** ${md(run.reason ?? '')}`, '');
  out.push(`**${md(upstreamCounts(run))}**`, '');
  for (const note of run.notes ?? []) out.push(`> ℹ️ ${md(note)}`, '');
  out.push(
    `focus \`${run.focus.replaceAll('`', "'")}\``,
    '',
    `skip \`${run.skip.replaceAll('`', "'")}\``,
    '',
  );
  out.push(...crossCheckTable(run.crossCheck ?? []));
  const list = (title: string, lines: string[]) => {
    if (lines.length > 0) out.push(`### ${title} (${lines.length})`, '', ...lines, '');
  };
  const message = (m: string | undefined) => md(truncate(failureHeadline(m), MESSAGE_MAX));
  list(
    'Upstream infrastructure errors',
    testsOf(run, 'infra-error').map((t) => `- **${md(t.name)}** — ${message(t.message)}`),
  );
  list(
    'Upstream failures',
    testsOf(run, 'fail').map((t) => `- **${md(t.name)}** — ${message(t.message)}`),
  );
  list(
    'Upstream unexpected passes (a known limit no longer holds: update specs/upstream/upstream-catalogue.yaml)',
    testsOf(run, 'unexpected-pass').map(
      (t) => `- **${md(t.name)}** — listed because ${md(t.reason ?? '')}`,
    ),
  );
  list(
    'Upstream expected failures: limits of the lab',
    testsOf(run, 'expected-failure').map((t) => `- ${md(t.name)} — ${md(t.reason ?? '')}`),
  );
  const groups = skipGroups(run);
  if (groups.length > 0) {
    out.push(`### Upstream skipped (${testsOf(run, 'skipped').length}), by reason`, '');
    for (const g of groups) {
      const names = g.tests.slice(0, NAMES_PER_REASON).map((t) => md(t.name));
      const more =
        g.tests.length > names.length ? `; and ${g.tests.length - names.length} more` : '';
      out.push(
        `- **${g.tests.length}** — ${md(g.reason)}<br><sub>${names.join(' · ')}${more}</sub>`,
      );
    }
    out.push('');
  }
  return out;
}

const SIDE: Record<SideVerdict, string> = {
  pass: '✅',
  fail: '❌',
  partial: '❌ some nodes',
  none: '➖',
};
const AGREEMENT = {
  agree: 'agree',
  disagree: '❗ **DISAGREE**',
  'not-comparable': 'not comparable',
};

function crossCheckTable(rows: readonly CrossCheckRow[]): string[] {
  if (rows.length === 0) return [];
  return [
    '### Cross-check: upstream beside the matrix',
    '',
    'Each upstream spec beside the matrix rows it covers (➖: skipped, not run or a known limit on that side). Upstream probes from one pod, the matrix from every node: red on some nodes agrees with an upstream failure and is not compared with an upstream pass.',
    '',
    '| upstream spec | upstream | matrix rows | matrix | |',
    '|---|:---:|---|:---:|---|',
    ...rows.map(
      (r) =>
        `| ${md(r.test)} | ${SIDE[r.upstream]} | ${md(r.rows.join(', '))}${r.note === undefined ? '' : `<br><sub>${md(r.note)}</sub>`} | ${SIDE[r.matrix]} | ${AGREEMENT[r.agreement]} |`,
    ),
    '',
  ];
}
