/**
 * The facts part of docs/windows-facts.md, rendered from the catalogue (windows-facts.ts): the page
 * holds it between two marker lines, and a test keeps it equal to this rendering
 * (`UPDATE_DOCS=1` in that test rewrites it).
 */
import { WINDOWS_FACTS, type WindowsFact } from './windows-facts.ts';

export const FACTS_BEGIN =
  '<!-- facts: rendered from lab/provision/windows-facts.ts by windows-facts-page.ts; edit the catalogue, not this part -->';
export const FACTS_END = '<!-- end of facts -->';

/** Inline code that may itself hold backticks. */
function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ` ${text} ` : text}${fence}`;
}

function renderFact(fact: WindowsFact): string[] {
  return [
    `### ${fact.id}`,
    '',
    fact.fact,
    '',
    `**So the code:** ${fact.soTheCode}`,
    '',
    ...(fact.values === undefined
      ? []
      : [
          'Values the code takes from it:',
          '',
          ...Object.entries(fact.values).map(([k, v]) => `- ${k}: ${code(v)}`),
          '',
        ]),
    'Sources:',
    '',
    ...fact.sources.map((s) => `- ${s.startsWith('https://') ? `<${s}>` : code(s)}`),
    '',
    `Relied on by: ${fact.reliedOnBy.map(code).join(', ')}`,
    '',
    'Checked by:',
    '',
    ...fact.checkedBy.map((c) => `- ${code(c.file)}: ${c.test}`),
    '',
  ];
}

/** The page's facts part, markers included. */
export function renderFactsSection(facts: readonly WindowsFact[] = WINDOWS_FACTS): string {
  return [
    FACTS_BEGIN,
    '',
    '| fact | checked by |',
    '| --- | --- |',
    ...facts.map(
      (f) =>
        `| [${f.id}](#${f.id}) | ${[...new Set(f.checkedBy.map((c) => code(c.file)))].join(', ')} |`,
    ),
    '',
    ...facts.flatMap(renderFact),
    FACTS_END,
  ].join('\n');
}

/** `page` with its facts part replaced by the rendering of `facts`. */
export function withFactsSection(
  page: string,
  facts: readonly WindowsFact[] = WINDOWS_FACTS,
): string {
  const begin = page.indexOf(FACTS_BEGIN);
  const end = page.indexOf(FACTS_END);
  if (begin < 0 || end < begin) throw new Error('the page has no facts part between its markers');
  return `${page.slice(0, begin)}${renderFactsSection(facts)}${page.slice(end + FACTS_END.length)}`;
}
