/**
 * A debootstrap'd Debian root filesystem, built once per recipe and kept under the recipe's hash:
 * a changed recipe builds a new root; a build that dies half-way is never taken for a root.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandRunner } from '../exec/command-runner.ts';

/** What debootstrap is asked for; every field is part of the hash. */
export interface DebianRootRecipe {
  readonly suite: string;
  readonly variant: 'minbase';
  /** Packages beyond the variant's. */
  readonly include: readonly string[];
  readonly mirror: string;
}

const HL_APT = fileURLToPath(new URL('../../vagrant/bin/hl-apt.sh', import.meta.url));

/**
 * The Debian mirror, as every recipe takes it (vagrant/bin/hl-apt.sh's hl_debian_mirror):
 * HL_DEBIAN_MIRROR, else the first Debian archive of the machine's apt sources (under
 * HL_APT_ROOT); throws saying so when neither names one.
 */
export function debianMirror(env: NodeJS.ProcessEnv = process.env): string {
  const run = spawnSync('bash', ['-c', `. ${HL_APT} && hl_debian_mirror`], {
    env: {
      PATH: env.PATH ?? '/usr/bin:/bin',
      HL_DEBIAN_MIRROR: env.HL_DEBIAN_MIRROR ?? '',
      HL_APT_ROOT: env.HL_APT_ROOT ?? '',
    },
    encoding: 'utf8',
  });
  if (run.status !== 0)
    throw new Error(run.stderr.trim() || `hl_debian_mirror exited ${run.status}`);
  return run.stdout.trim();
}

/** Twelve hex digits naming the recipe's root in its cache folder. */
export function rootRecipeHash(recipe: DebianRootRecipe): string {
  const canonical = JSON.stringify([
    recipe.suite,
    recipe.variant,
    [...recipe.include].sort(),
    recipe.mirror,
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/**
 * The root for `recipe` under `cacheDir` (built now when absent, which needs the mirror). A new
 * build replaces the roots of other recipes there; a killed one leaves only a `.part` folder.
 */
export async function ensureDebianRoot(
  runner: CommandRunner,
  cacheDir: string,
  recipe: DebianRootRecipe,
): Promise<string> {
  const hash = rootRecipeHash(recipe);
  const root = join(cacheDir, hash);
  if (existsSync(root)) return root;
  mkdirSync(join(cacheDir, 'debs'), { recursive: true });
  const part = mkdtempSync(join(cacheDir, `${hash}.part-`));
  chmodSync(part, 0o755); // it becomes `/`: mkdtemp's 0700 kept every other user out (dbus, _apt)
  try {
    const include = recipe.include.length > 0 ? [`--include=${recipe.include.join(',')}`] : [];
    await runner.run(
      'debootstrap',
      [
        `--variant=${recipe.variant}`,
        ...include,
        `--cache-dir=${join(cacheDir, 'debs')}`,
        recipe.suite,
        part,
        recipe.mirror,
      ],
      { timeoutMs: 20 * 60_000 },
    );
    // Another run may have finished the same recipe meanwhile: its root stands.
    if (existsSync(root)) await removeTree(runner, part);
    else renameSync(part, root);
  } catch (error) {
    await removeTree(runner, part);
    throw error;
  }
  for (const name of readdirSync(cacheDir))
    if (/^[0-9a-f]{12}$/.test(name) && name !== hash)
      await removeTree(runner, join(cacheDir, name));
  return root;
}

/** Removes a root without crossing into anything a dead debootstrap left mounted in it (proc, sys). */
async function removeTree(runner: CommandRunner, dir: string): Promise<void> {
  await runner.run('rm', ['-rf', '--one-file-system', dir], {
    check: false,
    timeoutMs: 10 * 60_000,
  });
}
