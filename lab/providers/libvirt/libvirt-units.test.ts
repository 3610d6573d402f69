import { expect } from 'chai';
import { formatCidr, parseCidr } from '../../net/ipv4.ts';
import { labNicNetworkd } from './lab-nic.ts';
import { libvirtPlan } from '../../testing/libvirt-plans.ts';
import { domainName, labIdOf, labNetworkName, managementNetworkName } from './libvirt-names.ts';
import {
  chooseManagementCidr,
  labNetworkXml,
  managementNetworkXml,
  planSubnets,
} from './libvirt-networks.ts';
import { availableMiB, libvirtBoxes, neededMiB } from './libvirt-preflight.ts';
import { parseLabResources, parseNetworkSubnets } from './virsh.ts';

describe('libvirt names', function () {
  it('names every resource "<lab id>_<what>" and reads the id back, never across labs', function () {
    const plan = libvirtPlan();
    expect(domainName(plan, 'cp1')).to.equal('hl-unit-a_cp1');
    expect(labIdOf(domainName(plan, 'cp1'))).to.equal('hl-unit-a');
    expect(labIdOf(managementNetworkName(plan, 'hv1'))).to.equal('hl-unit-a');
    expect(labIdOf(labNetworkName(plan))).to.equal('hl-unit-a');
    expect(labIdOf('hl-unit-a_cp1.img')).to.equal('hl-unit-a');
    expect(labIdOf('hl-unit-a-cp1')).to.equal(undefined);
    expect(labIdOf('default')).to.equal(undefined);
    expect(labIdOf('hybrid-lab-VAGRANTSLASH-debian-12_vagrant_box_image_1_box.img')).to.equal(
      undefined,
    );
  });
});

describe('libvirt networks', function () {
  it('picks the first free /24 for a management network, avoiding the plan and existing networks', function () {
    const used = [parseCidr('192.168.121.0/24')!, parseCidr('192.168.122.0/23')!];
    expect(formatCidr(chooseManagementCidr(used))).to.equal('192.168.124.0/24');
    expect(formatCidr(chooseManagementCidr(planSubnets(libvirtPlan())))).to.equal(
      '192.168.121.0/24',
    );
  });

  it('gives the lab network the gateway first (what vagrant-libvirt matches) and the external address', function () {
    const xml = labNetworkXml(libvirtPlan());
    expect(xml).to.match(/<name>hl-unit-a_lab<\/name>/);
    expect(xml.indexOf("address='192.168.200.1' netmask='255.255.255.0'")).to.be.lessThan(
      xml.indexOf("address='198.51.100.1'"),
    );
    expect(xml).to.match(/<dns enable='no'\/>/);
    expect(xml).to.not.match(/<forward/);
    const mgmt = managementNetworkXml('hl-unit-a_mgmt-hv1', parseCidr('192.168.121.0/24')!);
    expect(mgmt).to.match(/<range start='192\.168\.121\.2' end='192\.168\.121\.254'\/>/);
    expect(parseNetworkSubnets(xml).map(formatCidr)).to.deep.equal([
      '192.168.200.0/24',
      '198.51.100.0/24',
    ]);
    expect(
      parseNetworkSubnets("<ip family='ipv4' address='10.1.2.1' prefix='16'/>").map(formatCidr),
    ).to.deep.equal(['10.1.0.0/16']);
  });

  it('gives the lab NIC its plan address by MAC in a networkd unit', function () {
    const plan = libvirtPlan();
    const text = labNicNetworkd(plan, plan.nodes[1]!);
    expect(text).to.include(`MACAddress=${plan.nodes[1]!.mac}`);
    expect(text).to.include('Address=192.168.200.11/24');
  });
});

describe('libvirt preflight arithmetic', function () {
  it('reads the boxes vagrant has for libvirt', function () {
    const list = [
      '1,,box-name,hybrid-lab/debian-12',
      '1,,box-provider,libvirt',
      '1,,box-version,12.0.1',
      '1,,box-name,other/box',
      '1,,box-provider,virtualbox',
    ].join('\n');
    expect([...libvirtBoxes(list)]).to.deep.equal(['hybrid-lab/debian-12']);
  });

  it('judges memory with what QEMU emulation costs', function () {
    const stats =
      'total  :             24627712 KiB\nfree   :              2097152 KiB\nbuffers:               1048576 KiB\ncached :                1048576 KiB\n';
    expect(availableMiB(stats)).to.equal(4096);
    const plan = libvirtPlan();
    expect(neededMiB(plan, 'hv1', 'qemu')).to.equal(3 * 768 * 2);
    expect(neededMiB(plan, 'hv1', 'kvm')).to.be.lessThan(3 * 768 * 1.2);
  });
});

describe('vagrant/bin listing format', function () {
  it('parses domains, networks and volumes with their lab ids', function () {
    const resources = parseLabResources(
      'domain hl-a_cp1 hl-a\nnetwork hl-a_lab hl-a\nvolume default hl-a_cp1.img hl-a\nnoise\n',
    );
    expect(resources).to.deep.equal([
      { kind: 'domain', name: 'hl-a_cp1', labId: 'hl-a' },
      { kind: 'network', name: 'hl-a_lab', labId: 'hl-a' },
      { kind: 'volume', pool: 'default', name: 'hl-a_cp1.img', labId: 'hl-a' },
    ]);
  });
});
