import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ExecaRunner } from '../../exec/execa-runner.ts';
import { silentLogger } from '../../log/logger.ts';
import { REPO } from '../../testing/libvirt-vm-lab.ts';
import { binScript } from './repo-paths.ts';
import { parseLabResources } from './virsh.ts';
import { missing, skipTest } from '../../testing/skip.ts';

/** A virsh stand-in over files in $FAKE_VIRSH: lists them, removes from them, logs every call. */
const FAKE_VIRSH = `#!/usr/bin/env bash
s=$FAKE_VIRSH
while [ "$1" = -q ] || [ "$1" = -c ]; do [ "$1" = -c ] && shift; shift; done
echo "$*" >>"$s/calls"
missing() { echo "error: failed to get $1 '$2'"; echo "error: $3 not found: no $1 with matching name '$2'"; exit 1; }
has() { grep -qx -- "$2" "$s/$1" 2>/dev/null; }
drop() { grep -vx -- "$2" "$s/$1" >"$s/$1.new" || true; mv "$s/$1.new" "$s/$1"; }
case "$1" in
  list) cat "$s/domains" ;;
  desc) has domains "$2" || missing domain "$2" Domain; cat "$s/desc-$2" 2>/dev/null || true ;;
  domstate) has domains "$2" || missing domain "$2" Domain; if has off "$2"; then echo "shut off"; else echo running; fi ;;
  destroy) has domains "$2" || missing domain "$2" Domain; echo "$2" >>"$s/off" ;;
  snapshot-list) ;;
  snapshot-create-as) has domains "$2" || missing domain "$2" Domain ;;
  dumpxml) has domains "$2" || missing domain "$2" Domain
    printf "<domain><name>%s</name><devices><serial type='file'>\\n<source path='%s'/>\\n</serial></devices></domain>\\n" "$2" "$s/console-$2.log" ;;
  net-dumpxml) has networks "$2" || missing network "$2" Network; echo "<network><name>$2</name></network>" ;;
  undefine) has domains "$2" || missing domain "$2" Domain; drop domains "$2"
    # A define still in flight from a killed client lands after the undefine (once, or for ever).
    if has respawn "$2"; then echo "$2" >>"$s/domains"; [ -e "$s/respawn-forever" ] || drop respawn "$2"; fi ;;
  net-list) cat "$s/networks" ;;
  net-destroy) has networks "$2" || missing network "$2" Network ;;
  net-undefine) has networks "$2" || missing network "$2" Network; drop networks "$2" ;;
  pool-list) echo "default   " ;;
  vol-list) sed 's|.*| & /var/lib/libvirt/images/&|' "$s/volumes" ;;
  vol-delete) has volumes "$2" || missing "storage vol" "$2" Storage; drop volumes "$2" ;;
  *) echo "fake virsh: $*" >&2; exit 1 ;;
esac
`;

