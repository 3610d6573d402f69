/**
 * `npm run mutation -- --scope ci --changed`: the part of a scope a change touched, so CI's run
 * depends on the change alone, not on state a machine kept: the scope's lines the diff against
 * the base added or changed, and, for a changed test of the scope, the scope's files that test
 * reaches through its imports, whole.
 */
import { dirname, join, normalize } from 'node:path';
import { functionRanges, type FunctionsOf } from './mutation-args.ts';

/** Line ranges (first, last; 1-based, inclusive) of the new side of a diff, per file. */
export type ChangedLines = Map<string, [number, number][]>;

/**
 * Parses `git diff -U0` output: each hunk's new lines; a hunk that only deletes marks the line
 * before and after the cut (the code now joined there). A file the base lacks is whole
 * (`[1, Infinity]`).
 */
export function parseDiff(diff: string): ChangedLines {
  const changed: ChangedLines = new Map();
  let file: string | undefined;
  let created = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('--- ')) created = line === '--- /dev/null';
    else if (line.startsWith('+++ ')) {
      file = line === '+++ /dev/null' ? undefined : line.slice('+++ b/'.length);
      if (file !== undefined) changed.set(file, created ? [[1, Infinity]] : []);
    } else if (file !== undefined && !created) {
      const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (hunk === null) continue;
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      changed
        .get(file)!
        .push(count === 0 ? [Math.max(1, start), start + 1] : [start, start + count - 1]);
    }
  }
  return changed;
}

const overlaps = (a: [number, number], b: [number, number]) => a[0] <= b[1] && b[0] <= a[1];
const range = (file: string, [first, last]: [number, number]) =>
  last === Infinity ? file : `${file}:${first}-${last}`;

/** The repository files `file` imports (relative imports only), transitively, itself included. */
export function importClosure(
  file: string,
  read: (file: string) => string | undefined,
): Set<string> {
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f)) return;
    const text = read(f);
    if (text === undefined) return;
    seen.add(f);
    for (const m of text.matchAll(/(?:from|import)\s+'(\.\.?\/[^']+)'/g))
      visit(normalize(join(dirname(f), m[1]!)));
  };
  visit(file);
  return seen;
}

/**
 * Stryker `--mutate` entries for the part of a scope (`mutate`, tested by `tests`) that `changed`
 * touched; empty when the change touched none of it. `read` gives a file's text (undefined when
 * there is none).
 */
export function changedMutate(
  mutate: readonly (string | FunctionsOf)[],
  tests: readonly string[],
  changed: ChangedLines,
  read: (file: string) => string | undefined,
): string[] {
  const reached = new Set(
    tests.filter((t) => changed.has(t)).flatMap((t) => [...importClosure(t, read)]),
  );
  return mutate.flatMap((m) => {
    const file = typeof m === 'string' ? m : m.file;
    // The parts of the file the scope mutates: all of it, or its listed functions.
    const parts: [number, number][] =
      typeof m === 'string'
        ? [[1, Infinity]]
        : functionRanges(file, read(file) ?? '', m.functions).map((r) => {
            const [first, last] = r
              .slice(file.length + 1)
              .split('-')
              .map(Number);
            return [first!, last!];
          });
    if (reached.has(file)) return parts.map((p) => range(file, p));
    const lines = changed.get(file) ?? [];
    return parts.flatMap((part) =>
      lines
        .filter((l) => overlaps(l, part))
        .map((l): [number, number] => [Math.max(l[0], part[0]), Math.min(l[1], part[1])])
        .map((l) => range(file, l)),
    );
  });
}
