/** What a mutation run found, for the console and as summary.md (a CI page shows it). */
import type { Equivalent } from './equivalents.ts';
import type { FolderScore, Undetected } from './mutation-report.ts';

export interface MutationReview {
  scores: FolderScore[];
  /** Every mutant no test detected. */
  undetected: Undetected[];
  /** Those stryker-equivalent.json does not explain. */
  unlisted: Undetected[];
  /** Entries of stryker-equivalent.json that explain no survivor. */
  stale: Equivalent[];
  /** thresholds.break of the config; null when none. */
  breakAt: number | null;
}

const percent = (score: number): string => (Number.isNaN(score) ? '-' : `${score.toFixed(2)}%`);
const mutant = (u: Undetected): string =>
  `${u.status} ${u.file}:${u.line} ${u.mutator}: ${JSON.stringify(u.original)} → ${JSON.stringify(u.replacement)}`;
const staleEntry = (e: Equivalent): string =>
  `${e.file} ${e.mutator} ${JSON.stringify(e.original)} → ${JSON.stringify(e.replacement)} matches no survivor: remove it`;

/** Whether the run passes: over the break threshold, and every survivor explained. */
export function reviewOk(review: MutationReview): boolean {
  const all = review.scores.find((s) => s.folder === 'all');
  const over = review.breakAt === null || (all !== undefined && all.score >= review.breakAt);
  return over && review.unlisted.length === 0 && review.stale.length === 0;
}

export function summaryLines(review: MutationReview, equivalentsFile: string): string[] {
  const lines = [
    'mutation score per folder (detected / valid mutants; type errors and static ones excluded):',
  ];
  for (const s of review.scores) {
    const valid = s.detected + s.undetected;
    lines.push(
      `  ${percent(s.score).padStart(7)}  ${s.folder}  (${s.detected}/${valid}, ${s.excluded} excluded)`,
    );
  }
  const listed = review.undetected.length - review.unlisted.length;
  lines.push(
    `${review.undetected.length} mutants undetected, ${listed} of them listed in ${equivalentsFile}`,
  );
  lines.push(...review.unlisted.map((u) => `  ${mutant(u)}`));
  if (review.unlisted.length > 0)
    lines.push(`kill each with a test, or list it in ${equivalentsFile} with why it is equivalent`);
  lines.push(...review.stale.map((e) => `  STALE ${equivalentsFile}: ${staleEntry(e)}`));
  return lines;
}

export function summaryMarkdown(review: MutationReview, equivalentsFile: string): string {
  const all = review.scores.find((s) => s.folder === 'all');
  const verdict = reviewOk(review) ? 'PASS' : 'FAIL';
  const out = [
    `### Mutation testing: ${percent(all?.score ?? NaN)} (break at ${review.breakAt ?? 'none'}) — **${verdict}**`,
    '',
    '| folder | score | detected / valid | excluded |',
    '| --- | --- | --- | --- |',
    ...review.scores.map(
      (s) =>
        `| \`${s.folder}\` | ${percent(s.score)} | ${s.detected} / ${s.detected + s.undetected} | ${s.excluded} |`,
    ),
    '',
    `${review.undetected.length} mutants undetected; ${review.undetected.length - review.unlisted.length} listed as equivalent in \`${equivalentsFile}\`.`,
  ];
  if (review.unlisted.length > 0)
    out.push(
      '',
      '**Not killed and not listed:**',
      '',
      ...review.unlisted.map((u) => `- \`${mutant(u)}\``),
    );
  if (review.stale.length > 0)
    out.push('', '**Stale entries:**', '', ...review.stale.map((e) => `- \`${staleEntry(e)}\``));
  return `${out.join('\n')}\n`;
}
