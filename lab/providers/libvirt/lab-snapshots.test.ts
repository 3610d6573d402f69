import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '../../log/logger.ts';
import { quietProgress } from '../../log/progress.ts';
import { RecordingRunner } from '../../testing/recording-runner.ts';
import { libvirtPlan } from '../../testing/libvirt-plans.ts';
import { libvirtDir } from './libvirt-names.ts';
import type { LibvirtState } from './libvirt-state.ts';
import { restoreSnapshot, saveSnapshot, snapshotRecords } from './lab-snapshots.ts';

/** The message a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('expected a rejection');
}

describe('lab snapshots (libvirt)', function () {
  const plan = libvirtPlan({
    hypervisors: [
      { name: 'hv1', uri: 'qemu:///system' },
      { name: 'hv2', uri: 'qemu+ssh://root@hv2/system' },
    ],
    network: { mode: 'bridge', bridge: 'br-lab' },
  });
  const state = {
    hypervisors: [
      { name: 'hv1', uri: 'qemu:///system' },
      { name: 'hv2', uri: 'qemu+ssh://root@hv2/system' },
    ],
    masters: {},
    sshConfig: '/nonexistent/ssh_config',
  } as unknown as LibvirtState;
  let stateDir: string;
  const context = (runner: RecordingRunner) => ({
    runner,
    log: silentLogger(),
    stateDir,
    progress: quietProgress(silentLogger()),
  });

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'hl-snap-'));
    mkdirSync(libvirtDir(stateDir), { recursive: true });
  });
  afterEach(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("snapshots each node's domain on its own hypervisor's URI and records the name once", async () => {
    const runner = new RecordingRunner();
    const record = await saveSnapshot(context(runner), plan, state, 'provisioned');
    expect(record).to.include({ name: 'provisioned', cluster: 'emulated' });
    const made = runner.calls.map((c) => `${c.args[2]} ${c.args[4]}`).sort();
    expect(made).to.deep.equal(
      plan.nodes
        .map((n) => {
          const uri = n.hypervisor === 'hv1' ? 'qemu:///system' : 'qemu+ssh://root@hv2/system';
          return `${uri} ${plan.id}_${n.name}`;
        })
        .sort(),
    );
    expect(snapshotRecords(stateDir).map((r) => r.name)).to.deep.equal(['provisioned']);
    const again = await rejection(saveSnapshot(context(runner), plan, state, 'provisioned'));
    expect(again).to.match(/already has a snapshot 'provisioned'/);
  });

  it('is all or nothing: when one domain fails, the snapshots the others took are deleted', async () => {
    const runner = new RecordingRunner().on(/snapshot-create-as \S+_win1 /, {
      exitCode: 1,
      stderr: 'error: disk full',
    });
    expect(await rejection(saveSnapshot(context(runner), plan, state, 's1'))).to.match(/disk full/);
    const deleted = runner.calls
      .filter((c) => c.args.includes('snapshot-delete'))
      .map((c) => c.args[4]);
    const created = runner.calls
      .filter((c) => c.args.includes('snapshot-create-as') && !c.args[4]!.endsWith('_win1'))
      .map((c) => c.args[4]);
    expect(deleted.sort()).to.deep.equal(created.sort());
    expect(snapshotRecords(stateDir)).to.deep.equal([]);
  });

  it('refuses a bad name or an unknown snapshot before touching any domain', async () => {
    const runner = new RecordingRunner();
    const bad = await rejection(saveSnapshot(context(runner), plan, state, '../x'));
    expect(bad).to.match(/snapshot name '..\/x' is not allowed/);
    const unknown = await rejection(
      restoreSnapshot(
        context(runner),
        plan,
        state,
        'nope',
        () => {
          throw new Error('no shell expected');
        },
        () => Promise.resolve(),
      ),
    );
    expect(unknown).to.match(/has no snapshot 'nope'/);
    expect(runner.calls).to.deep.equal([]);
  });
});
