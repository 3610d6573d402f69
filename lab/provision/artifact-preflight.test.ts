import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { artifactsForPlan, imageTarball, kubeadmImageList } from './artifact-catalogue.ts';
import { missingArtifacts, parsePackagesIndex } from './artifact-preflight.ts';
import { componentVersions } from './component-versions.ts';
import { kubeadmPlan, namespaceKubeadmPlan } from '../testing/kubeadm-plans.ts';

const KUBEADM_IMAGES = [
  'registry.k8s.io/kube-apiserver:v1.30.4',
  'registry.k8s.io/kube-proxy:v1.30.4',
  'registry.k8s.io/pause:3.9',
];

/**
 * The cache of the default kubeadm plan (Kubernetes 1.30.4, a Windows node, flannel vxlan) as
 * docs/kubeadm.md's "Artifact cache" lays it out: written down here, not taken from the catalogue
 * the preflight reads, so a file the catalogue drops, renames or adds is caught.
 */
const LAYOUT = [
  'kubernetes/v1.30.4/linux/amd64/kubeadm',
  'kubernetes/v1.30.4/linux/amd64/kubelet',
  'kubernetes/v1.30.4/linux/amd64/kubectl',
  'kubernetes/v1.30.4/linux/amd64/crictl',
  'kubernetes/v1.30.4/images.txt',
  'images/linux/docker.io_flannel_flannel_v0.25.6.tar',
  'images/linux/docker.io_flannel_flannel-cni-plugin_v1.5.1-flannel2.tar',
  'images/linux/registry.k8s.io_kube-apiserver_v1.30.4.tar',
  'images/linux/registry.k8s.io_kube-proxy_v1.30.4.tar',
  'images/linux/registry.k8s.io_pause_3.9.tar',
  'kubernetes/v1.30.4/windows/amd64/kubelet.exe',
  'kubernetes/v1.30.4/windows/amd64/kubeadm.exe',
  'kubernetes/v1.30.4/windows/amd64/kubectl.exe',
  'kubernetes/v1.30.4/windows/amd64/kube-proxy.exe',
  'containerd/v1.7.22/containerd-1.7.22-windows-amd64.tar.gz',
  'cni-plugins/v1.5.1/cni-plugins-windows-amd64-v1.5.1.tgz',
  'flannel-cni-plugin/v1.5.1-flannel2/cni-plugin-flannel-windows-amd64-v1.5.1-flannel2.tgz',
  'flannel/v0.25.6/flanneld.exe',
  'nssm/2.24/nssm-2.24.zip',
  'images/windows/registry.k8s.io_pause_3.9.tar',
  'images/windows/mcr.microsoft.com_oss_kubernetes_windows-host-process-containers-base-image_v1.0.0.tar',
];
/** The Debian packages a Linux VM installs from the cache's repository. */
const PACKAGES = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'conntrack',
  'socat',
  'ethtool',
  'iptables',
  'curl',
];