describe('vagrant/bin virsh wrappers (against a stand-in virsh)', function () {
  const runner = new ExecaRunner(silentLogger());
  let dir = '';
  const state = () => join(dir, 'state');
  const run = (script: Parameters<typeof binScript>[0], args: string[]) =>
    runner.run('bash', [binScript(script), ...args], {
      check: false,
      env: {
        PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
        FAKE_VIRSH: state(),
        HL_SWEEP_PAUSE_S: '0',
      },
    });

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'hl-fake-virsh-'));
    mkdirSync(join(dir, 'bin'));
    mkdirSync(state());
    writeFileSync(join(dir, 'bin', 'virsh'), FAKE_VIRSH);
    chmodSync(join(dir, 'bin', 'virsh'), 0o755);
    const put = (name: string, lines: string[]): void => {
      writeFileSync(join(state(), name), `${lines.join('\n')}\n`);
    };
    put('domains', ['hl-a_cp1', 'renamed-by-hand', 'hl-b_cp1', 'someone-elses-vm']);
    put('desc-hl-a_cp1', ['hybrid-lab id=hl-a node=cp1 hypervisor=hv1']);
    put('desc-renamed-by-hand', ['hybrid-lab id=hl-a node=lin1 hypervisor=hv1']);
    put('networks', ['default', 'hl-a_lab', 'hl-a_mgmt-hv1', 'hl-b_lab', 'hl-ab_lab']);
    put('volumes', [
      'hl-a_cp1.img',
      'hl-b_cp1.img',
      'hybrid-lab-VAGRANTSLASH-debian-12_vagrant_box_image_1_box.img',
    ]);
  });

  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists a lab by description or name prefix, and nothing of other labs', async function () {
    const result = await run('hl-lab-resources.sh', ['qemu:///system', 'hl-a']);
    expect(result.exitCode, result.stderr).to.equal(0);
    expect(parseLabResources(result.stdout).map((r) => `${r.kind} ${r.name}`)).to.deep.equal([
      'domain hl-a_cp1',
      'domain renamed-by-hand',
      'network hl-a_lab',
      'network hl-a_mgmt-hv1',
      'volume hl-a_cp1.img',
    ]);
    const all = parseLabResources(
      (await run('hl-lab-resources.sh', ['qemu:///system', '--all'])).stdout,
    );
    expect([...new Set(all.map((r) => r.labId))].sort()).to.deep.equal(['hl-a', 'hl-ab', 'hl-b']);
  });

  it("destroys a lab's orphans once, leaves other labs and the box, and is idempotent", async function () {
    const first = await run('hl-destroy-orphans.sh', ['qemu:///system', 'hl-a']);
    expect(first.exitCode, first.stderr).to.equal(0);
    expect(first.stdout.trim().split('\n')).to.deep.equal([
      'removed domain hl-a_cp1',
      'removed domain renamed-by-hand',
      'removed volume default/hl-a_cp1.img',
      'removed network hl-a_lab',
      'removed network hl-a_mgmt-hv1',
    ]);
    expect(readFileSync(join(state(), 'domains'), 'utf8')).to.equal('hl-b_cp1\nsomeone-elses-vm\n');
    expect(readFileSync(join(state(), 'volumes'), 'utf8'))
      .to.match(/hl-b_cp1\.img/)
      .and.match(/VAGRANTSLASH/);
    const again = await run('hl-destroy-orphans.sh', ['qemu:///system', 'hl-a']);
    expect(again.exitCode).to.equal(0);
    expect(again.stdout).to.equal('');
  });

  it('sweeps again when a domain comes back after its undefine, and fails when it keeps coming back', async function () {
    writeFileSync(join(state(), 'respawn'), 'hl-a_cp1\n');
    const once = await run('hl-destroy-orphans.sh', ['qemu:///system', 'hl-a']);
    expect(once.exitCode, once.stderr).to.equal(0);
    expect(once.stdout.split('\n').filter((l) => l === 'removed domain hl-a_cp1')).to.have.length(
      2,
    );
    writeFileSync(join(state(), 'domains'), 'hl-a_cp1\n');
    writeFileSync(join(state(), 'respawn'), 'hl-a_cp1\n');
    writeFileSync(join(state(), 'respawn-forever'), '');
    const forever = await run('hl-destroy-orphans.sh', ['qemu:///system', 'hl-a']);
    expect(forever.exitCode).to.equal(1);
    expect(forever.stderr).to.contain('failed domain hl-a_cp1: still present');
  });

  it("snapshots, dumps and shows the console of a lab's domains only", async function () {
    const snap = await run('hl-snapshot.sh', ['qemu:///system', 'hl-a', 'save', 'before-fault']);
    expect(snap.exitCode, snap.stderr).to.equal(0);
    expect(snap.stdout.trim().split('\n')).to.deep.equal([
      'save hl-a_cp1 before-fault',
      'save renamed-by-hand before-fault',
    ]);
    const out = join(dir, 'xml');
    const dump = await run('hl-dump-xml.sh', ['qemu:///system', 'hl-a', out]);
    expect(dump.stdout.trim().split('\n')).to.deep.equal([
      `${out}/domain-hl-a_cp1.xml`,
      `${out}/domain-renamed-by-hand.xml`,
      `${out}/network-hl-a_lab.xml`,
      `${out}/network-hl-a_mgmt-hv1.xml`,
    ]);
    writeFileSync(join(state(), 'console-hl-a_cp1.log'), 'line 1\nline 2\nhybrid-lab login:\n');
    const tail = await run('hl-console-log.sh', ['qemu:///system', 'hl-a_cp1', '2']);
    expect(tail.stdout).to.equal('line 2\nhybrid-lab login:\n');
    const bad = await run('hl-snapshot.sh', ['qemu:///system', 'hl-a', 'save', 'no spaces']);
    expect(bad.exitCode).to.equal(2);
  });

  it('refuses what is not a lab id, changing nothing', async function () {
    const result = await run('hl-destroy-orphans.sh', ['qemu:///system', 'a; rm -rf /']);
    expect(result.exitCode).to.equal(2);
    expect(result.stderr).to.match(/is not a lab id/);
    expect(existsSync(join(state(), 'calls')), 'virsh was called').to.equal(false);
  });

  it('are shellcheck-clean, with the other shell scripts of the provider', async function () {
    const check = await runner
      .run('shellcheck', ['--version'], { check: false })
      .catch(() => undefined);
    if (check?.exitCode !== 0)
      skipTest(this, missing('shellcheck is not installed (apt-get install shellcheck)'));
    const scripts = [
      'vagrant/bin/hl-common.sh',
      'vagrant/bin/hl-apt.sh',
      'vagrant/bin/hl-lab-resources.sh',
      'vagrant/bin/hl-destroy-orphans.sh',
      'vagrant/bin/hl-dump-xml.sh',
      'vagrant/bin/hl-console-log.sh',
      'vagrant/bin/hl-snapshot.sh',
      'vagrant/boxes/debian/build.sh',
      'vagrant/boxes/windows/build.sh',
      'lab/cluster/runtime/pod-helper.sh',
      'ci/libvirt-integration.sh',
    ];
    const result = await runner.run('shellcheck', scripts, { cwd: REPO, check: false });
    expect(result.exitCode, result.stdout).to.equal(0);
  });

  it('has a Windows box template Packer accepts (it cannot be built here: no ISO, no KVM)', async function () {
    const packer = await runner.run('packer', ['version'], { check: false }).catch(() => undefined);
    if (packer?.exitCode !== 0)
      skipTest(this, missing('packer is not installed (apt-get install packer)'));
    const key = join(dir, 'vagrant.pub');
    writeFileSync(key, 'ssh-rsa AAAA test\n');
    const result = await runner.run(
      'packer',
      [
        'validate',
        '-var-file=devices.json',
        '-var',
        'iso_url=file:///nonexistent.iso',
        '-var',
        'iso_checksum=none',
        '-var',
        `vagrant_pubkey=${key}`,
        'windows-2022.json',
      ],
      { cwd: join(REPO, 'vagrant/boxes/windows'), check: false },
    );
    expect(result.exitCode, result.stdout + result.stderr).to.equal(0);
  });
});
