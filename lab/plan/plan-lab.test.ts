import { expect } from 'chai';
import { loadSpec, presetNames } from '../spec/load-spec.ts';
import { validateSpec } from '../spec/load-spec.ts';
import { expandShorthand } from '../spec/shorthand.ts';
import { planLab, serializePlan } from './plan-lab.ts';

const plan = (name: string) => {
  const loaded = loadSpec(name, '/nonexistent');
  return planLab(loaded.spec, loaded.source);
};

describe('planner', () => {
  for (const preset of presetNames()) {
    it(`plans preset ${preset} to identical bytes twice`, () => {
      expect(serializePlan(plan(preset))).to.equal(serializePlan(plan(preset)));
    });
  }

  it('numbers the default lab as docs/spec.md says', () => {
    const p = plan('hybrid');
    expect(p.id).to.equal('hl-hybrid');
    expect(p.emulated).to.equal(true);
    expect(p.kubernetes.clusterDNS).to.equal('10.96.0.10');
    expect(p.kubernetes.apiServiceIP).to.equal('10.96.0.1');
    expect(p.cni).to.include({ vni: 4096, port: 4789, windowsNetworkName: 'vxlan0' });
    expect(p.nodes.map((n) => [n.name, n.ip, n.podCIDR, n.podGateway])).to.deep.equal([
      ['cp1', '192.168.200.10', '10.244.0.0/24', '10.244.0.1'],
      ['lin1', '192.168.200.11', '10.244.1.0/24', '10.244.1.1'],
      ['lin2', '192.168.200.12', '10.244.2.0/24', '10.244.2.1'],
      ['win1', '192.168.200.13', '10.244.3.0/24', '10.244.3.1'],
      ['win2', '192.168.200.14', '10.244.4.0/24', '10.244.4.1'],
    ]);
    expect(p.external).to.deep.equal({
      cidr: '198.51.100.0/24',
      address: '198.51.100.1',
      managed: true,
    });
  });

  it('gives stable, distinct QEMU MACs', () => {
    const macs = plan('hybrid').nodes.map((n) => n.mac);
    expect(new Set(macs).size).to.equal(macs.length);
    for (const mac of macs) expect(mac).to.match(/^52:54:00(:[0-9a-f]{2}){3}$/);
  });

  it('spreads unplaced nodes round-robin and honours explicit placement', () => {
    const spec = validateSpec(
      {
        name: 'multi',
        provider: 'libvirt',
        network: { mode: 'bridge', bridge: 'br-lab' },
        hypervisors: [
          { name: 'a', uri: 'qemu:///system' },
          { name: 'b', uri: 'qemu+ssh://root@b.example/system' },
        ],
        nodes: [
          { name: 'cp1', os: 'linux', role: 'control-plane', hypervisor: 'b' },
          { name: 'l1', os: 'linux' },
          { name: 'l2', os: 'linux' },
          { name: 'w1', os: 'windows' },
        ],
      },
      'test',
    );
    const p = planLab(spec);
    expect(p.nodes.map((n) => n.hypervisor)).to.deep.equal(['b', 'a', 'b', 'a']);
    expect(p.hypervisors).to.deep.equal([
      { name: 'a', uri: 'qemu:///system', remote: false, nodes: ['l1', 'w1'] },
      { name: 'b', uri: 'qemu+ssh://root@b.example/system', remote: true, nodes: ['cp1', 'l2'] },
    ]);
    expect(p.nodes.find((n) => n.name === 'w1')).to.include({
      guestOs: 'windows',
      boxName: 'hybrid-lab/windows-2022',
    });
  });

  it('runs every node of an emulated libvirt lab on Linux boxes', () => {
    const p = plan('libvirt-emulated');
    expect(p.cluster).to.equal('emulated');
    expect(p.nodes.map((n) => `${n.os}:${n.guestOs}:${n.box}`)).to.deep.equal([
      'linux:linux:debian-12',
      'linux:linux:debian-12',
      'windows:linux:debian-12',
    ]);
  });

  it('uses cbr0 as the Windows network for host-gw', () => {
    const spec = validateSpec(
      { ...expandShorthand('k8s-netns-1-0-1'), cni: { backend: 'host-gw' } },
      't',
    );
    expect(planLab(spec).cni.windowsNetworkName).to.equal('cbr0');
  });

  it('derives the DNS IP from another service CIDR', () => {
    const spec = validateSpec(
      { ...expandShorthand('k8s-netns-1-1-0'), kubernetes: { serviceCIDR: '172.20.0.0/16' } },
      't',
    );
    expect(planLab(spec).kubernetes.clusterDNS).to.equal('172.20.0.10');
  });
});

describe('shorthand', () => {
  it('expands k8s-libvirt-1-1-1 to one of each on one hypervisor', () => {
    const p = planLab(validateSpec(expandShorthand('k8s-libvirt-1-1-1'), 's'));
    expect(p.nodes.map((n) => `${n.name}/${n.os}/${n.role}`)).to.deep.equal([
      'cp1/linux/control-plane',
      'lin1/linux/worker',
      'win1/windows/worker',
    ]);
    expect(p.hypervisors.map((h) => h.name)).to.deep.equal(['hv1']);
  });

  it('puts several hypervisors on a bridge', () => {
    const p = planLab(validateSpec(expandShorthand('k8s-libvirt-1-2-2-2'), 's'));
    expect(p.network).to.include({ mode: 'bridge', bridge: 'br-lab' });
    expect(p.hypervisors.map((h) => h.nodes.length)).to.deep.equal([3, 2]);
  });

  it('names the lab after the shorthand, within the 20-character limit', () => {
    expect(expandShorthand('k8s-netns-1-2-2')?.name).to.equal('k8s-netns-1-2-2');
    const long = planLab(validateSpec(expandShorthand('k8s-libvirt-1-10-10-2'), 's'));
    expect(long.name).to.equal('libvirt-1-10-10-2');
    expect(long.nodes).to.have.length(21);
  });

  it('is not confused with other names', () => {
    expect(expandShorthand('k8s-docker-1-1-1')).to.equal(undefined);
    expect(expandShorthand('hybrid')).to.equal(undefined);
  });
});