/** Fills `dir` with LAYOUT and PACKAGES except the paths and packages matching `skip`. */
function fill(dir: string, skip: RegExp = /$^/): void {
  const put = (rel: string, text = 'x') => {
    if (skip.test(rel)) return;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  for (const path of LAYOUT)
    put(path, path.endsWith('images.txt') ? `${KUBEADM_IMAGES.join('\n')}\n` : 'x');
  const stanzas = PACKAGES.filter((p) => !skip.test(p)).map(
    (p) => `Package: ${p}\nVersion: 1\nFilename: ./${p}_1_amd64.deb\n`,
  );
  put('debian/bookworm/amd64/Packages', stanzas.join('\n'));
  for (const p of PACKAGES) put(`debian/bookworm/amd64/${p}_1_amd64.deb`);
}

describe('artifact cache preflight', function () {
  this.timeout(20_000);
  const plan = kubeadmPlan();
  const v = componentVersions(plan);
  const runner = new ExecaRunner(silentLogger());
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-cache-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every artifact of an empty cache, each in the one wording', async () => {
    const missing = await missingArtifacts(plan, v, { kind: 'dir', dir }, runner);
    // Everything of the layout but the three kubeadm images (images.txt names them, and it is missing too).
    expect(missing.map((m) => m.artifact.path).sort()).to.deep.equal(
      [...LAYOUT.filter((p) => !p.startsWith('images/linux/registry.k8s.io')), ...PACKAGES].sort(),
    );
    expect(missing.map((m) => m.message)).to.include(
      `artifact missing: kubernetes/v1.30.4/linux/amd64/kubeadm for Kubernetes v1.30.4 — stage it in ${dir}`,
    );
    expect(missing.map((m) => m.message)).to.include(
      `artifact missing: ${kubeadmImageList(v)} for Kubernetes v1.30.4 — stage it in ${dir}`,
    );
    expect(
      missing.every((m) => m.message.startsWith('artifact missing: ') && m.artifact.from !== ''),
    ).to.equal(true);
  });

  it('lists exactly what a nearly full cache lacks, including images kubeadm names', async () => {
    fill(dir, /kubelet\.exe|kube-proxy_v1|^socat$/);
    const missing = (await missingArtifacts(plan, v, { kind: 'dir', dir }, runner)).map(
      (m) => m.artifact.path,
    );
    expect(missing).to.deep.equal([
      'socat',
      'kubernetes/v1.30.4/windows/amd64/kubelet.exe',
      imageTarball('linux', 'registry.k8s.io/kube-proxy:v1.30.4'),
    ]);
    fill(dir);
    expect(await missingArtifacts(plan, v, { kind: 'dir', dir }, runner)).to.deep.equal([]);
  });

  it('with kubeadm.e2eImages, wants e2e/images.txt and then every image it lists, and nothing without', async () => {
    fill(dir);
    const e2e = componentVersions(plan, { e2eImages: true });
    expect(
      (await missingArtifacts(plan, e2e, { kind: 'dir', dir }, runner)).map((m) => m.message),
    ).to.deep.equal([
      `artifact missing: e2e/images.txt for Kubernetes v1.30.4 — stage it in ${dir}`,
    ]);
    mkdirSync(join(dir, 'e2e'));
    writeFileSync(
      join(dir, 'e2e', 'images.txt'),
      'hybrid-lab/e2e/agnhost:2.21 k8s.gcr.io/e2e-test-images/agnhost:2.21\nhybrid-lab/e2e/busybox:1.29 docker.io/library/busybox:1.29\n',
    );
    writeFileSync(join(dir, 'images', 'linux', 'hybrid-lab_e2e_busybox_1.29.tar'), 'x');
    expect(
      (await missingArtifacts(plan, e2e, { kind: 'dir', dir }, runner)).map((m) => m.artifact.path),
    ).to.deep.equal(['images/linux/hybrid-lab_e2e_agnhost_2.21.tar']);
    expect(await missingArtifacts(plan, v, { kind: 'dir', dir }, runner)).to.deep.equal([]);
  });

  it('checks a cache URL the same way (HTTP on loopback, through curl)', async () => {
    fill(dir, /flanneld\.exe/);
    const server: Server = createServer((req, res) => {
      const rel = decodeURIComponent((req.url ?? '/').slice('/cache/'.length));
      try {
        const text = readFileSync(join(dir, rel), 'utf8');
        res.writeHead(200).end(req.method === 'HEAD' ? undefined : text);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const url = `http://127.0.0.1:${port}/cache`;
      const missing = await missingArtifacts(plan, v, { kind: 'url', url }, runner);
      expect(missing.map((m) => m.message)).to.deep.equal([
        `artifact missing: flannel/${v.flannel}/flanneld.exe for Kubernetes v1.30.4 — stage it in ${url}`,
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("lists upstream's Linux containerd only when the spec pins it, and Debian's containerd only when not", async () => {
    const paths = (versions: typeof v) => artifactsForPlan(plan, versions).map((a) => a.path);
    const linuxRelease = /^containerd\/v[^/]+\/containerd-[^/]+-linux-amd64\.tar\.gz$/;
    expect(paths(v).filter((p) => linuxRelease.test(p))).to.deep.equal([]);
    expect(paths(v)).to.include('containerd');
    const pinned = componentVersions(plan, { versions: { containerd: 'v2.0.0' } });
    expect(paths(pinned))
      .to.include.members([
        'containerd/v2.0.0/containerd-2.0.0-linux-amd64.tar.gz',
        'containerd/v2.0.0/containerd-2.0.0-windows-amd64.tar.gz',
      ])
      .and.not.include('containerd');
    expect(artifactsForPlan(namespaceKubeadmPlan(), pinned).map((a) => a.path)).to.not.include(
      'containerd/v2.0.0/containerd-2.0.0-linux-amd64.tar.gz',
    );
    const missing = await missingArtifacts(plan, pinned, { kind: 'dir', dir }, runner);
    expect(missing.find((m) => linuxRelease.test(m.artifact.path))?.artifact.from).to.equal(
      'https://github.com/containerd/containerd/releases/download/v2.0.0/containerd-2.0.0-linux-amd64.tar.gz',
    );
  });

  it('reads a Debian Packages index', () => {
    expect([
      ...parsePackagesIndex(
        'Package: a\nFilename: ./a_1.deb\n\nPackage: b\nVersion: 2\nFilename: b_2.deb\n',
      ),
    ]).to.deep.equal([
      ['a', 'a_1.deb'],
      ['b', 'b_2.deb'],
    ]);
  });
});
