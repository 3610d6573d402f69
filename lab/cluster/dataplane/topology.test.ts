import { expect } from 'chai';
import { RecordingRunner } from '../../testing/recording-runner.ts';
import { fixturePlan } from '../../testing/fixture-plan.ts';
import { labIdOf, nodeNamespace, ownedBy, podNamespace, prefixOfLab } from './names.ts';
import { NetnsNodeShell } from '../../remote/netns-node-shell.ts';
import { podNetworkScript, vxlanFdbScript } from './pod-network.ts';
import {
  buildNode,
  createNamespaces,
  labNamespaceNames,
  outsideScript,
  switchScript,
} from './topology.ts';

describe('netns topology scripts', () => {
  const plan = fixturePlan({ id: 'hl-unit' });
  const cp = plan.nodes[0]!;

  it('creates every namespace with one ip process', async () => {
    const runner = new RecordingRunner();
    await createNamespaces(runner, labNamespaceNames(plan));
    expect(runner.lines()).to.deep.equal(['ip -batch -']);
    expect(runner.calls[0]!.options.input).to.equal(
      ['sw', 'out', 'node_cp1', 'node_lin1', 'node_win1', 'node_win2']
        .map((n) => `netns add hl-unit-${n}`)
        .join('\n') + '\n',
    );
  });

  it('wires each node to the switch with its planned MAC, created straight inside the namespaces', () => {
    const lines = switchScript(plan);
    expect(lines).to.include(
      'link add n0 type veth peer name eth0 address 52:54:00:c8:00:0a netns hl-unit-node_cp1',
    );
    expect(lines).to.include('link set n0 master br0 up');
    expect(lines).to.include('link add out0 type veth peer name eth0 netns hl-unit-out');
  });

  it('gives outside the lab gateway and the external address', () => {
    expect(outsideScript(plan)).to.include.members([
      'addr add 198.51.100.1/32 dev lo',
      'addr add 192.168.200.1/24 dev eth0',
    ]);
  });

  it('programs vxlan like flannel: VNI 4096, port 4789, fdb, neighbour and onlink route per remote node', () => {
    const lines = podNetworkScript(plan, cp);
    expect(lines[0]).to.equal(
      'link add flannel.4096 address 0e:6c:00:00:00:00 mtu 1450 type vxlan id 4096 local 192.168.200.10 dev eth0 dstport 4789 nolearning',
    );
    expect(lines).to.include(
      'neigh add 10.244.2.0 lladdr 0e:6c:00:00:00:02 dev flannel.4096 nud permanent',
    );
    expect(lines).to.include('route add 10.244.2.0/24 via 10.244.2.0 dev flannel.4096 onlink');
    expect(vxlanFdbScript(plan, cp)).to.include(
      'fdb append 0e:6c:00:00:00:02 dev flannel.4096 dst 192.168.200.12 self permanent',
    );
  });

  it('programs host-gw as routes via each remote node and no fdb', () => {
    const hostGw = fixturePlan({ id: 'hl-unit', backend: 'host-gw' });
    expect(podNetworkScript(hostGw, hostGw.nodes[0]!)).to.deep.equal([
      'route add 10.244.1.0/24 via 192.168.200.11 dev eth0',
      'route add 10.244.2.0/24 via 192.168.200.12 dev eth0',
      'route add 10.244.3.0/24 via 192.168.200.13 dev eth0',
    ]);
    expect(vxlanFdbScript(hostGw, hostGw.nodes[0]!)).to.deep.equal([]);
  });

  it('configures a node only through its shell (ip netns exec <node-ns>)', async () => {
    const runner = new RecordingRunner();
    await buildNode(new NetnsNodeShell('cp1', nodeNamespace(plan.prefix, 'cp1'), runner), plan, cp);
    expect(runner.lines().every((l) => l.startsWith('ip netns exec hl-unit-node_cp1 '))).to.equal(
      true,
    );
    expect(runner.lines()[0]).to.contain('sysctl -q -w net.ipv4.ip_forward=1');
    expect(runner.calls[1]!.options.input).to.contain(
      'route add default via 192.168.200.1 dev eth0',
    );
    expect(runner.calls[1]!.options.input).to.contain('addr add 10.244.0.1/24 dev cni0');
    expect(runner.lines()[2]).to.equal('ip netns exec hl-unit-node_cp1 bridge -batch -');
  });
});

describe('netns names', () => {
  it('claims only its own lab', () => {
    expect(ownedBy('hl-a-', 'hl-a-sw')).to.equal(true);
    expect(ownedBy('hl-a-', podNamespace('hl-a-', 'default', 'web-1'))).to.equal(true);
    expect(ownedBy('hl-a-', 'hl-a-b-sw')).to.equal(false);
    expect(ownedBy('hl-a-', 'hl-a-n-node_x')).to.equal(false);
    expect(ownedBy('hl-', 'hl-a-b-sw')).to.equal(true);
    expect(ownedBy('hl-', 'other')).to.equal(false);
  });

  it('recovers the lab id from any namespace name', () => {
    expect(labIdOf('hl-a-b-sw')).to.equal('hl-a-b');
    expect(labIdOf('hl-hybrid-node_cp1')).to.equal('hl-hybrid');
    expect(labIdOf('hl-hybrid-pod_default_web-sw')).to.equal('hl-hybrid');
    expect(labIdOf('something-else')).to.equal(undefined);
    expect(prefixOfLab('hl-hybrid')).to.equal('hl-hybrid-');
  });
});
