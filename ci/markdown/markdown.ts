/** Reading the project's Markdown as GitHub renders it: fenced blocks, tables, links, heading anchors. */

export interface FencedBlock {
  /** The info string after the opening fence (`sh`, `yaml`, or empty). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  body: string;
}

/** Every fenced block, also those indented inside list items. */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    let end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    if (end === -1) end = lines.length;
    blocks.push({ lang: open[1]!, line: i + 1, body: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The fenced blocks of one language. */
export function fenced(text: string, lang: string): FencedBlock[] {
  return fencedBlocks(text).filter((b) => b.lang === lang);
}

/** The lines outside fenced blocks, with their 1-based numbers. */
export function proseLines(text: string): { line: number; text: string }[] {
  const inside = new Set<number>();
  const lines = text.split('\n');
  for (const block of fencedBlocks(text)) {
    const bodyLines = block.body === '' ? 0 : block.body.split('\n').length;
    for (let n = block.line; n <= block.line + bodyLines + 1; n++) inside.add(n);
  }
  return lines.flatMap((l, i) => (inside.has(i + 1) ? [] : [{ line: i + 1, text: l }]));
}

/** Cells of a table row (`| a | b \| c |`), `\|` kept as a literal bar. */
export function tableCells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

export interface Table {
  line: number;
  header: string[];
  rows: string[][];
}

/** Every pipe table outside fenced blocks. */
export function tables(text: string): Table[] {
  const found: Table[] = [];
  const prose = proseLines(text);
  for (let i = 0; i + 1 < prose.length; i++) {
    const head = prose[i]!;
    const rule = prose[i + 1]!;
    if (!head.text.trim().startsWith('|') || !/^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(rule.text))
      continue;
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < prose.length && prose[j]!.text.trim().startsWith('|'); j++)
      rows.push(tableCells(prose[j]!.text));
    found.push({ line: head.line, header: tableCells(head.text), rows });
    i = j - 1;
  }
  return found;
}

/** A line with its inline code spans blanked out, so that `[x](y)` inside code is no link. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
}

export interface Link {
  line: number;
  target: string;
}

/** Inline links and images (`[text](target)`, `![alt](target)`) in the prose. */
export function links(text: string): Link[] {
  return proseLines(text).flatMap(({ line, text: l }) =>
    [...withoutCodeSpans(l).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({
      line,
      target: m[1]!,
    })),
  );
}

/** The anchor GitHub gives a heading: its text lower-cased, punctuation dropped, spaces as `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings' (repeats numbered `-1`, `-2` as GitHub does). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const { text: l } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (heading === null) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}
