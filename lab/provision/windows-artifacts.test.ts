/**
 * The facts catalogue's `archive-artifacts`: a node without a cache downloads each artifact from one
 * address and saves it under its cache path, so the address must serve exactly that file; an
 * archive is saved as the archive, and the script that uses it says what to take out of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { planLab } from '../plan/plan-lab.ts';
import { loadSpec } from '../spec/load-spec.ts';
import { REPO_ROOT } from '../testing/windows-scripts.ts';
import { artifactsFor, NSSM_MIRROR } from './artifact-catalogue.ts';
import { componentVersions } from './component-versions.ts';
import { windowsNodeJson } from './node-config.ts';
import { provisionSettingsOf } from './provision-settings.ts';
import { SCRIPTS_DIR } from './node-stage.ts';
import { windowsBaseSteps } from './provision-steps.ts';

const ARCHIVE = /\.(zip|tgz|tar\.gz)$/;
const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The Windows node scripts the provisioning runs, by file name, with their text. */
function windowsStepScripts(): Map<string, string> {
  return new Map(
    windowsBaseSteps().map((s) => [
      s.script,
      readFileSync(join(SCRIPTS_DIR, 'windows', s.script), 'utf8'),
    ]),
  );
}

describe('Windows artifacts: files and archives (facts catalogue: archive-artifacts)', () => {
  it('libvirt-hybrid plans, and every artifact its Windows steps fetch has a download of exactly that file', () => {
    const loaded = loadSpec('libvirt-hybrid', REPO_ROOT);
    const plan = planLab(loaded.spec, loaded.source);
    const settings = provisionSettingsOf(loaded.spec);
    expect(settings.artifacts.kind, 'the preset has no cache: every file is downloaded').to.equal(
      'none',
    );
    const versions = componentVersions(plan, settings.kubeadm);
    const win = plan.nodes.find((n) => n.os === 'windows')!;
    const config = JSON.parse(
      windowsNodeJson(plan, win, versions, settings.artifacts, []),
    ) as Record<string, unknown> & { HL_UPSTREAM: Record<string, string[]> };
    const scripts = windowsStepScripts();
    const catalogue = artifactsFor('windows', versions);
    const keys = Object.keys(config).filter((k) => k.startsWith('HL_ARTIFACT_'));
    expect(keys).to.include('HL_ARTIFACT_NSSM');
    for (const key of keys) {
      const rel = config[key] as string;
      const urls = config.HL_UPSTREAM[rel] ?? [];
      expect(urls, `${key} (${rel}) has a download`).to.not.be.empty;
      for (const url of urls) {
        expect(url, `${key} (${rel})`).to.match(/^https:\/\/\S+$/);
        expect(basename(new URL(url).pathname), `${url} serves ${rel}`).to.equal(basename(rel));
      }
      const users = [...scripts].filter(([, text]) => text.includes(key));
      expect(users, `a step script uses ${key}`).to.not.be.empty;
      if (!ARCHIVE.test(rel)) continue;
      const artifact = catalogue.find((a) => a.path === rel)!;
      for (const [script, text] of users) {
        expect(text, `${script} unpacks ${rel}`).to.match(/\btar\.exe -x/);
        if (artifact.member === undefined) continue;
        const memberKey = Object.keys(config).find((k) => config[k] === artifact.member);
        expect(memberKey, `node.json names the member ${artifact.member}`).to.match(/_MEMBER$/);
        expect(text, `${script} takes ${memberKey} out of ${rel}`).to.include(memberKey);
      }
    }
  });

  it("nssm has a second download, sig-windows-tools' mirror, and Get-HlArtifact tries each address in turn", () => {
    const plan = planLab(loadSpec('libvirt-hybrid', REPO_ROOT).spec);
    const nssm = artifactsFor('windows', componentVersions(plan)).find((a) =>
      a.path.startsWith('nssm/'),
    )!;
    expect(nssm.url).to.match(/^https:\/\/nssm\.cc\//);
    expect(nssm.mirrors).to.deep.equal([NSSM_MIRROR]);
    const common = readFileSync(join(SCRIPTS_DIR, 'windows', 'common.ps1'), 'utf8');
    const getArtifact = /function Get-HlArtifact[\s\S]*?\n\}/.exec(common)![0];
    expect(getArtifact).to.match(
      /foreach \(\$url in \$urls\)[\s\S]*try \{[\s\S]*Invoke-WebRequest/,
    );
  });

  it('an artifact that names a member is an archive, and a file that is one says so', () => {
    const plan = planLab(loadSpec('libvirt-hybrid', REPO_ROOT).spec);
    for (const artifact of artifactsFor('windows', componentVersions(plan))) {
      if (artifact.member !== undefined) expect(artifact.path, artifact.what).to.match(ARCHIVE);
      if (artifact.url !== undefined)
        expect(basename(artifact.url), artifact.what).to.equal(basename(artifact.path));
    }
  });
});
