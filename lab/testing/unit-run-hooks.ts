/**
 * Root hooks of `npm run test:unit`: the run must leave the work tree as it found it (no file
 * a test wrote into the checkout) and no hybrid-lab network namespace.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function lines(file: string, args: string[], cwd?: string): Set<string> {
  try {
    const out = execFileSync(file, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return new Set(out.split('\n').filter((l) => l.trim() !== ''));
  } catch {
    return new Set(); // no git checkout, or no iproute2: nothing to compare
  }
}

/** Untracked or changed paths of the checkout, and hybrid-lab's network namespaces (`hl-…`) here. */
function snapshot(): { tree: Set<string>; netns: Set<string> } {
  return {
    tree: lines('git', ['status', '--porcelain', '--untracked-files=all'], REPO),
    netns: new Set(
      [...lines('ip', ['netns', 'list'])]
        .map((l) => l.split(' ')[0]!)
        .filter((n) => n.startsWith('hl')),
    ),
  };
}

let before: ReturnType<typeof snapshot> | undefined;

export const mochaHooks = {
  beforeAll(): void {
    before = snapshot();
  },
  afterAll(): void {
    if (before === undefined) return;
    const after = snapshot();
    const added = (was: Set<string>, now: Set<string>) => [...now].filter((x) => !was.has(x));
    const tree = added(before.tree, after.tree);
    const netns = added(before.netns, after.netns);
    if (tree.length + netns.length > 0) {
      throw new Error(
        'the unit run left things behind:\n' +
          [
            ...tree.map((t) => `  work tree: ${t}`),
            ...netns.map((n) => `  network namespace: ${n}`),
          ].join('\n'),
      );
    }
  },
};
