/**
 * install-containerd.sh for real on this machine, its writes to /etc, /opt and /usr/local caught
 * in overlays (lab/testing/overlay-root.ts), from the stage folder the harness writes: Debian's
 * containerd (installed here) without a pin; with a pin, a release tarball in the cache whose
 * containerd answers as upstream's 1.7.22 (its config dump by Debian's 1.6, same config format)
 * or 2.0.0 (its config dump from containerd's documented 2.x format). systemctl, dpkg-query and
 * apt-get are stubs: every package counts as installed, no service starts.
 */
import { execFileSync } from 'node:child_process';
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
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { containerdRelease } from './artifact-catalogue.ts';
import { componentVersions } from './component-versions.ts';
import { writeNodeStage } from './node-stage.ts';
import { TESTDATA } from '../testing/golden.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { OverlayRoot, overlayUnavailable } from '../testing/overlay-root.ts';
import { missing, skipIf } from '../testing/skip.ts';

const DEBIAN_CONTAINERD = '/usr/bin/containerd';
const UNIT = '/etc/systemd/system/containerd.service';
const CONFIG = '/etc/containerd/config.toml';

/** How a release's containerd answers: the version it reports, and its `config dump`. */
interface FakeContainerd {
  reports: string;
  /** A file whose text the dump prints; without one, Debian's containerd dumps the config. */
  dump?: string;
}

