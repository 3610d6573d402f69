/** Integration: a harness killed with SIGKILL in the middle of `lab up` leaves nothing after `lab reap`. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { processAlive } from '../exec/process-alive.ts';
import { missing, skipIf, type Skip } from '../testing/skip.ts';

const CLI = ['node_modules/.bin/tsx', 'lab/cli/main.ts'];
const LAB = 'crash';
const PREFIX = `hl-${LAB}-`;

function canRunNetns(): Skip | undefined {
  if (process.getuid?.() !== 0) return missing('needs root for network namespaces');
  const probe = spawnSync('ip', ['netns', 'list']);
  return probe.status === 0 ? undefined : missing('ip netns is not usable here');
}

function labNamespaces(): string[] {
  const out = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(PREFIX));
}

function pidsIn(namespaces: string[]): number[] {
  return namespaces.flatMap((ns) =>
    spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((l) => l !== '')
      .map(Number),
  );
}

/** Lab workloads (netexec: the external echo, pods), not the short commands the harness runs there. */
function workloadPids(namespaces: string[]): number[] {
  return pidsIn(namespaces).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('netexec');
    } catch {
      return false;
    }
  });
}

describe('kill -9 during lab up, then lab reap (real namespaces)', function () {
  this.timeout(120_000);
  const skip = canRunNetns();
  const home = mkdtempSync(join(tmpdir(), 'hl-crash-'));
  const env = { ...process.env, LAB_HOME: join(home, '.lab'), CI: 'true' };

  before(function () {
    skipIf(this, skip);
  });

  after(() => {
    spawnSync(CLI[0]!, [...CLI.slice(1), 'reap', '--lab', LAB], { env });
    rmSync(home, { recursive: true, force: true });
  });

  it('leaves 0 namespaces and 0 processes', async () => {
    const spec = join(home, 'crash.yaml');
    const nodes = Array.from(
      { length: 11 },
      (_, i) => `  - { name: w${i + 1}, os: ${i % 2 === 0 ? 'linux' : 'windows'} }`,
    );
    writeFileSync(
      spec,
      `name: ${LAB}\nprovider: netns\nnodes:\n  - { name: cp1, os: linux, role: control-plane }\n${nodes.join('\n')}\n`,
    );
    // Its own process group, so the kill reaches node under tsx's launcher too.
    const harness = spawn(CLI[0]!, [...CLI.slice(1), 'up', '--spec', spec], {
      env,
      stdio: 'ignore',
      detached: true,
    });
    const started = Date.now();
    // Kill once the lab is part-way: the external echo runs (so there are processes to reap)
    // but kube-proxy rules and the cluster DNS, which come after it, are not done.
    // One namespace per poll (the outside one, where the echo runs): a slow poll would miss the window.
    while (workloadPids([`${PREFIX}out`]).length === 0 && Date.now() - started < 60_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    process.kill(-harness.pid!, 'SIGKILL');
    await new Promise((r) => harness.once('exit', r));
    const left = labNamespaces();
    expect(left.length, 'the kill came too late or too early to test anything').to.be.greaterThan(
      0,
    );
    const state = JSON.parse(readFileSync(join(home, '.lab', LAB, 'state.json'), 'utf8')) as {
      phase: string;
    };
    expect(state.phase, 'the kill came after up had finished').to.not.equal('up');
    const pids = pidsIn(left);
    expect(pids.length, 'no process of the lab ran when the harness was killed').to.be.greaterThan(
      0,
    );

    const reap = spawnSync(CLI[0]!, [...CLI.slice(1), 'reap', '--lab', LAB], {
      env,
      encoding: 'utf8',
    });
    expect(reap.status, reap.stderr).to.equal(0);
    expect(reap.stdout).to.match(/reaped \d+ resources/);
    expect(labNamespaces()).to.deep.equal([]);
    // Zombie-aware: a killed workload whose parent died waits for init to reap it.
    expect(pids.filter(processAlive)).to.deep.equal([]);
    expect(existsSync(join('/etc/netns', `${PREFIX}sw`))).to.equal(false);
  });
});
