/**
 * The clean Debian of ci/clean-debian.sh: bookworm minbase and nothing else, so a README command
 * that counts on a package it does not install fails there.
 *   tsx ci/tools/clean-root.ts CACHE_DIR   builds the root if absent; prints `root=PATH`, `mirror=URL`
 */
import { LabError } from '../../lab/errors.ts';
import { ExecaRunner } from '../../lab/exec/execa-runner.ts';
import { silentLogger } from '../../lab/log/logger.ts';
import {
  debianMirror,
  ensureDebianRoot,
  type DebianRootRecipe,
} from '../../lab/testing/debian-root.ts';
import { isMain, runMain } from './run-main.ts';

export const CLEAN_ROOT: DebianRootRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  include: [],
  mirror: debianMirror(),
};

async function main(argv: string[]): Promise<void> {
  const [cacheDir] = argv;
  if (cacheDir === undefined || argv.length > 1)
    throw new LabError('usage: clean-root.ts CACHE_DIR');
  const root = await ensureDebianRoot(new ExecaRunner(silentLogger()), cacheDir, CLEAN_ROOT);
  process.stdout.write(`root=${root}\nmirror=${CLEAN_ROOT.mirror}\n`);
}

if (isMain(import.meta.url)) await runMain('clean-root', main);
