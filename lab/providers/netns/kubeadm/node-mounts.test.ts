/**
 * node-mounts.sh for real, in a private mount and UTS namespace of this test's (nothing of it
 * reaches the host): which of the host's mounts a namespace node keeps.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { missing, skipIf, type Skip } from '../../../testing/skip.ts';

const NODE_MOUNTS = fileURLToPath(new URL('node-mounts.sh', import.meta.url));

function unavailable(): Skip | undefined {
  if (process.getuid?.() !== 0) return missing('needs root (mount and UTS namespaces)');
  const probe = spawnSync('unshare', ['--mount', '--uts', '--propagation', 'private', 'true']);
  return probe.status === 0 ? undefined : missing('unshare failed (apt-get install util-linux)');
}

/** Mounts a tmpfs on each of cache, state, scripts and other, runs the script, reports what is left. */
const SCENARIO = String.raw`set -e
w=$1 script=$2
for d in cache state scripts other; do mkdir -p "$w/$d" && mount -t tmpfs "hl-test-$d" "$w/$d"; done
mkdir -p "$w/cache/v1/bin" "$w/state/sysctl"
touch "$w/cache/v1/bin/kubeadm"
ln -s v1 "$w/cache/current"
printf '127.0.0.1 localhost\n' >"$w/state/hosts"
: >"$w/state/resolv.conf"
HL_NODE=hl-test-node HL_NODE_STATE="$w/state" HL_NODE_DIRS='' HL_BIN_DIR="$w/cache/current/bin" \
  HL_SYSCTLS='' HL_HOST_PATHS="$w/scripts" sh "$script"
for d in cache state scripts other; do
  if mountpoint -q "$w/$d"; then echo "kept $d"; else echo "dropped $d"; fi
done
echo "bin: $(ls /usr/local/bin)"
echo "hostname: $(hostname)"
`;

describe('node-mounts.sh: what a namespace node keeps of the host', function () {
  const reason = unavailable();
  let work = '';

  before(function () {
    skipIf(this, reason);
    work = mkdtempSync(join(tmpdir(), 'hl-node-mounts-'));
    mkdirSync(join(work, 'w'));
    writeFileSync(join(work, 'scenario.sh'), SCENARIO);
  });

  after(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('keeps the mounts holding its state, its binaries (through a link) and the harness scripts; drops the others', () => {
    const run = spawnSync(
      'unshare',
      [
        '--mount',
        '--uts',
        '--propagation',
        'private',
        'bash',
        join(work, 'scenario.sh'),
        join(work, 'w'),
        NODE_MOUNTS,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout.trim().split('\n')).to.deep.equal([
      'kept cache',
      'kept state',
      'kept scripts',
      'dropped other',
      'bin: kubeadm',
      'hostname: hl-test-node',
    ]);
  });
});
