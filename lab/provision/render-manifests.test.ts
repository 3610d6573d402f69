import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { renderFlannelNetConf } from '../cni/flannel-net-conf.ts';
import { componentVersions } from './component-versions.ts';
import { ProvisionError } from './provision-error.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { renderManifests, renderTemplate } from './render-manifests.ts';
import { expectGolden } from '../testing/golden.ts';

type Doc = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template: {
      spec: Record<string, unknown> & {
        containers: { env?: { name: string; value?: string }[] }[];
      };
    };
  };
};

function docs(text: string): Doc[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Doc);
}

describe('manifests rendered from the plan', () => {
  it('flannel net-conf is the plan-driven one: vxlan VNI 4096 / port 4789, or host-gw', () => {
    for (const backend of ['vxlan', 'host-gw'] as const) {
      const plan = kubeadmPlan({ backend });
      const [flannel] = renderManifests(plan, componentVersions(plan));
      const cfg = docs(flannel!.text).find((d) => d.kind === 'ConfigMap')!;
      expect(cfg.data!['net-conf.json']).to.equal(renderFlannelNetConf(plan));
      expectGolden(`flannel-net-conf.${backend}.json`, cfg.data!['net-conf.json']!);
    }
    const plan = kubeadmPlan();
    const netConf = JSON.parse(
      docs(renderManifests(plan, componentVersions(plan))[0]!.text).find(
        (d) => d.kind === 'ConfigMap',
      )!.data!['net-conf.json']!,
    ) as unknown;
    expect(netConf).to.deep.equal({
      Network: '10.244.0.0/16',
      Backend: { Type: 'vxlan', VNI: 4096, Port: 4789 },
    });
  });

  it('Windows flannel and kube-proxy are HostProcess DaemonSets with KUBE_NETWORK = the plan network name', () => {
    for (const [backend, network] of [
      ['vxlan', 'vxlan0'],
      ['host-gw', 'cbr0'],
    ] as const) {
      const plan = kubeadmPlan({ backend });
      expect(plan.cni.windowsNetworkName).to.equal(network);
      const rendered = renderManifests(plan, componentVersions(plan));
      expect(rendered.map((m) => m.file)).to.deep.equal([
        '01-flannel-kube-flannel.yaml',
        '02-windows-flannel-hostprocess.yaml',
        '03-windows-kube-proxy-hostprocess.yaml',
      ]);
      for (const manifest of rendered.slice(1)) {
        const ds = docs(manifest.text).find((d) => d.kind === 'DaemonSet')!;
        const pod = ds.spec!.template.spec;
        expect(pod.nodeSelector).to.deep.equal({ 'kubernetes.io/os': 'windows' });
        expect(pod.securityContext).to.deep.equal({
          windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\system' },
        });
        expect(pod.hostNetwork).to.equal(true);
        const env = pod.containers[0]!.env!;
        expect(env.find((e) => e.name === 'KUBE_NETWORK')?.value).to.equal(network);
      }
    }
  });

  it("Windows kube-proxy gets the spec's DSR switch (its start script adds --enable-dsr and WinDSR)", () => {
    for (const dsr of [true, false]) {
      const plan = { ...kubeadmPlan(), windows: { dsr } };
      const manifest = renderManifests(plan, componentVersions(plan)).find(
        (m) => m.file === '03-windows-kube-proxy-hostprocess.yaml',
      )!;
      const objects = docs(manifest.text);
      const ds = objects.find((d) => d.kind === 'DaemonSet')!;
      const env = ds.spec!.template.spec.containers[0]!.env!;
      expect(env.find((e) => e.name === 'ENABLE_DSR')?.value).to.equal(String(dsr));
      const script = JSON.stringify(objects.find((d) => d.kind === 'ConfigMap'));
      expect(script).to.include("$env:ENABLE_DSR -eq 'true'");
      expect(script).to.include("'--enable-dsr=true', '--feature-gates=WinDSR=true'");
    }
  });

  it('Linux flannel runs only on Linux nodes and finds the lab NIC by the node address', () => {
    const plan = kubeadmPlan();
    const ds = docs(renderManifests(plan, componentVersions(plan))[0]!.text).find(
      (d) => d.kind === 'DaemonSet',
    )!;
    expect(ds.spec!.template.spec.nodeSelector).to.deep.equal({ 'kubernetes.io/os': 'linux' });
    expect(JSON.stringify(ds)).to.include('--iface=$(NODE_IP)');
  });

  it('refuses HostProcess DaemonSets for a Kubernetes version without HostProcess (a plan made elsewhere)', () => {
    const base = kubeadmPlan();
    const plan = { ...base, kubernetes: { ...base.kubernetes, version: '1.22.9' } };
    expect(() => renderManifests(plan, componentVersions(plan))).to.throw(
      ProvisionError,
      /Windows nodes need Kubernetes >= 1\.23 \(HostProcess/,
    );
  });

  it('renders no Windows DaemonSets for a Linux-only lab', () => {
    const plan = kubeadmPlan({ windows: false });
    expect(renderManifests(plan, componentVersions(plan)).map((m) => m.file)).to.deep.equal([
      '01-flannel-kube-flannel.yaml',
    ]);
  });

  it('refuses a template placeholder the plan does not provide', () => {
    expect(() => renderTemplate('a: "{{NOPE}}"\n', {}, 't.yaml')).to.throw(ProvisionError, /NOPE/);
    expect(() => renderTemplate('a: {{X}}\n', { X: '1' }, 't.yaml')).to.throw(
      ProvisionError,
      /outside double quotes/,
    );
  });
});
