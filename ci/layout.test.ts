import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The folders docs/layout.md's block names, in its order, as repository paths. */
function layoutFolders(): string[] {
  const page = readFileSync(join(ROOT, 'docs/layout.md'), 'utf8');
  const block = /```\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
  const folders: string[] = [];
  const parents: string[] = [];
  for (const line of block.split('\n')) {
    const match = /^( *)([a-z0-9-]+)\/\s/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 2;
    parents.length = depth;
    parents.push(match[2]!);
    folders.push(parents.join('/'));
  }
  return folders;
}

function foldersUnder(top: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) {
        out.push(path);
        walk(path);
      }
    }
  };
  walk(top);
  return out;
}

function sourceFiles(top: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (/\.(ts|mjs)$/.test(name)) out.push(path);
    }
  };
  walk(top);
  return out;
}

/** Relative imports of a file, as repository paths of the imported files. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    normalize(join(dirname(file), m[1]!)),
  );
}

/** The most specific Layout folder holding `file`. */
function folderOf(file: string, folders: readonly string[]): string | undefined {
  return folders.filter((f) => file.startsWith(`${f}/`)).sort((a, b) => b.length - a.length)[0];
}

const isTest = (file: string): boolean => file.endsWith('.test.ts') || file.includes('/testing/');

describe('the Layout of docs/layout.md', function () {
  const folders = layoutFolders();

  it('names folders that exist, and every folder under lab/ and specs/', function () {
    expect(folders).to.include.members(['lab', 'specs', 'vagrant', 'manifests', 'ci']);
    for (const folder of folders) {
      expect(statSync(join(ROOT, folder), { throwIfNoEntry: false })?.isDirectory(), folder).to.be
        .true;
    }
    const present = [...foldersUnder('lab'), ...foldersUnder('specs')];
    expect(present.filter((f) => !folders.includes(f))).to.deep.equal([]);
  });

  it('orders the folders so that production code imports only downward, and never test support', function () {
    const violations: string[] = [];
    for (const file of [...sourceFiles('lab'), ...sourceFiles('specs')].filter((f) => !isTest(f))) {
      const from = folderOf(file, folders)!;
      for (const target of importsOf(file)) {
        const to = folderOf(target, folders);
        // Own folder, a subfolder, the folder's parents (lab/errors.ts, providers/lab-provider.ts).
        if (
          to === undefined ||
          to === from ||
          to.startsWith(`${from}/`) ||
          from.startsWith(`${to}/`)
        )
          continue;
        if (to.includes('testing')) violations.push(`${file} imports test support ${target}`);
        else if (from.startsWith('lab') && to.startsWith('specs'))
          violations.push(`${file} imports the suite: ${target}`);
        else if (
          from.split('/')[0] === to.split('/')[0] &&
          folders.indexOf(to) < folders.indexOf(from)
        )
          violations.push(
            `${file} (${from}) imports upward: ${relative(ROOT, join(ROOT, target))}`,
          );
      }
    }
    expect(violations).to.deep.equal([]);
  });
});
