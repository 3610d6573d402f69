/** The test files a mutation run loads: globs over the project's paths, minus the ignored ones. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { globToRegExp } from '../../lab/text/glob.ts';

/** Project-relative paths of every file under `root`, skipping node_modules and dot folders. */
function walk(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    return entry.isDirectory() ? walk(root, path) : [path];
  });
}

/** Absolute paths of the files under `root` that some `spec` glob and no `ignore` glob matches, sorted. */
export function specFiles(
  root: string,
  spec: readonly string[],
  ignore: readonly string[],
): string[] {
  const wanted = spec.map(globToRegExp);
  const unwanted = ignore.map(globToRegExp);
  return walk(root)
    .filter((f) => wanted.some((re) => re.test(f)) && !unwanted.some((re) => re.test(f)))
    .sort()
    .map((f) => join(root, f));
}
