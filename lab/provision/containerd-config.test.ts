import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { NodeOs } from '../plan/lab-plan.ts';
import { containerdSettings, renderContainerdConfig } from './containerd-config.ts';
import { SCRIPTS_DIR } from './node-stage.ts';
import { expectGolden, TESTDATA } from '../testing/golden.ts';
import { missing, skipTest } from '../testing/skip.ts';

const PAUSE = 'registry.k8s.io/pause:3.9';
/** [os, containerd version, golden file] */
const CONFIGS: [NodeOs, string, string][] = [
  ['linux', '1.6.20', 'containerd-linux-1.x.toml'],
  ['linux', '2.0.0', 'containerd-linux-2.x.toml'],
  ['windows', '1.7.22', 'containerd-windows-1.x.toml'],
  ['windows', '2.0.0', 'containerd-windows-2.0.toml'],
  ['windows', '2.1.4', 'containerd-windows-2.1.toml'],
];

describe("containerd's config per OS and version", () => {
  for (const [os, version, golden] of CONFIGS) {
    it(`renders ${golden} for containerd ${version} on ${os}`, () => {
      expectGolden(golden, renderContainerdConfig(os, version, PAUSE));
    });
  }

  it('puts every setting where the config version of the major reads it (docs/cri/config.md)', () => {
    const where = (os: NodeOs, version: string) =>
      Object.fromEntries(containerdSettings(os, version, PAUSE).map((s) => [s.key, s.table]));
    const v1 = 'plugins."io.containerd.grpc.v1.cri"';
    expect(where('linux', '1.7.22')).to.deep.equal({
      sandbox_image: v1,
      runtime_type: `${v1}.containerd.runtimes.runc`,
      SystemdCgroup: `${v1}.containerd.runtimes.runc.options`,
    });
    expect(where('windows', '1.7.22')).to.deep.equal({
      sandbox_image: v1,
      bin_dir: `${v1}.cni`,
      conf_dir: `${v1}.cni`,
    });
    const runtime = 'plugins."io.containerd.cri.v1.runtime"';
    const images = 'plugins."io.containerd.cri.v1.images".pinned_images';
    expect(where('linux', '2.0.0')).to.deep.equal({
      sandbox: images,
      runtime_type: `${runtime}.containerd.runtimes.runc`,
      SystemdCgroup: `${runtime}.containerd.runtimes.runc.options`,
    });
    expect(where('windows', '2.0.0')).to.deep.equal({
      sandbox: images,
      bin_dir: `${runtime}.cni`,
      conf_dir: `${runtime}.cni`,
    });
    expect(where('windows', '2.1.0')).to.have.property('bin_dirs', `${runtime}.cni`);
    expect(renderContainerdConfig('windows', '2.1.0', PAUSE)).to.include(
      'bin_dirs = ["C:/opt/cni/bin"]',
    );
  });

  describe("install-containerd.sh's check against `containerd config dump`", () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'hl-containerd-config-'));
      writeFileSync(join(dir, 'node.env'), '# lib.sh needs one\n');
    });
    afterEach(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    /** The settings of `config` that `bin` does not report back, by the script's own function. */
    const unapplied = (config: string, bin: string, env: Record<string, string> = {}): string[] => {
      const file = join(dir, 'config.toml');
      writeFileSync(file, config);
      const result = spawnSync(
        'bash',
        [
          '-c',
          '. "$1"; unapplied_settings "$2" "$3"',
          'bash',
          join(SCRIPTS_DIR, 'linux', 'install-containerd.sh'),
          file,
          bin,
        ],
        { encoding: 'utf8', env: { ...process.env, ...env, HL_CONFIG: join(dir, 'node.env') } },
      );
      expect(result.status, result.stderr).to.equal(0);
      return result.stdout.split('\n').filter((l) => l !== '');
    };

    it("finds every setting of the 1.x configs in Debian's containerd 1.6, and none of a 2.x config", function () {
      if (!existsSync('/usr/bin/containerd'))
        skipTest(
          this,
          missing("Debian's containerd is not installed (apt-get install containerd)"),
        );
      for (const os of ['linux', 'windows'] as const)
        expect(
          unapplied(renderContainerdConfig(os, '1.7.22', PAUSE), '/usr/bin/containerd'),
          os,
        ).to.deep.equal([]);
      expect(
        unapplied(renderContainerdConfig('linux', '2.0.0', PAUSE), '/usr/bin/containerd'),
      ).to.deep.equal([`sandbox = ${PAUSE}`, 'SystemdCgroup = true']);
    });

    it("finds the 2.x settings in containerd 2.0's dump (documented format) only once applied", () => {
      const fake = join(dir, 'containerd');
      writeFileSync(fake, '#!/usr/bin/env bash\ncat "$HL_DUMP"\n', { mode: 0o755 });
      const env = { HL_DUMP: join(TESTDATA, 'containerd-2.0-config-dump.linux.toml') };
      expect(unapplied(renderContainerdConfig('linux', '2.0.0', PAUSE), fake, env)).to.deep.equal([
        `sandbox = ${PAUSE}`,
        'SystemdCgroup = true',
      ]);
      const defaultPause = renderContainerdConfig('linux', '2.0.0', 'registry.k8s.io/pause:3.10');
      expect(unapplied(defaultPause, fake, env)).to.deep.equal(['SystemdCgroup = true']);
    });
  });
});
