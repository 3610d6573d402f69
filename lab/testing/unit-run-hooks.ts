/**
 * Root hooks of `npm run test:unit`: the run must leave the work tree as it found it (no file
 * a test wrote into the checkout) and no hybrid-lab network namespace. Every temporary folder
 * the tests make (`os.tmpdir()`, here and in their child processes) goes into one folder of
 * the run, removed at its end.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runTmp = mkdtempSync(join(tmpdir(), 'hl-unit-'));
chmodSync(runTmp, 0o1777); // as /tmp: a test may hand a folder to another user
process.env.TMPDIR = runTmp;

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
    // Never through a mount a test left (it would delete what the mount shows): keep the folder.
    const mounted = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .some((l) => l.split(' ')[4]?.startsWith(runTmp));
    if (!mounted) rmSync(runTmp, { recursive: true, force: true });
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
