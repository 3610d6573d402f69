/** Whether a page's relative links reach a file of the repository, and their #anchors a heading. */
import { dirname, join, normalize } from 'node:path';
import { anchors, links } from './markdown.ts';

/** The repository as the links see it: its files' paths and their text. */
export interface Repository {
  /** Repository-relative file paths. */
  files: ReadonlySet<string>;
  read(path: string): string;
}

/** Folders holding the repository's files, so a link to `ci/` resolves too. */
function folders(files: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const file of files)
    for (let dir = dirname(file); dir !== '.'; dir = dirname(dir)) out.add(dir);
  return out;
}

/** One line per relative link of `page` that leads nowhere: `page:line: target: why`. */
export function brokenLinks(page: string, repo: Repository): string[] {
  const dirs = folders(repo.files);
  const problems: string[] = [];
  for (const { line, target } of links(repo.read(page))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check
    const hash = target.indexOf('#');
    const pathPart = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const path =
      pathPart === '' ? page : normalize(join(dirname(page), decodeURIComponent(pathPart)));
    const where = `${page}:${line}: ${target}`;
    if (path.startsWith('..') || path.startsWith('/')) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    const folder = path.replace(/\/$/, '');
    if (!repo.files.has(path) && !dirs.has(folder)) {
      problems.push(`${where}: no file ${path}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!path.endsWith('.md'))
      problems.push(`${where}: an anchor into a file that is not Markdown`);
    else if (!anchors(repo.read(path)).has(anchor))
      problems.push(`${where}: ${path} has no heading #${anchor}`);
  }
  return problems;
}
