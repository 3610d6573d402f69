import { execSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { LabSpecError } from '../errors.ts';
import { Redactor } from '../exec/redactor.ts';
import { TESTDATA } from '../testing/golden.ts';
import { caCertHash, newBootstrapToken } from './join-secrets.ts';
import { provisionSettingsFromText, provisionSettingsOf } from './provision-settings.ts';
import { missing, skipTest } from '../testing/skip.ts';
import { LINUX_ONLY_IMAGE_PREFIX } from '../plan/windows-checks.ts';
import { agnhostImagesOf } from '../spec/kubeadm-spec-schema.ts';
import { REPO_ROOT } from '../testing/windows-scripts.ts';

describe('provision settings (spec fields artifacts, kubeadm)', () => {
  it("defaults to no cache, CoreDNS, the version's registry and 3 attempts", () => {
    expect(provisionSettingsOf({ name: 'x' })).to.deep.equal({
      artifacts: { kind: 'none' },
      kubeadm: { clusterDns: 'coredns', e2eImages: false, retries: 3, versions: {} },
    });
  });

  it('resolves a relative cache folder against the base folder and trims a URL', () => {
    expect(
      provisionSettingsOf({ artifacts: { dir: 'cache' } }, 's', '/srv/lab').artifacts,
    ).to.deep.equal({ kind: 'dir', dir: '/srv/lab/cache' });
    expect(
      provisionSettingsFromText('artifacts: { url: "http://mirror.lab/k8s/" }\n', 's', '/')
        .artifacts,
    ).to.deep.equal({ kind: 'url', url: 'http://mirror.lab/k8s' });
  });

  it('accepts the artifact-cache example of docs/kubeadm.md, whose containerd pin covers both OSes and which names an agnhost image for its Windows node', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/kubeadm.md'), 'utf8');
    const example = /## Artifact cache[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    const settings = provisionSettingsFromText(example, 'lab.yaml', '/srv/lab');
    expect(settings.artifacts).to.deep.equal({ kind: 'dir', dir: '/srv/lab/artifacts' });
    expect(settings.kubeadm.versions).to.deep.equal({ containerd: 'v1.7.22' });
    expect(settings.kubeadm.imageRepository).to.equal('registry.example/k8s');
    // Offline, a Windows node imports its agnhost from the cache: the example must name one it can run.
    expect(example).to.match(/os: windows/);
    const windows = agnhostImagesOf(settings.kubeadm.agnhostImage).windows;
    expect(windows, 'a Windows agnhost image').to.be.a('string');
    expect(windows!.startsWith(LINUX_ONLY_IMAGE_PREFIX), windows).to.equal(false);
  });

  it('names the bad field and changes nothing', () => {
    const bad = (spec: unknown) => {
      try {
        provisionSettingsOf(spec, 'lab.yaml');
      } catch (error) {
        expect(error).to.be.instanceOf(LabSpecError);
        return (error as LabSpecError).issues.map((i) => i.path).join(',');
      }
      return 'accepted';
    };
    expect(bad({ artifacts: { dir: '/a', url: 'http://b' } })).to.match(/^artifacts/);
    expect(bad({ artifacts: { url: 'ftp://b' } })).to.match(/^artifacts/);
    expect(bad({ kubeadm: { retries: 0 } })).to.equal('kubeadm.retries');
    expect(bad({ kubeadm: { versions: { flannel: 'latest' } } })).to.equal(
      'kubeadm.versions.flannel',
    );
    expect(bad({ kubeadm: { versions: { containerd: 'latest' } } })).to.equal(
      'kubeadm.versions.containerd',
    );
    expect(bad({ kubeadm: { versions: { containerd: '1.5.18' } } })).to.equal(
      'kubeadm.versions.containerd',
    );
    expect(bad({ kubeadm: { versions: { windowsContainerd: '1.7.22' } } })).to.equal(
      'kubeadm.versions.windowsContainerd',
    );
  });
});

describe('join secrets', () => {
  it('makes kubeadm-format bootstrap tokens the redactor recognises', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => newBootstrapToken()));
    expect(tokens.size).to.equal(50);
    for (const token of tokens) {
      expect(token).to.match(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
      expect(new Redactor().redact(`kubeadm join --token ${token}`)).to.equal(
        'kubeadm join --token ***',
      );
    }
  });

  it('computes the CA hash as the openssl pipeline kubeadm documents does', function () {
    const pem = join(TESTDATA, 'ca.crt');
    if (spawnSync('openssl', ['version']).status !== 0)
      skipTest(this, missing('openssl is not installed (apt-get install openssl)'));
    const hex = execSync(
      `openssl x509 -pubkey -in ${pem} -noout | openssl rsa -pubin -outform der 2>/dev/null | openssl dgst -sha256 -hex`,
      { encoding: 'utf8' },
    )
      .trim()
      .split(' ')
      .at(-1)!;
    expect(caCertHash(readFileSync(pem, 'utf8'))).to.equal(`sha256:${hex}`);
    expect(() => caCertHash('not a certificate')).to.throw(/no valid CA certificate/);
  });
});
