import { expect } from 'chai';
import { podDnsConfig } from '../cluster/dataplane/cluster-dns.ts';
import { windowsCniConfig } from '../cni/windows-cni-config.ts';
import { fixturePlan, type FixtureNode } from '../testing/fixture-plan.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import { describeSelector } from './cell-selector.ts';
import { FAULT_CATALOGUE, findFault } from './fault-catalogue.ts';
import { FaultError } from './fault-error.ts';
import {
  notApplicable,
  resolveTargets,
  selftestNodes,
  type SelftestNodeChoice,
} from './fault-targets.ts';
import { searchListImpact } from './impacts.ts';
import { editWindowsCni } from './windows-cni-edits.ts';

const FIVE: FixtureNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane' },
  { name: 'lin1', os: 'linux', role: 'worker' },
  { name: 'lin2', os: 'linux', role: 'worker' },
  { name: 'win1', os: 'windows', role: 'worker' },
  { name: 'win2', os: 'windows', role: 'worker' },
];
const LINUX_ONLY: FixtureNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane' },
  { name: 'lin1', os: 'linux', role: 'worker' },
];

function derive(plan: LabPlan, id: string, node?: string) {
  const fault = findFault(id);
  const targets = resolveTargets(fault, plan, node);
  const impact = fault.impact(plan, targets);
  return {
    targets: targets.map((n) => n.name),
    must: impact.mustFail.map(describeSelector),
    may: impact.mayFail.map(describeSelector),
    outcomes: impact.outcomes,
    actions: fault.actions(plan, targets),
  };
}