describe('install-containerd.sh (this machine, writes caught in overlays)', function () {
  this.timeout(120_000);
  const reason =
    overlayUnavailable() ??
    (existsSync(DEBIAN_CONTAINERD) && existsSync('/usr/lib/cni/bridge')
      ? undefined
      : missing(
          "Debian's containerd or CNI plugins are not installed (apt-get install containerd containernetworking-plugins)",
        ));
  const plan = kubeadmPlan();
  const cp = plan.nodes[0]!;
  let work = '';
  let cache: string;
  let root: OverlayRoot;

  beforeEach(function () {
    skipIf(this, reason);
    work = mkdtempSync(join(tmpdir(), 'hl-install-containerd-'));
    cache = join(work, 'cache');
    root = new OverlayRoot(join(work, 'overlay'));
    const stubs = {
      systemctl: `echo "systemctl $*" >>'${work}/calls'`,
      'dpkg-query': `echo "dpkg-query \${*: -1}" >>'${work}/calls'; echo 'install ok installed'`,
      'apt-get': `echo "apt-get $*" >>'${work}/calls'; exit 100`,
    };
    for (const [name, body] of Object.entries(stubs)) executable(join(work, 'stubs', name), body);
    writeFileSync(join(work, 'calls'), '');
  });
  afterEach(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  /** Writes cp1's stage folder as the harness does, for a lab pinning `pin` (or none). */
  const stage = (pin?: string): string =>
    writeNodeStage(join(work, 'stage'), {
      plan,
      node: cp,
      versions: componentVersions(plan, { versions: pin === undefined ? {} : { containerd: pin } }),
      source: { kind: 'dir', dir: cache },
      imageTarballs: [],
      shell: { hostFiles: true },
    });

  const run = (stageDir: string) =>
    root.run(['bash', join(stageDir, 'scripts', 'install-containerd.sh')], {
      HL_STAGE: stageDir,
      PATH: `${join(work, 'stubs')}:${process.env.PATH ?? ''}`,
    });

  /** Puts upstream's release tarball of `version` in the cache, its containerd answering as `fake`. */
  const release = (version: string, fake: FakeContainerd): void => {
    const files = join(work, `release-${version}`);
    const dump = fake.dump === undefined ? `exec ${DEBIAN_CONTAINERD} "$@"` : `cat '${fake.dump}'`;
    executable(
      join(files, 'bin', 'containerd'),
      `case "$1" in
  --version) echo "containerd github.com/containerd/containerd${fake.reports.startsWith('2') ? '/v2' : ''} v${fake.reports} 0123456789abcdef0123456789abcdef01234567" ;;
  --config) ${dump} ;;
  *) exit 1 ;;
esac`,
    );
    executable(join(files, 'bin', 'containerd-shim-runc-v2'), 'exit 0');
    executable(join(files, 'bin', 'ctr'), 'exit 0');
    const tarball = join(cache, containerdRelease('linux', version).path);
    mkdirSync(dirname(tarball), { recursive: true });
    execFileSync('tar', ['-czf', tarball, '-C', files, 'bin']);
  };

  const changed = (out: string) => out.split('\n').filter((l) => l.startsWith('hl: changed: '));
  const queried = () =>
    readFileSync(join(work, 'calls'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('dpkg-query '))
      .map((l) => l.slice('dpkg-query '.length));

  it("without a pin: Debian's containerd with the harness's 1.x config, which it applies; a re-run changes nothing", () => {
    const dir = stage();
    const first = run(dir);
    expect(first.status, first.out).to.equal(0);
    expect(root.changes())
      .to.include.members([CONFIG, '/etc/crictl.yaml', '/opt/cni/bin/bridge'])
      .and.not.include(UNIT);
    expect(root.changes().filter((p) => p.startsWith('/usr/local/'))).to.deep.equal([]);
    expect(root.read(CONFIG)).to.equal(
      readFileSync(join(dir, 'config', 'containerd.toml'), 'utf8'),
    );
    expect(root.read(CONFIG)).to.include('sandbox_image = "registry.k8s.io/pause:3.9"');
    expect(queried()).to.include('containerd');
    const second = run(dir);
    expect(second.status, second.out).to.equal(0);
    expect(changed(second.out)).to.deep.equal([]);
  });

  it("without a pin, a Debian containerd of another major than the config's: fails naming both, no config written", () => {
    const withBin = new OverlayRoot(join(work, 'overlay-usr-bin'), ['/etc', '/opt', '/usr/bin']);
    executable(
      join(work, 'containerd-2'),
      'echo "containerd github.com/containerd/containerd/v2 2.1.4~ds1 2.1.4~ds1-1"',
    );
    const dir = stage();
    const r = withBin.run(
      [
        'bash',
        '-c',
        'cp "$1" /usr/bin/containerd && exec bash "$2"',
        'bash',
        join(work, 'containerd-2'),
        join(dir, 'scripts', 'install-containerd.sh'),
      ],
      { HL_STAGE: dir, PATH: `${join(work, 'stubs')}:${process.env.PATH ?? ''}` },
    );
    expect(r.status, r.out).to.equal(1);
    expect(r.out).to.include(
      'hl: error: /usr/bin/containerd is containerd 2.1.4~ds1; config/containerd.toml is for containerd 1.x (pin kubeadm.versions.containerd)',
    );
    expect(withBin.changes()).to.not.include(CONFIG);
  });

  it("with a pin: upstream's release from the cache into /usr/local under the project's unit, runc and the CNI plugins Debian's; a re-run changes nothing; unpinned again, Debian's unit", () => {
    release('1.7.22', { reports: '1.7.22' });
    const dir = stage('v1.7.22');
    const first = run(dir);
    expect(first.status, first.out).to.equal(0);
    expect(first.out).to.include(
      'hl: changed: containerd 1.7.22 in /usr/local/bin from containerd/v1.7.22/containerd-1.7.22-linux-amd64.tar.gz',
    );
    expect(root.changes()).to.include.members([
      '/usr/local/bin/containerd',
      '/usr/local/bin/containerd-shim-runc-v2',
      UNIT,
      CONFIG,
    ]);
    const unit = root.read(UNIT);
    for (const line of [
      'ExecStartPre=-/sbin/modprobe overlay',
      'ExecStart=/usr/local/bin/containerd',
      'Type=notify',
      'Delegate=yes',
      'KillMode=process',
      'WantedBy=multi-user.target',
    ])
      expect(unit.split('\n'), line).to.include(line);
    expect(queried()).to.include.members(['runc', 'containernetworking-plugins']);
    expect(queried()).to.not.include('containerd');
    const second = run(dir);
    expect(second.status, second.out).to.equal(0);
    expect(second.out).to.include('hl: ok: containerd 1.7.22 in /usr/local/bin');
    expect(changed(second.out)).to.deep.equal([]);
    const unpinned = run(stage());
    expect(unpinned.status, unpinned.out).to.equal(0);
    expect(changed(unpinned.out)).to.include(
      `hl: changed: removed ${UNIT} (containerd is Debian's package again)`,
    );
    expect(root.changes()).to.not.include(UNIT);
  });

  it('with a pin the cache lacks: exit 3 naming the release and the cache, and nothing changed', () => {
    const r = run(stage('1.7.22'));
    expect(r.status, r.out).to.equal(3);
    expect(r.out).to.include(
      `artifact missing: containerd/v1.7.22/containerd-1.7.22-linux-amd64.tar.gz for Kubernetes v1.30.4 — stage it in ${cache}`,
    );
    expect(root.changes()).to.deep.equal([]);
  });

  it('with a release that is not the pinned version: fails naming both', () => {
    release('1.7.22', { reports: '1.7.21' });
    const r = run(stage('1.7.22'));
    expect(r.status, r.out).to.not.equal(0);
    expect(r.out).to.include(
      'containerd/v1.7.22/containerd-1.7.22-linux-amd64.tar.gz holds containerd 1.7.21, the lab pins 1.7.22',
    );
    expect(root.changes()).to.not.include(CONFIG);
  });

  describe('containerd 2.x', () => {
    const defaults = readFileSync(join(TESTDATA, 'containerd-2.0-config-dump.linux.toml'), 'utf8');

    it('gets the version 3 config (pause image pinned in cri.v1.images) once containerd reports every setting back', () => {
      const applied = defaults
        .replace("sandbox = 'registry.k8s.io/pause:3.10'", "sandbox = 'registry.k8s.io/pause:3.9'")
        .replace(
          'runtimes.runc.options]\n',
          'runtimes.runc.options]\n            SystemdCgroup = true\n',
        );
      writeFileSync(join(work, 'dump.toml'), applied);
      release('2.0.0', { reports: '2.0.0', dump: join(work, 'dump.toml') });
      const r = run(stage('2.0.0'));
      expect(r.status, r.out).to.equal(0);
      const config = root.read(CONFIG);
      expect(config).to.include('version = 3');
      expect(config).to.include(
        '[plugins."io.containerd.cri.v1.images".pinned_images]\n  sandbox = "registry.k8s.io/pause:3.9"',
      );
      expect(config).to.include(
        '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n  SystemdCgroup = true',
      );
      expect(config).to.not.include('sandbox_image');
    });

    it('fails naming every setting containerd does not report back, and writes no config', () => {
      writeFileSync(join(work, 'dump.toml'), defaults);
      release('2.0.0', { reports: '2.0.0', dump: join(work, 'dump.toml') });
      const r = run(stage('2.0.0'));
      expect(r.status, r.out).to.equal(1);
      expect(r.out).to.include(
        'hl: error: containerd 2.0.0 ignores these settings of config/containerd.toml (containerd config dump lacks them): sandbox = registry.k8s.io/pause:3.9; SystemdCgroup = true',
      );
      expect(root.changes()).to.not.include(CONFIG);
    });
  });
});

function executable(path: string, body: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
}
