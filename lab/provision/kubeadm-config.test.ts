import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { componentVersions } from './component-versions.ts';
import {
  kubeadmApiVersion,
  kubeadmInitDocuments,
  renderKubeadmInitConfig,
  renderKubeadmJoinConfig,
} from './kubeadm-config.ts';
import { parseKubeadmConfig, parseKubeadmJoinConfig } from './kubeadm-config-schema.ts';
import { ProvisionError } from './provision-error.ts';
import { CACHED_KUBEADM, kubeadmPlan, namespaceKubeadmPlan } from '../testing/kubeadm-plans.ts';
import { expectGolden } from '../testing/golden.ts';
import { missing, skipTest } from '../testing/skip.ts';

describe('kubeadm config', () => {
  const plan = kubeadmPlan();
  const text = renderKubeadmInitConfig(plan, componentVersions(plan));

  it('matches the golden file for Kubernetes 1.30.4 (kubeadm.k8s.io/v1beta3)', () => {
    expectGolden('kubeadm-init-v1.30.4.yaml', text);
  });

  it('parses back against the documented v1beta3 fields with the plan values', () => {
    const parsed = parseKubeadmConfig(text);
    expect(parsed.init.apiVersion).to.equal('kubeadm.k8s.io/v1beta3');
    expect(parsed.init.localAPIEndpoint?.advertiseAddress).to.equal('192.168.200.10');
    expect(parsed.init.localAPIEndpoint?.advertiseAddress).to.equal(plan.nodes[0]!.ip);
    expect(parsed.init.nodeRegistration?.kubeletExtraArgs).to.deep.equal({
      'node-ip': '192.168.200.10',
    });
    expect(parsed.cluster.kubernetesVersion).to.equal('v1.30.4');
    expect(parsed.cluster.networking).to.deep.equal({
      podSubnet: plan.kubernetes.podCIDR,
      serviceSubnet: plan.kubernetes.serviceCIDR,
      dnsDomain: 'cluster.local',
    });
    expect(parsed.kubelet.cgroupDriver).to.equal('systemd');
    expect(parsed.kubelet.clusterDNS).to.deep.equal([plan.kubernetes.clusterDNS]);
    expect(parsed.kubeProxy?.clusterCIDR).to.equal('10.244.0.0/16');
  });

  it('writes v1beta4 (extra args as name/value lists) from Kubernetes 1.31 on', () => {
    const p131 = kubeadmPlan({ version: '1.31.2' });
    const t131 = renderKubeadmInitConfig(p131, componentVersions(p131));
    expectGolden('kubeadm-init-v1.31.2.yaml', t131);
    const parsed = parseKubeadmConfig(t131);
    expect(parsed.init.apiVersion).to.equal('kubeadm.k8s.io/v1beta4');
    expect(parsed.init.nodeRegistration?.kubeletExtraArgs).to.deep.equal([
      { name: 'node-ip', value: '192.168.200.10' },
    ]);
    expect(kubeadmApiVersion('v1.30.9')).to.equal('kubeadm.k8s.io/v1beta3');
  });

  it('rejects what kubeadm would not read: a misspelt field, the wrong arg shape, a bad CIDR', () => {
    const docs = kubeadmInitDocuments(plan, componentVersions(plan));
    const mutate = (i: number, change: (d: Record<string, unknown>) => void) => {
      const copy = docs.map((d) => structuredClone(d));
      change(copy[i]!);
      return copy.map((d) => stringify(d)).join('---\n');
    };
    expect(() =>
      parseKubeadmConfig(mutate(1, (d) => (d.networking = { podSubnets: '10.244.0.0/16' }))),
    ).to.throw(/podSubnets/);
    expect(() =>
      parseKubeadmConfig(
        mutate(
          0,
          (d) =>
            ((d.nodeRegistration as Record<string, unknown>).kubeletExtraArgs = [
              { name: 'node-ip', value: 'x' },
            ]),
        ),
      ),
    ).to.throw();
    expect(() =>
      parseKubeadmConfig(mutate(1, (d) => (d.networking = { podSubnet: '10.244.0.0' }))),
    ).to.throw(/CIDR/);
    expect(() =>
      parseKubeadmConfig(mutate(0, (d) => (d.localAPIEndpoint = { advertiseAddress: 'cp1' }))),
    ).to.throw(/IPv4/);
  });

  it('takes kubernetesVersion from the plan', () => {
    const other = kubeadmPlan({ backend: 'host-gw', version: '1.30.1' });
    const parsed = parse(
      renderKubeadmInitConfig(other, componentVersions(other)).split('---\n')[1]!,
    ) as { kubernetesVersion: string };
    expect(parsed.kubernetesVersion).to.equal('v1.30.1');
  });

  it('refuses a plan without exactly one Linux control plane', () => {
    const broken = { ...plan, nodes: plan.nodes.filter((n) => n.role !== 'control-plane') };
    expect(() => renderKubeadmInitConfig(broken, componentVersions(broken))).to.throw(
      ProvisionError,
      /exactly one Linux control plane/,
    );
  });
});

