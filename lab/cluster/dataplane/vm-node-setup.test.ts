import { expect } from 'chai';
import { fixturePlan } from '../../testing/fixture-plan.ts';
import { externalRoute } from '../../plan/outbound-nat.ts';
import { nicWithMac, vmNodeScript } from './vm-node-setup.ts';

const IP_LINK = [
  '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00',
  '2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc pfifo_fast state UP mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:36:8d:78 brd ff:ff:ff:ff:ff:ff',
  '3: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc pfifo_fast state UP mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:C8:00:0a brd ff:ff:ff:ff:ff:ff',
].join('\n');

describe('emulated node setup on a VM', function () {
  const plan = fixturePlan();
  const cp = plan.nodes[0]!;

  it('finds the lab NIC by the plan MAC, case-insensitively', function () {
    expect(nicWithMac(IP_LINK, '52:54:00:c8:00:0a')).to.equal('eth1');
    expect(nicWithMac(IP_LINK, '52:54:00:00:00:99')).to.equal(undefined);
  });

  it('wires cni0 and flannel on that NIC, routing only the external CIDR via the lab gateway', function () {
    const lines = vmNodeScript(plan, cp, 'eth1');
    expect(lines.slice(0, 3)).to.deep.equal([
      'link set eth1 up',
      'addr replace 192.168.200.10/24 dev eth1',
      'route replace 198.51.100.0/24 via 192.168.200.1 dev eth1',
    ]);
    // cni0's MAC is set (from its gateway address), or it would follow its ports as pods come and go.
    expect(lines).to.include('link add cni0 address 0a:58:0a:f4:00:01 mtu 1450 type bridge');
    expect(lines.find((l) => l.includes('type vxlan'))).to.match(
      /local 192\.168\.200\.10 dev eth1 dstport 4789/,
    );
    expect(lines.some((l) => l.startsWith('route add default'))).to.equal(false);
  });

  it('routes a real external target as a host route', function () {
    const real = {
      ...plan,
      external: { cidr: '198.51.100.0/24', address: '203.0.113.7', managed: false },
    };
    expect(externalRoute(real)).to.equal('203.0.113.7/32');
  });
});
