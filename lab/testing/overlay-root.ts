/**
 * Runs a node script for real on this machine without changing it: as root, in a private mount
 * namespace where some folders (/etc, /opt, /usr/local) are overlays. The script reads this
 * machine's files; what it writes lands in a folder of the test's, which later runs see too and
 * the test inspects. Test support, not a test file itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { missing, type Skip } from './skip.ts';

export interface OverlayRun {
  status: number | null;
  /** stdout then stderr. */
  out: string;
}

/** Why overlays cannot be had here, or undefined. */
export function overlayUnavailable(): Skip | undefined {
  if (process.getuid?.() !== 0) return missing('needs root (overlay mounts in a mount namespace)');
  const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']);
  return probe.status === 0
    ? undefined
    : missing('unshare --mount failed (apt-get install util-linux; needs CAP_SYS_ADMIN)');
}

export class OverlayRoot {
  /** `work` is the test's folder (removed by stop()); `dirs` the absolute folders overlaid. */
  constructor(
    readonly work: string,
    readonly dirs: readonly string[] = ['/etc', '/opt', '/usr/local'],
  ) {
    this.dirs.forEach((_, i) => {
      mkdirSync(join(work, 'upper', String(i)), { recursive: true });
      mkdirSync(join(work, 'scratch', String(i)), { recursive: true });
    });
  }

  /** Runs argv with the overlays mounted and `env` added to this process's environment. */
  run(argv: readonly string[], env: Record<string, string> = {}): OverlayRun {
    const mounts = this.dirs.map(
      (dir, i) =>
        `mount -t overlay hl-overlay -o lowerdir=${dir},upperdir=${join(this.work, 'upper', String(i))},workdir=${join(this.work, 'scratch', String(i))} ${dir}`,
    );
    const result = spawnSync(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'bash',
        '-c',
        `set -e; ${mounts.join('; ')}; exec "$@"`,
        'bash',
        ...argv,
      ],
      { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 },
    );
    return { status: result.status, out: `${result.stdout}${result.stderr}` };
  }

  /** Every file and link the runs wrote below the overlaid folders, as absolute paths, sorted. */
  changes(): string[] {
    return this.dirs
      .flatMap((dir, i) => {
        const upper = join(this.work, 'upper', String(i));
        return walk(upper).map((p) => join(dir, relative(upper, p)));
      })
      .sort();
  }

  /** A file as the runs left it. */
  read(path: string): string {
    const i = this.dirs.findIndex((d) => path.startsWith(`${d}/`));
    if (i < 0) throw new Error(`${path} is not below an overlaid folder`);
    return readFileSync(join(this.work, 'upper', String(i), relative(this.dirs[i]!, path)), 'utf8');
  }

  stop(): void {
    rmSync(this.work, { recursive: true, force: true });
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? walk(path) : [path];
  });
}