describe('fault catalogue', () => {
  const vxlan = fixturePlan({ nodes: FIVE });
  const hostGw = fixturePlan({ nodes: FIVE, backend: 'host-gw' });

  it('has unique kebab-case ids and a summary per fault', () => {
    const ids = FAULT_CATALOGUE.map((f) => f.id);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const f of FAULT_CATALOGUE) {
      expect(f.id).to.match(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.summary.length).to.be.greaterThan(20);
    }
  });

  it('an unknown fault lists the catalogue', () => {
    expect(() => findFault('bogus')).to.throw(FaultError, /no fault "bogus"/);
  });

  it('route removal cuts the first Windows worker off on every other node', () => {
    const d = derive(vxlan, 'pod-route-removed');
    expect(d.targets).to.deep.equal(['win1']);
    expect(d.actions).to.deep.equal(
      ['cp1', 'lin1', 'lin2', 'win2'].map((node) => ({
        kind: 'route-del',
        node,
        cidr: '10.244.3.0/24',
      })),
    );
    expect(d.must).to.deep.equal([
      'pod-to-pod from win1 to only cp1,lin1,lin2,win2',
      'pod-to-pod from cp1,lin1,lin2,win2 to only win1',
      'pod-to-pod-udp from win1 to only cp1,lin1,lin2,win2',
      'pod-to-pod-udp from cp1,lin1,lin2,win2 to only win1',
      'large-response from win1 to only cp1,lin1,lin2,win2',
      'large-response from cp1,lin1,lin2,win2 to only win1',
      'icmp from win1 to only cp1,lin1,lin2,win2',
      'icmp from cp1,lin1,lin2,win2 to only win1',
      'pod-to-service from win1 to any of cp1,lin1,lin2,win2',
      'pod-to-service from cp1,lin1,lin2,win2 to any of win1',
      'pod-to-service-udp from win1 to any of cp1,lin1,lin2,win2',
      'pod-to-service-udp from cp1,lin1,lin2,win2 to any of win1',
      'dual-protocol from win1 to any of cp1,lin1,lin2,win2',
      'dual-protocol from cp1,lin1,lin2,win2 to any of win1',
      'churn from win1 to any of cp1,lin1,lin2,win2',
      'churn from cp1,lin1,lin2,win2 to any of win1',
      'host-network-to-pod from win1 to only cp1,lin1,lin2,win2',
      'host-network-to-pod from cp1,lin1,lin2,win2 to only win1',
      'host-network-to-service from win1 to any of cp1,lin1,lin2,win2',
      'host-network-to-service from cp1,lin1,lin2,win2 to any of win1',
      'any cell via dns from win1',
      'nodeport|nodeport-udp to windows to only win1',
      'nodeport|nodeport-udp to windows to only win2',
      // Through win1 a pod reaches the Linux Service from win1's VTEP address; through every
      // node the Windows Service has its endpoint on win1.
      'pod-to-nodeport to linux to only win1',
      ...['cp1', 'lin1', 'lin2', 'win1', 'win2'].map(
        (n) => `pod-to-nodeport to windows to only ${n}`,
      ),
      'affinity from win1 to only cp1,lin1,lin2,win2',
      'affinity from cp1,lin1,lin2,win2 to only win1',
      // Windows pods forward internalTrafficPolicy Local traffic (the expected failure) across the cut.
      'internal-local to linux from win1',
      'internal-local to windows from win2',
      // Not SNATed (the service CIDR is an exception), win1's pods need the API server's reply route.
      'pod-to-apiserver from win1',
    ]);
    // Service and NodePort cells sweep every endpoint: nothing is left to chance but the
    // endpoint an affinity cell sticks to.
    expect(d.may).to.deep.equal([
      'affinity from win1 to any of cp1,lin1,lin2,win2',
      'affinity from cp1,lin1,lin2,win2 to any of win1',
    ]);
    expect(d.outcomes).to.deep.equal(['timeout', 'unreachable', 'ok']);
  });

  it('cutting off the DNS node breaks lookups everywhere else', () => {
    expect(derive(vxlan, 'pod-route-removed', 'cp1').must).to.include(
      'any cell via dns from lin1,lin2,win1,win2',
    );
  });

  it("host-gw: NodePorts break only towards the cut-off node's pods", () => {
    // host-gw nodes speak from their lab address, so a NodePort on the cut-off node still gets replies.
    const must = derive(hostGw, 'pod-route-removed', 'win1').must;
    expect(must).to.include('nodeport|nodeport-udp to windows to only win2');
    expect(must).to.not.include('nodeport|nodeport-udp to windows to only win1');
    // Node traffic only towards the cut; win1's l2bridge pods reach nodes un-NATed, so not back.
    expect(must).to.include('host-network-to-pod from cp1,lin1,lin2,win2 to only win1');
    expect(must).to.not.include('host-network-to-pod from win1 to only cp1,lin1,lin2,win2');
    expect(must).to.include(
      'pod-to-host-network|pod-to-nodeport from win1 to only cp1,lin1,lin2,win2',
    );
    expect(must).to.not.include('pod-to-nodeport to linux to only win1');
    // A Linux node's pods are masqueraded to its address, which the cut leaves reachable.
    const lin1 = derive(hostGw, 'pod-route-removed', 'lin1').must;
    expect(lin1).to.include('host-network-to-pod from cp1,lin2,win1,win2 to only lin1');
    expect(lin1.filter((m) => m.startsWith('pod-to-host-network'))).to.deep.equal([]);
  });

  it('vxlan FDB flush exists only on vxlan labs', () => {
    expect(notApplicable(findFault('vxlan-fdb-flushed'), hostGw, { cluster: true })).to.match(
      /needs flannel vxlan/,
    );
    expect(derive(vxlan, 'vxlan-fdb-flushed').actions).to.deep.equal([
      { kind: 'fdb-flush', node: 'win1', device: 'flannel.4096' },
    ]);
  });

  it("NodePort rules removed on one node break exactly that node's NodePort cells", () => {
    const d = derive(vxlan, 'nodeport-rules-removed', 'win2');
    expect(d.must).to.deep.equal([
      'nodeport|nodeport-udp|nodeport-local|host-network-to-own-nodeport|pod-to-nodeport to only win2',
    ]);
    expect(d.outcomes).to.deep.equal(['refused']);
    expect(d.actions[0]).to.include({
      kind: 'nft',
      node: 'win2',
      table: 'hlfault_nodeport_rules_removed',
    });
  });

  it('kube-proxy down on a node breaks its Services and its lookups', () => {
    expect(derive(vxlan, 'clusterip-rules-removed').must).to.deep.equal([
      'pod-to-service|pod-to-service-udp|dual-protocol|churn|hairpin|host-network-to-service|affinity|pod-to-apiserver from lin1',
      'any cell via dns from lin1',
      'internal-local has-endpoint|only-endpoint from lin1',
    ]);
    // A Windows node's internal-local cells all fail: it forwards, where Linux drops (its no-endpoint
    // cell then passes, red as an unexpected pass).
    expect(derive(vxlan, 'clusterip-rules-removed', 'win2').must).to.include.members([
      'internal-local to linux from win2',
      'internal-local to windows from win2',
    ]);
  });

  it("a kube-proxy not rebuilt breaks, after each action on its node, every path of both faults above and its health check; a Windows node's own NodePort stays dropped", () => {
    const after = (node: string) =>
      `after kube-proxy-restart|cni-restart|runtime-restart|node-reboot on ${node}:`;
    expect(derive(vxlan, 'kube-proxy-not-rebuilt', 'win2').must.slice(0, 6)).to.deep.equal([
      `${after('win2')} pod-to-service|pod-to-service-udp|dual-protocol|churn|hairpin|host-network-to-service|affinity|pod-to-apiserver from win2 to any of cp1,lin1,lin2,win1,win2`,
      `${after('win2')} any cell via dns from win2`,
      `${after('win2')} internal-local to linux from win2`,
      `${after('win2')} internal-local to windows from win2`,
      `${after('win2')} nodeport|nodeport-udp|nodeport-local|pod-to-nodeport to only win2`,
      `${after('win2')} health-check-nodeport to only win2`,
    ]);
    expect(derive(vxlan, 'kube-proxy-not-rebuilt', 'lin1').must[3]).to.equal(
      `${after('lin1')} nodeport|nodeport-udp|nodeport-local|host-network-to-own-nodeport|pod-to-nodeport to only lin1`,
    );
  });

  it('masquerade off acts on every Linux node, or the one --node names', () => {
    expect(derive(vxlan, 'masquerade-off').must).to.deep.equal([
      'outbound-nat|icmp-outbound|external-name from cp1,lin1,lin2',
    ]);
    expect(derive(vxlan, 'masquerade-off', 'lin2').must).to.deep.equal([
      'outbound-nat|icmp-outbound|external-name from lin2',
    ]);
  });

  it("ExceptionList faults edit every Windows node's config and expect wrong-source-ip", () => {
    const pods = derive(vxlan, 'exception-list-no-cluster-cidr');
    expect(pods.actions).to.deep.equal(
      [
        ['win1', '10.244.3.0/24'],
        ['win2', '10.244.4.0/24'],
      ].map(([node, podCidr]) => ({
        kind: 'windows-cni',
        node,
        edit: { kind: 'drop-exception', cidr: '10.244.0.0/16' },
        // Flows from before the fault were not SNATed; a datagram reusing one would pass.
        forgetFlowsFrom: podCidr,
      })),
    );
    expect(pods.must).to.deep.equal([
      'pod-to-pod|pod-to-pod-udp|icmp from win1,win2 to any of cp1,lin1,lin2,win1,win2',
    ]);
    expect(pods.outcomes).to.deep.equal(['wrong-source-ip', 'timeout']);
    expect(derive(vxlan, 'exception-list-no-service-cidr', 'win2').must).to.deep.equal([
      'pod-to-service|pod-to-service-udp|dual-protocol|churn from win2 to any of cp1,lin1,lin2,win1,win2',
    ]);
  });

  it("the search-list fault expects what the Windows pods' resolv.conf would lack", () => {
    const win1 = vxlan.nodes.find((n) => n.name === 'win1')!;
    const config = editWindowsCni(
      windowsCniConfig(vxlan, win1),
      { kind: 'drop-dns-search' },
      'win1',
    );
    const search = podDnsConfig(vxlan, win1, 'fault-probe', config).search;
    const must = derive(vxlan, 'windows-dns-search-list-missing').must;
    expect(must.includes('dns search-list from win1,win2')).to.equal(
      !search.includes('svc.cluster.local'),
    );
    expect(must.includes('dns short-name from win1,win2')).to.equal(
      !search.includes('fault-probe.svc.cluster.local'),
    );
    expect(must).to.not.be.empty;
    expect(derive(vxlan, 'windows-dns-search-list-missing').outcomes).to.deep.equal(['nxdomain']);
    // No Windows node lacking a suffix: no selector at all (one with no node would name none).
    expect(searchListImpact(vxlan, []).mustFail).to.deep.equal([]);
  });

  it('blackholed Windows endpoints break the Windows Service and its NodePorts', () => {
    const d = derive(vxlan, 'windows-endpoints-blackholed');
    expect(d.must).to.deep.equal([
      'pod-to-service|pod-to-service-udp|dual-protocol|churn|host-network-to-service to any of win1,win2',
      'hairpin from win1,win2',
      'nodeport-local to only win1,win2',
      'nodeport|nodeport-udp to windows to only win1',
      'nodeport|nodeport-udp to windows to only win2',
      ...['cp1', 'lin1', 'lin2', 'win1', 'win2'].map(
        (n) => `pod-to-nodeport to windows to only ${n}`,
      ),
      'affinity to only win1,win2',
      'internal-local to windows from win1',
      'internal-local to windows from win2',
    ]);
    expect(d.may).to.deep.equal(['affinity to any of win1,win2']);
    expect(d.actions.map((a) => a.kind === 'nft' && a.node)).to.deep.equal([
      'cp1',
      'lin1',
      'lin2',
      'win1',
      'win2',
    ]);
  });

  it("one node's endpoint blackholed: dropped on every node, only Service traffic to its pod CIDR", () => {
    const d = derive(vxlan, 'node-endpoint-blackholed', 'win2');
    expect(d.targets).to.deep.equal(['win2']);
    expect(d.must).to.deep.equal([
      'pod-to-service|pod-to-service-udp|dual-protocol|churn|host-network-to-service to any of win2',
      'hairpin from win2',
      'nodeport-local to only win2',
      'nodeport|nodeport-udp to windows to only win1',
      'nodeport|nodeport-udp to windows to only win2',
      ...['cp1', 'lin1', 'lin2', 'win1', 'win2'].map(
        (n) => `pod-to-nodeport to windows to only ${n}`,
      ),
      // The Windows Service has another endpoint: the sticky one is win2's only by chance.
      'affinity to only win2',
    ]);
    expect(d.may).to.deep.equal(['affinity to any of win2']);
    expect(d.actions).to.have.length(5);
    const [first] = d.actions;
    expect(first?.kind === 'nft' && first.ruleset).to.include(
      'ct status dnat ip daddr { 10.244.4.0/24 }',
    );
  });

  it("a Linux node's endpoint blackholed: its host-network NodePorts too, and DNS where DNS runs", () => {
    const onLinux = (node: string) => [
      `pod-to-service|pod-to-service-udp|dual-protocol|churn|host-network-to-service to any of ${node}`,
      `hairpin from ${node}`,
      `nodeport-local to only ${node}`,
      ...['cp1', 'lin1', 'lin2'].map((n) => `nodeport|nodeport-udp to linux to only ${n}`),
      // A Linux node's own pods reach its NodePort from its host network (Windows: no such row).
      ...['cp1', 'lin1', 'lin2'].map((n) => `host-network-to-own-nodeport to linux to only ${n}`),
      ...['cp1', 'lin1', 'lin2', 'win1', 'win2'].map(
        (n) => `pod-to-nodeport to linux to only ${n}`,
      ),
    ];
    const lin1 = derive(vxlan, 'node-endpoint-blackholed', 'lin1');
    expect(lin1.must).to.deep.equal([
      ...onLinux('lin1'),
      'affinity to only lin1',
      'internal-local has-endpoint|only-endpoint from lin1',
    ]);
    expect(lin1.may).to.deep.equal([
      'affinity to any of lin1',
      'internal-local to linux from win1',
      'internal-local to linux from win2',
    ]);
    // A blackhole times out; a Windows internal-local cell expected to fail may then pass.
    expect(lin1.outcomes).to.deep.equal(['timeout', 'ok']);
    // cp1 runs the cluster DNS: every lookup goes through its endpoint.
    expect(derive(vxlan, 'node-endpoint-blackholed', 'cp1').must).to.deep.equal([
      ...onLinux('cp1'),
      'any cell via dns',
      'affinity to only cp1',
      'internal-local has-endpoint|only-endpoint from cp1',
    ]);
  });

  it("one node's pods cut from the other OS: new connections dropped on that node only, one way", () => {
    const d = derive(vxlan, 'pods-cut-from-other-os', 'win2');
    expect(d.actions).to.have.length(1);
    const [action] = d.actions;
    expect(action).to.include({ kind: 'nft', node: 'win2' });
    expect(action?.kind === 'nft' && action.ruleset).to.include(
      'ip saddr 10.244.4.0/24 ip daddr { 10.244.0.0/24, 10.244.1.0/24, 10.244.2.0/24 } ct state new drop',
    );
    expect(d.must).to.deep.equal([
      'pod-to-pod|pod-to-pod-udp|large-response|icmp|affinity|pod-to-service|pod-to-service-udp|dual-protocol|churn to linux from win2 to any of cp1,lin1,lin2',
      // Through its own node the NodePort's DNAT happens on win2; Windows forwards Local traffic.
      'pod-to-nodeport to linux from win2 to only win2',
      'internal-local to linux from win2',
      'any cell via dns from win2',
    ]);
    // Linux nodes share the DNS pod's OS: their lookups are not cut.
    expect(derive(vxlan, 'pods-cut-from-other-os', 'lin2').must).to.deep.equal([
      'pod-to-pod|pod-to-pod-udp|large-response|icmp|affinity|pod-to-service|pod-to-service-udp|dual-protocol|churn to windows from lin2 to any of win1,win2',
      'pod-to-nodeport to windows from lin2 to only lin2',
    ]);
  });

  it('a too small link MTU on one node: MTU first, then the ingress drop', () => {
    const d = derive(vxlan, 'link-mtu-too-small');
    expect(d.actions[0]).to.deep.equal({ kind: 'mtu', node: 'win1', device: 'eth0', mtu: 1400 });
    expect(d.actions[1]).to.include({ kind: 'nft', family: 'netdev', node: 'win1' });
    expect(d.actions[1]?.kind === 'nft' && d.actions[1].ruleset).to.contain(
      'meta length > 1400 drop',
    );
    expect(d.must).to.deep.equal(['large-response from win1', 'large-response to any of win1']);
    expect(notApplicable(findFault('link-mtu-too-small'), hostGw, { cluster: true })).to.match(
      /vxlan/,
    );
  });

  it('Windows faults do not apply to a lab without Windows nodes', () => {
    const linux = fixturePlan({ nodes: LINUX_ONLY });
    for (const id of [
      'windows-dns-search-list-missing',
      'exception-list-no-service-cidr',
      'windows-endpoints-blackholed',
    ]) {
      expect(notApplicable(findFault(id), linux, { cluster: true })).to.match(
        /needs windows nodes/,
      );
    }
    expect(
      derive(linux, 'pod-route-removed').targets,
      'falls back to a Linux worker',
    ).to.deep.equal(['lin1']);
  });

  it('faults that need the cluster API do not apply without it, nor on real clusters', () => {
    expect(notApplicable(findFault('dns-stopped'), vxlan, { cluster: false })).to.match(
      /emulated cluster API/,
    );
    expect(
      notApplicable(
        findFault('dns-stopped'),
        { ...vxlan, emulated: false, provider: 'existing' },
        { cluster: true },
      ),
    ).to.match(/emulated dataplanes/);
  });

  it('a bad --node is refused before anything happens', () => {
    expect(() => resolveTargets(findFault('pod-route-removed'), vxlan, 'win9')).to.throw(
      FaultError,
      /no such node.*/,
    );
    expect(() => resolveTargets(findFault('masquerade-off'), vxlan, 'win1')).to.throw(
      FaultError,
      /acts on linux nodes; win1 is windows/,
    );
    expect(() => resolveTargets(findFault('dns-stopped'), vxlan, 'cp1')).to.throw(
      FaultError,
      /takes no --node/,
    );
  });

  it('the self-test runs node faults on the first and last node of each OS, on every node, or alternating', () => {
    const nodes = (id: string, choice: SelftestNodeChoice = 'ends', index = 0) =>
      selftestNodes(findFault(id), vxlan, choice, index).map((n) => n ?? 'lab');
    expect(nodes('pod-route-removed')).to.deep.equal(['win1', 'win2', 'lin1', 'cp1']);
    expect(nodes('pod-route-removed', 'all')).to.deep.equal([
      'win1',
      'win2',
      'lin1',
      'lin2',
      'cp1',
    ]);
    expect(nodes('pod-route-removed', 'alternate', 0)).to.deep.equal(['win1', 'lin1']);
    expect(nodes('pod-route-removed', 'alternate', 1)).to.deep.equal(['win2', 'cp1']);
    expect(nodes('masquerade-off')).to.deep.equal(['lin1', 'cp1']);
    expect(nodes('exception-list-no-cluster-cidr')).to.deep.equal(['win1', 'win2']);
    expect(nodes('dns-stopped', 'alternate', 1)).to.deep.equal(['lab']);
    const oneWindows = fixturePlan({ nodes: FIVE.filter((n) => n.name !== 'win2') });
    expect(selftestNodes(findFault('link-mtu-too-small'), oneWindows, 'ends')).to.deep.equal([
      'win1',
      'lin1',
      'cp1',
    ]);
    expect(
      selftestNodes(findFault('link-mtu-too-small'), oneWindows, 'alternate', 1),
    ).to.deep.equal(['win1', 'cp1']);
  });
});
