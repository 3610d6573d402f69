import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { componentVersions } from './component-versions.ts';
import { SCRIPTS_DIR } from './node-stage.ts';
import { powerShellChecker } from '../testing/powershell-syntax.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { renderManifests } from './render-manifests.ts';
import {
  linuxBaseSteps,
  windowsBaseSteps,
  controlPlaneSteps,
  joinStep,
  readyStep,
  registerStep,
} from './provision-steps.ts';
import { missing, skipTest } from '../testing/skip.ts';

const linuxDir = join(SCRIPTS_DIR, 'linux');
const windowsDir = join(SCRIPTS_DIR, 'windows');
const sh = readdirSync(linuxDir).filter((f) => f.endsWith('.sh'));
const ps1 = readdirSync(windowsDir).filter((f) => f.endsWith('.ps1'));

describe('node scripts', function () {
  this.timeout(60_000);
  it('every Linux script is shellcheck-clean', function () {
    if (spawnSync('shellcheck', ['--version']).status !== 0)
      skipTest(this, missing('shellcheck is not installed (apt-get install shellcheck)'));
    const result = spawnSync('shellcheck', ['-x', ...sh], { cwd: linuxDir, encoding: 'utf8' });
    expect(result.stdout + result.stderr).to.equal('');
    expect(result.status).to.equal(0);
  });

  it('every runnable Linux script is strict bash and parses', () => {
    for (const file of sh.filter((f) => f !== 'lib.sh')) {
      const text = readFileSync(join(linuxDir, file), 'utf8');
      expect(text.startsWith('#!/usr/bin/env bash\n'), file).to.equal(true);
      expect(text, file).to.include('\nset -euo pipefail\n');
      execFileSync('bash', ['-n', join(linuxDir, file)]);
    }
  });

  it('every step names a script that exists for its OS', () => {
    const plan = kubeadmPlan();
    const linux = [
      ...linuxBaseSteps({ runtime: 'install', cni: 'bridge' }),
      ...controlPlaneSteps().init,
      ...controlPlaneSteps().addons,
      readyStep(),
      registerStep(plan.id, plan.nodes[1]!),
      joinStep(plan.nodes[1]!, undefined),
    ];
    for (const step of linux) expect(sh, step.id).to.include(step.script);
    for (const step of [...windowsBaseSteps(), joinStep(plan.nodes[2]!, undefined)])
      expect(ps1, step.id).to.include(step.script);
    expect(sh).to.include('create-join-token.sh').and.include('artifact-hashes.sh');
    expect(ps1).to.include('artifact-hashes.ps1');
  });

  it('every Windows script is strict and ASCII (Windows PowerShell 5.1 reads BOM-less files as ANSI)', () => {
    for (const file of ps1) {
      const text = readFileSync(join(windowsDir, file), 'utf8');
      expect(
        Buffer.from(text, 'utf8').every((b) => b < 128),
        `${file} has non-ASCII characters`,
      ).to.equal(true);
      const strict =
        file === 'common.ps1' || file === 'artifact-hashes.ps1'
          ? text
          : readFileSync(join(windowsDir, 'common.ps1'), 'utf8');
      expect(strict, file)
        .to.include("$ErrorActionPreference = 'Stop'")
        .and.include('Set-StrictMode -Version Latest');
      if (file !== 'common.ps1' && file !== 'artifact-hashes.ps1')
        expect(text, file).to.include('. "$PSScriptRoot\\common.ps1"');
    }
  });

  it("install-containerd.ps1 installs the harness's containerd.toml once containerd reports every setting of it back, and edits no default config", () => {
    const text = readFileSync(join(windowsDir, 'install-containerd.ps1'), 'utf8');
    const common = readFileSync(join(windowsDir, 'common.ps1'), 'utf8');
    // A regex edit of `containerd config default` loses a setting silently when a key moves (2.x).
    expect(text).to.not.match(/config default|sandbox_image|-replace\s+'\(\?m\)/);
    expect(text)
      .to.include("Join-Path $HlStage 'config\\containerd.toml'")
      .and.include('& $exe --config $config config dump')
      .and.include('Get-HlUnappliedSetting')
      .and.include("Copy-HlFile $config (Join-Path $dir 'config.toml')");
    expect(text.indexOf('Stop-Hl ("containerd $have ignores')).to.be.within(
      text.indexOf('Get-HlUnappliedSetting'),
      text.indexOf('Copy-HlFile $config'),
    );
    // The pin is checked after unpacking, as on Linux.
    expect(text).to.include('the lab pins $want');
    expect(common).to.match(
      /function Get-HlUnappliedSetting\(\[string\]\$Config, \[string\]\$Effective\)/,
    );
  });

  it('every Windows script and HostProcess start script parses (tree-sitter PowerShell grammar)', async () => {
    const checker = await powerShellChecker();
    // Both packages are devDependencies: a missing checker is a broken install, not a skip.
    if ('unavailable' in checker) expect.fail(checker.unavailable);
    const plan = kubeadmPlan();
    const embedded = renderManifests(plan, componentVersions(plan)).flatMap((m) =>
      parseAllDocuments(m.text)
        .map((d) => d.toJS() as { data?: Record<string, string> })
        .filter((d) => d.data?.['start.ps1'] !== undefined)
        .map((d) => ({ name: `${m.file} start.ps1`, text: d.data!['start.ps1']! })),
    );
    expect(embedded).to.have.length(2);
    const sources = [
      ...ps1.map((f) => ({ name: f, text: readFileSync(join(windowsDir, f), 'utf8') })),
      ...embedded,
    ];
    for (const { name, text } of sources) expect(checker(text), name).to.deep.equal([]);
    expect(
      checker('function f( {\n $x = @(1,2\n'),
      'the checker must find errors',
    ).to.not.deep.equal([]);
  });
});
