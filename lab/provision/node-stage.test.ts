import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { outboundNat, windowsCniConfig } from '../cni/windows-cni-config.ts';
import { componentVersions } from './component-versions.ts';
import type { PlannedNode } from '../plan/lab-plan.ts';
import { kubeadmPlan, namespaceKubeadmPlan } from '../testing/kubeadm-plans.ts';
import { windowsCniFile, writeNodeStage } from './node-stage.ts';
import { provisionSettingsFromText } from './provision-settings.ts';
import { expectGolden } from '../testing/golden.ts';

describe('node stage folders', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'hl-stage-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('writes the Windows CNI config from windowsCniConfig (the netns emulation reads the same)', () => {
    for (const backend of ['vxlan', 'host-gw'] as const) {
      const plan = kubeadmPlan({ backend });
      const win = plan.nodes.find((n) => n.os === 'windows')!;
      const dir = writeNodeStage(root, {
        plan,
        node: win,
        versions: componentVersions(plan),
        source: { kind: 'none' },
        imageTarballs: [],
        shell: { hostFiles: false },
      });
      const written = readFileSync(join(dir, 'config', '10-flannel.conf'), 'utf8');
      expect(written).to.equal(windowsCniFile(plan, win));
      expect(JSON.parse(written)).to.deep.equal(windowsCniConfig(plan, win));
      expectGolden(`win1-10-flannel.${backend}.conf`, written);
      expect(outboundNat(JSON.parse(written)).exceptions).to.include(plan.kubernetes.serviceCIDR);
      expect(readdirSync(join(dir, 'scripts')).every((f) => f.endsWith('.ps1'))).to.equal(true);
    }
  });

  it('gives the control plane its kubeadm config and manifests, and Linux nodes a node.env bash reads', () => {
    const plan = kubeadmPlan();
    const cp = plan.nodes[0]!;
    const dir = writeNodeStage(root, {
      plan,
      node: cp,
      versions: componentVersions(plan),
      source: { kind: 'dir', dir: '/srv/cache' },
      imageTarballs: ['images/linux/a.tar', 'images/linux/b.tar'],
      shell: { hostFiles: false },
    });
    expect(readdirSync(join(dir, 'config')).sort()).to.deep.equal([
      'containerd.toml',
      'kubeadm-init.yaml',
      'manifests',
      'node.env',
    ]);
    expect(readdirSync(join(dir, 'scripts')))
      .to.include('kubeadm-init.sh')
      .and.not.include('stage-debian-packages.sh');
    const out = execFileSync(
      'bash',
      [
        '-c',
        'set -euo pipefail; . "$1"; echo "$HL_NODE_IP|$HL_K8S_VERSION|$HL_ARTIFACT_KUBEADM|$HL_ARTIFACTS_HINT|$HL_IMAGE_TARBALLS|$HL_ARTIFACTS_DIR"',
        'bash',
        join(dir, 'config', 'node.env'),
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim()).to.equal(
      '192.168.200.10|v1.30.4|kubernetes/v1.30.4/linux/amd64/kubeadm|/srv/cache|images/linux/a.tar images/linux/b.tar|/opt/hybrid-lab/artifacts',
    );
  });

  it("takes the containerd pin of docs/kubeadm.md's example to both OSes: upstream releases, Debian keeps runc and the CNI plugins", () => {
    const plan = kubeadmPlan();
    const settings = provisionSettingsFromText(
      'artifacts: { dir: ./artifacts }\nkubeadm: { versions: { containerd: v1.7.22 }, imageRepository: registry.example/k8s }\n',
      'lab.yaml',
      '/srv/lab',
    );
    const versions = componentVersions(plan, settings.kubeadm);
    const at = (node: PlannedNode) =>
      writeNodeStage(root, {
        plan,
        node,
        versions,
        source: settings.artifacts,
        imageTarballs: [],
        shell: { hostFiles: false },
      });
    const linux = at(plan.nodes[1]!);
    const env = execFileSync(
      'bash',
      [
        '-c',
        'set -euo pipefail; . "$1"; printf "%s\n" "$HL_CONTAINERD_VERSION" "$HL_ARTIFACT_CONTAINERD" "$HL_CONTAINERD_URL" "$HL_CONTAINERD_MAJOR" "$HL_DEBIAN_PACKAGES"',
        'bash',
        join(linux, 'config', 'node.env'),
      ],
      { encoding: 'utf8' },
    );
    expect(env.trim().split('\n')).to.deep.equal([
      '1.7.22',
      'containerd/v1.7.22/containerd-1.7.22-linux-amd64.tar.gz',
      'https://github.com/containerd/containerd/releases/download/v1.7.22/containerd-1.7.22-linux-amd64.tar.gz',
      '1',
      'runc containernetworking-plugins conntrack socat ethtool iptables curl',
    ]);
    const windows = at(plan.nodes.find((n) => n.os === 'windows')!);
    const json = JSON.parse(readFileSync(join(windows, 'config', 'node.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(json.HL_CONTAINERD_VERSION).to.equal('1.7.22');
    expect(json.HL_ARTIFACT_CONTAINERD).to.equal(
      'containerd/v1.7.22/containerd-1.7.22-windows-amd64.tar.gz',
    );
    expect(readFileSync(join(windows, 'config', 'containerd.toml'), 'utf8')).to.include(
      'sandbox_image = "registry.example/k8s/pause:3.9"',
    );
  });

  it("without a pin Linux nodes keep Debian's containerd (1.x config) and Windows nodes get 1.7.22", () => {
    const plan = kubeadmPlan({ version: '1.31.2' });
    const versions = componentVersions(plan);
    expect(versions.containerd).to.deep.equal({ linux: undefined, windows: '1.7.22' });
    const linux = writeNodeStage(root, {
      plan,
      node: plan.nodes[0]!,
      versions,
      source: { kind: 'none' },
      imageTarballs: [],
      shell: { hostFiles: false },
    });
    const env = readFileSync(join(linux, 'config', 'node.env'), 'utf8');
    expect(env).to.include("HL_CONTAINERD_VERSION=''\n").and.include("HL_CONTAINERD_MAJOR='1'\n");
    expect(env).to.match(/^HL_DEBIAN_PACKAGES='containerd runc /m);
    expect(readFileSync(join(linux, 'config', 'containerd.toml'), 'utf8')).to.include(
      'sandbox_image = "registry.k8s.io/pause:3.10"',
    );
  });

  it('writes no containerd config for namespace nodes, whose provider runs containerd', () => {
    const plan = namespaceKubeadmPlan();
    const dir = writeNodeStage(root, {
      plan,
      node: plan.nodes[1]!,
      versions: componentVersions(plan),
      source: { kind: 'dir', dir: '/srv/cache' },
      imageTarballs: [],
      shell: { hostFiles: true },
    });
    expect(readdirSync(join(dir, 'config'))).to.not.include('containerd.toml');
  });
});
