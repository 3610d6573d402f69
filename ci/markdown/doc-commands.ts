/** The commands a page shows: its command tables' first column and the lines of its ```sh blocks. */
import { fenced, tables } from './markdown.ts';

export interface DocCommand {
  /** `page:line: text`, for the test's title. */
  where: string;
  /** Leading `NAME=value` words. */
  env: Record<string, string>;
  argv: string[];
}

/** Sample values for the placeholders of a synopsis. */
const PLACEHOLDERS: Record<string, string> = {
  FILE: 'lab.yaml',
  NAME: 'hybrid',
  NODE: 'cp1',
  N: 'win1',
  FAULT: 'windows-dns-search-list-missing',
  DIR: '/tmp/history',
  URL: 'https://ci.example/run/1',
  'ID,…': 'a,b',
  'CMD…': 'true',
  '…': 'hybrid',
};

/**
 * A synopsis as argv: optional parts `[…]` included, the first of `A\|B` alternatives,
 * placeholders replaced by sample values.
 */
export function concreteArgv(synopsis: string): string[] {
  const words = synopsis
    .replace(/[[\]]/g, ' ')
    .replace(/(\S+?)\\\|\S+/g, '$1')
    .split(/\s+/)
    .filter((w) => w !== '');
  return words.map((w) => PLACEHOLDERS[w] ?? w);
}

/** Leading `NAME=value` words as the command's environment, the rest as argv. */
export function splitEnv(words: readonly string[]): Pick<DocCommand, 'env' | 'argv'> {
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const word = words[i]!;
    env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  return { env, argv: words.slice(i) };
}

/** A ```sh block's commands: `\` continuations joined, comments dropped, split at `&&` and `;`. */
export function shellCommands(body: string): { offset: number; text: string }[] {
  const out: { offset: number; text: string }[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let text = lines[i]!;
    const offset = i;
    while (text.endsWith('\\') && i + 1 < lines.length) text = text.slice(0, -1) + lines[++i]!;
    text = text.replace(/(^|\s)#.*$/, '').trim();
    for (const part of text.split(/&&|;/).map((c) => c.trim()))
      if (part !== '') out.push({ offset, text: part });
  }
  return out;
}

/** Every command `page` shows. A command table is one whose first header cell is `command`. */
export function pageCommands(page: string, text: string): DocCommand[] {
  const found: DocCommand[] = [];
  for (const table of tables(text).filter((t) => t.header[0] === 'command')) {
    for (const row of table.rows) {
      const parts = [...row[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      if (parts.length === 0) continue;
      // `npm run lab -- faults` / `break FAULT`: a continuation takes the first part's prefix.
      const first = parts[0]!;
      const prefix = first.includes(' -- ') ? first.slice(0, first.indexOf(' -- ') + 4) : '';
      for (const part of parts)
        found.push({
          where: `${page}: command table: ${part}`,
          ...splitEnv(concreteArgv(part.startsWith('npm ') ? part : prefix + part)),
        });
    }
  }
  for (const block of fenced(text, 'sh'))
    for (const { offset, text: command } of shellCommands(block.body))
      found.push({
        where: `${page}:${block.line + 1 + offset}: ${command}`,
        ...splitEnv(concreteArgv(command)),
      });
  return found;
}

/** Every `npm run X` a text names, anywhere in it. */
export function npmScriptsNamed(text: string): string[] {
  return [...text.matchAll(/\bnpm run(?: --silent)? ([a-z][\w:.-]*)/g)].map((m) =>
    m[1]!.replace(/[.:-]+$/, ''),
  );
}