describe('kubeadm config for 1.20–1.21 (kubeadm.k8s.io/v1beta2)', () => {
  const plan = namespaceKubeadmPlan();
  const versions = componentVersions(plan, { clusterDns: 'hl-cluster-dns' });
  const cgroupRoot = { 'cgroup-root': '/hl-nk_cp1' };
  const init = renderKubeadmInitConfig(plan, versions, cgroupRoot);
  const joinConfig = renderKubeadmJoinConfig(plan, versions, plan.nodes[1]!, {
    'cgroup-root': '/hl-nk_lin1',
  });

  it('matches the golden files of the netns-kubeadm preset (namespace nodes: cgroupfs, the relay SAN, conntrack left alone)', () => {
    expectGolden('kubeadm-init-v1.20.2-netns.yaml', init);
    expectGolden('kubeadm-join-v1.20.2-netns.yaml', joinConfig);
    const parsed = parseKubeadmConfig(init);
    expect(parsed.init.apiVersion).to.equal('kubeadm.k8s.io/v1beta2');
    expect(parsed.init.nodeRegistration?.kubeletExtraArgs).to.deep.equal({
      'node-ip': '192.168.200.10',
      'cgroup-root': '/hl-nk_cp1',
    });
    expect(parsed.kubelet).to.include({ cgroupDriver: 'cgroupfs', failSwapOn: false });
    expect(parsed.kubeProxy?.conntrack).to.deep.equal({ maxPerCore: 0, min: 0 });
    expect(parsed.cluster.imageRepository).to.equal('k8s.gcr.io');
    expect(parseKubeadmJoinConfig(joinConfig).discovery.bootstrapToken?.apiServerEndpoint).to.equal(
      '192.168.200.10:6443',
    );
    expect(kubeadmApiVersion('v1.21.9')).to.equal('kubeadm.k8s.io/v1beta2');
    expect(kubeadmApiVersion('v1.22.0')).to.equal('kubeadm.k8s.io/v1beta3');
  });

  it('v1beta2 has no imagePullPolicy or skipPhases: the schema refuses them as kubeadm 1.20 would', () => {
    expect(() =>
      parseKubeadmConfig(
        init.replace('  name: cp1\n', '  name: cp1\n  imagePullPolicy: IfNotPresent\n'),
      ),
    ).to.throw(/imagePullPolicy/);
  });

  describe('read by the real kubeadm 1.20.2 (built from Debian by vagrant/artifacts/kubernetes/build.sh)', function () {
    this.timeout(60_000);
    let dir = '';
    before(function () {
      if (!existsSync(CACHED_KUBEADM)) {
        skipTest(
          this,
          missing(`${CACHED_KUBEADM} is missing: bash vagrant/artifacts/kubernetes/build.sh`),
        );
      }
      dir = mkdtempSync(join(tmpdir(), 'hl-kubeadm-'));
    });
    after(() => {
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });
    const migrate = (text: string) => {
      const file = join(dir, 'config.yaml');
      writeFileSync(file, text);
      return spawnSync(
        CACHED_KUBEADM,
        ['config', 'migrate', '--old-config', file, '--new-config', '/dev/null'],
        {
          encoding: 'utf8',
        },
      );
    };

    it('accepts the rendered init and join configs', () => {
      for (const text of [
        init,
        joinConfig
          .replace('@HL_JOIN_TOKEN@', 'abcdef.0123456789abcdef')
          .replace('@HL_JOIN_CA_HASH@', `sha256:${'0'.repeat(64)}`),
      ]) {
        const result = migrate(text);
        expect(result.status, result.stderr).to.equal(0);
      }
    });

    it('refuses a bad value (the check can fail)', () => {
      const result = migrate(init.replace('bindPort: 6443', 'bindPort: 99999'));
      expect(result.status).to.not.equal(0);
      expect(result.stderr).to.match(/bindPort|port/i);
    });
  });
});
