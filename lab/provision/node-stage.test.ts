import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { outboundNat, windowsCniConfig } from '../cni/windows-cni-config.ts';
import { componentVersions } from './component-versions.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { windowsCniFile, writeNodeStage } from './node-stage.ts';
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
});
