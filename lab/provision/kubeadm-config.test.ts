import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { componentVersions } from './component-versions.ts';
import {
  kubeadmApiVersion,
  kubeadmInitDocuments,
  renderKubeadmInitConfig,
} from './kubeadm-config.ts';
import { parseKubeadmConfig } from './kubeadm-config-schema.ts';
import { ProvisionError } from './provision-error.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { expectGolden } from '../testing/golden.ts';

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
