/** The catalogue's selectors against the cells the suite really expands for a lab. */
import { expect } from 'chai';
import { FAULT_CATALOGUE, findFault } from '../../lab/faults/fault-catalogue.ts';
import { notApplicable, resolveTargets } from '../../lab/faults/fault-targets.ts';
import { fixturePlan, type FixtureNode } from '../../lab/testing/fixture-plan.ts';
import type { CniBackend, LabPlan } from '../../lab/plan/lab-plan.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { PERF_MATRIX } from '../matrix/perf-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import { expectationOf } from './detection.ts';
import { suiteCells } from './suite-cells.ts';

function lab(spec: string, backend: CniBackend = 'vxlan'): LabPlan {
  const [cp, linux, windows] = spec.split('-').map(Number);
  const nodes: FixtureNode[] = [
    ...Array.from(
      { length: cp ?? 0 },
      (_, i) => ({ name: `cp${i + 1}`, os: 'linux', role: 'control-plane' }) as const,
    ),
    ...Array.from(
      { length: linux ?? 0 },
      (_, i) => ({ name: `lin${i + 1}`, os: 'linux', role: 'worker' }) as const,
    ),
    ...Array.from(
      { length: windows ?? 0 },
      (_, i) => ({ name: `win${i + 1}`, os: 'windows', role: 'worker' }) as const,
    ),
  ];
  return fixturePlan({ nodes, backend });
}

/**
 * Cells of the suite for this lab, split by what the fault's catalogue entry says about them;
 * with the over-time rows and the disruption phase on the fault's nodes where it needs them.
 */
function expected(plan: LabPlan, id: string, node?: string) {
  const fault = findFault(id);
  const targets = resolveTargets(fault, plan, node);
  const impact = fault.impact(plan, targets);
  // A fault the perf mode witnesses is judged on the perf cells (a ring, as `npm run perf` takes).
  const cells =
    fault.witness === 'perf'
      ? expandCells(PERF_MATRIX, plan.nodes, { mode: 'ring', peers: 1, rotation: 0 }).filter(
          (c) => c.probe !== undefined,
        )
      : suiteCells(
          plan,
          fault.witness,
          targets.map((t) => t.name),
        );
  const of = (kind: string) =>
    cells.filter((c) => expectationOf(impact, c.meta) === kind).map((c) => c.meta.cell);
  return { must: of('must-fail'), may: of('may-fail') };
}

/**
 * The expanded cell ids matching `pattern`: the expectations below are written as patterns over
 * the id grammar, independently of the catalogue's typed selectors.
 */
function ids(plan: LabPlan, pattern: RegExp): string[] {
  return expandCells(MATRIX, plan.nodes)
    .filter((c) => c.probe !== undefined && pattern.test(c.meta.cell))
    .map((c) => c.meta.cell);
}

/** Any pod-to-pod (TCP or UDP) or large-response cell between `node` and another node, either way. */
const crossing = (node: string) =>
  `(pod-to-pod|pod-to-pod-udp|large-response|icmp)/[a-z]+-to-[a-z]+/cross-node/(${node}/[a-z0-9]+|[a-z0-9]+/${node})/`;

describe("catalogue → expected cells on the suite's real cell ids", () => {
  const hybrid = lab('1-2-2');

  it('the default lab expands to the mesh the expectations below are written against', () => {
    expect(ids(hybrid, /./)).to.have.length(470);
  });

  it('NodePort rules removed on win1: exactly its NodePort cells, Local policy and its own included', () => {
    expect(expected(hybrid, 'nodeport-rules-removed')).to.deep.equal({
      must: [
        'host-network-to-own-nodeport/windows/win1/node-ip',
        'nodeport/external-to-windows-node/win1/node-ip',
        'nodeport-udp/external-to-windows-node/win1/node-ip',
        'nodeport-local/external-to-windows-node/win1/node-ip',
        // Every node's pod through win1's address: refused there too.
        ...ids(
          hybrid,
          /^pod-to-nodeport\/[a-z]+-to-[a-z]+\/(same-node\/win1|cross-node\/[a-z0-9]+\/win1)\//,
        ),
      ],
      may: [],
    });
    // win2 has no local endpoint: its Local node port answers nothing, with the rules or without.
    expect(expected(hybrid, 'nodeport-rules-removed', 'win2').must).to.deep.equal([
      'host-network-to-own-nodeport/windows/win2/node-ip',
      'nodeport/external-to-windows-node/win2/node-ip',
      'nodeport-udp/external-to-windows-node/win2/node-ip',
      ...ids(
        hybrid,
        /^pod-to-nodeport\/[a-z]+-to-[a-z]+\/(same-node\/win2|cross-node\/[a-z0-9]+\/win2)\//,
      ),
    ]);
  });

  it("Local traffic policy ignored on win1, then on lin2: that node's Local cell, with or without an endpoint there", () => {
    expect(expected(hybrid, 'local-traffic-policy-ignored')).to.deep.equal({
      must: ['nodeport-local/external-to-windows-node/win1/node-ip'],
      may: [],
    });
    expect(expected(hybrid, 'local-traffic-policy-ignored', 'lin2').must).to.deep.equal([
      'nodeport-local-none/external-to-linux-node/lin2/node-ip',
    ]);
  });

  it('DNS stopped: every cell that resolves a name, from every node', () => {
    const must = expected(hybrid, 'dns-stopped').must;
    expect(must).to.deep.equal(ids(hybrid, /\/dns$/));
    // The ExternalName cells and the API server by name included.
    expect(must).to.have.length(95 + 5 + 5);
  });

  it('route to win1 removed: its pod paths both ways, its lookups, every Service and NodePort with an endpoint across the cut', () => {
    const must = new RegExp(
      [
        crossing('win1'),
        '^pod-to-pod(-udp)?/windows-to-windows/same-node/win1/dns$',
        '^pod-to-service(-udp)?/windows-to-[a-z]+/win1/',
        '^pod-to-service(-udp)?/[a-z]+-to-windows/',
        '^dns/[a-z-]+/windows/win1/',
        '^dns-tcp/windows/win1/',
        '^hairpin/windows/win1/dns$',
        '^nodeport(-udp)?/external-to-windows-node/',
        // VXLAN: a node speaks from its VTEP address, so node traffic breaks both ways.
        '^host-network-to-pod/[a-z]+-to-[a-z]+/cross-node/(win1/[a-z0-9]+|[a-z0-9]+/win1)/',
        '^host-network-to-service/[a-z]+-to-windows/',
        '^host-network-to-service/windows-to-[a-z]+/win1/',
        // Churn: win1's backend lives throughout; win1 alone after backend-deleted is local.
        '^churn/windows-to-linux/(backend-deleted|backend-recreated|scaled-back)/win1/',
        '^churn/windows-to-windows/(backend-recreated|scaled-back)/win1/',
        '^churn/[a-z]+-to-windows/(backend-deleted|backend-recreated|scaled-back)/(cp1|lin1|lin2|win2)/',
        // One port for TCP and UDP, as any Service; NodePorts through win1 (its VTEP address) and
        // through every node to the Windows Service (an endpoint on win1).
        '^dual-protocol/windows-to-[a-z]+/[a-z]+/win1/',
        '^dual-protocol/[a-z]+-to-windows/',
        '^pod-to-nodeport/[a-z]+-to-windows/',
        '^pod-to-nodeport/[a-z]+-to-linux/cross-node/[a-z0-9]+/win1/',
        '^pod-to-nodeport/[a-z]+-to-linux/same-node/win1/',
        // Sticky to an endpoint across the cut whichever it is: win1 to the Linux Service.
        '^affinity/windows-to-linux/[a-z]+/win1/',
        // Windows pods forward Local traffic (the expected failure) to endpoints across the cut.
        '^internal-local/windows-to-linux/no-endpoint/win1/',
        '^internal-local/windows-to-windows/no-endpoint/win2/',
        // win1's pods reach the API server unSNATed: the reply needs the route to win1's pods.
        '^pod-to-apiserver/windows/win1/',
        '^external-name/windows/win1/',
      ].join('|'),
    );
    expect(expected(hybrid, 'pod-route-removed')).to.deep.equal({
      must: ids(hybrid, must),
      may: ids(
        hybrid,
        /^affinity\/windows-to-windows\/[a-z]+\/win1\/|^affinity\/[a-z]+-to-windows\/[a-z]+\/(cp1|lin1|lin2|win2)\//,
      ),
    });
  });

  it('the same fault on the last Windows node names win2 instead', () => {
    const must = expected(hybrid, 'pod-route-removed', 'win2').must;
    expect(must).to.include('pod-to-pod/linux-to-windows/cross-node/lin2/win2/ip');
    expect(must).to.include('dns/fqdn/windows/win2/dns');
    expect(must).to.not.include('dns/fqdn/windows/win1/dns');
    expect(must.filter((id) => /\/win1\/[a-z0-9]+\/(ip|dns)$/.test(id) && !id.includes('win2'))).to
      .be.empty;
  });

  it('host-gw: the NodePort on the cut-off node itself keeps working', () => {
    const must = expected(lab('1-2-2', 'host-gw'), 'pod-route-removed').must;
    expect(must).to.not.include('nodeport/external-to-windows-node/win1/node-ip');
    expect(must).to.include('nodeport/external-to-windows-node/win2/node-ip');
    expect(must).to.include('nodeport-udp/external-to-windows-node/win2/node-ip');
    // Node traffic from win1 leaves with its lab address: it comes back; towards win1's pods it cannot.
    expect(must).to.include('host-network-to-pod/linux-to-windows/cross-node/lin1/win1/ip');
    expect(must).to.not.include('host-network-to-pod/windows-to-linux/cross-node/win1/lin1/ip');
    // l2bridge: win1's pods reach the lab network un-NATed, so nodes answer them at their pod IPs.
    expect(must).to.include('pod-to-host-network/windows-to-linux/cross-node/win1/lin1/ip');
    expect(must).to.not.include('pod-to-host-network/linux-to-windows/cross-node/lin1/win1/ip');
  });

  it('kube-proxy down on lin1: every probe from lin1 through a ClusterIP', () => {
    expect(expected(hybrid, 'clusterip-rules-removed').must).to.deep.equal(
      ids(
        hybrid,
        /^pod-to-pod(-udp)?\/linux-to-[a-z]+\/(same|cross)-node\/lin1\/.*dns$|^pod-to-service(-udp)?\/linux-to-[a-z]+\/lin1\/|^hairpin\/linux\/lin1\/|^host-network-to-service\/linux-to-[a-z]+\/lin1\/|^dns\/[a-z-]+\/linux\/lin1\/|^dns-tcp\/linux\/lin1\/|^churn\/linux-to-[a-z]+\/[a-z-]+\/lin1\/|^(affinity|dual-protocol)\/linux-to-[a-z]+\/[a-z]+\/lin1\/|^(external-name|pod-to-apiserver)\/linux\/lin1\/|^internal-local\/linux-to-linux\/has-endpoint\/lin1\//,
      ),
    );
  });

  it("a kept endpoint on lin2, then on win2: that node's churn cells once the backend is gone, and on Linux once none is left", () => {
    expect(expected(hybrid, 'stale-endpoint-kept', 'lin2')).to.deep.equal({
      must: ids(hybrid, /^churn\/linux-to-[a-z]+\/(backend-deleted|scaled-to-zero)\/lin2\//),
      may: [],
    });
    expect(expected(hybrid, 'stale-endpoint-kept', 'win2').must).to.deep.equal(
      ids(hybrid, /^churn\/windows-to-[a-z]+\/backend-deleted\/win2\//),
    );
    expect(expected(hybrid, 'stale-endpoint-kept', 'lin2').must).to.have.length(4);
  });

  it('masquerade off: outbound NAT of every Linux node, TCP and ICMP', () => {
    expect(expected(hybrid, 'masquerade-off').must).to.deep.equal([
      'outbound-nat/linux/cp1/ip',
      'outbound-nat/linux/lin1/ip',
      'outbound-nat/linux/lin2/ip',
      'icmp-outbound/linux/cp1/ip',
      'icmp-outbound/linux/lin1/ip',
      'icmp-outbound/linux/lin2/ip',
      'external-name/linux/lin1/dns',
      'external-name/linux/lin2/dns',
      'external-name/linux/cp1/dns',
    ]);
  });

  it('ICMP to the pods of win1, then of lin2, dropped: every ping to them, same node too, and nothing else', () => {
    expect(expected(hybrid, 'icmp-to-pods-dropped')).to.deep.equal({
      must: ids(
        hybrid,
        /^icmp\/[a-z]+-to-windows\/(same-node\/win1|cross-node\/[a-z0-9]+\/win1)\//,
      ),
      may: [],
    });
    expect(expected(hybrid, 'icmp-to-pods-dropped', 'lin2').must).to.have.length(5);
  });

  it('ExceptionList without the cluster CIDR: pod-to-pod (TCP, UDP, ICMP) from Windows pods of every Windows node', () => {
    const must = expected(hybrid, 'exception-list-no-cluster-cidr').must;
    expect(must).to.deep.equal(ids(hybrid, /^(pod-to-pod(-udp)?|icmp)\/windows-to-/));
    expect(must).to.have.length(50);
  });

  it('ExceptionList without the service CIDR: Services from every Windows node', () => {
    expect(expected(hybrid, 'exception-list-no-service-cidr').must).to.deep.equal(
      ids(
        hybrid,
        /^pod-to-service(-udp)?\/windows-to-|^dual-protocol\/windows-to-|^churn\/windows-to-[a-z]+\/(backend-deleted|backend-recreated|scaled-back)\//,
      ),
    );
  });

  it('blackholed Windows endpoints: the Windows Service from every node, its NodePorts, hairpin on Windows nodes', () => {
    expect(expected(hybrid, 'windows-endpoints-blackholed').must).to.deep.equal(
      ids(
        hybrid,
        /^pod-to-service(-udp)?\/[a-z]+-to-windows\/|^hairpin\/windows\/|^host-network-to-service\/[a-z]+-to-windows\/|^nodeport(-udp|-local)?\/external-to-windows-node\/|^churn\/[a-z]+-to-windows\/(backend-deleted|backend-recreated|scaled-back)\/|^(pod-to-nodeport|affinity|dual-protocol)\/[a-z]+-to-windows\/|^internal-local\/windows-to-windows\//,
      ),
    );
  });

  it('one endpoint blackholed (win2): every Service cell and NodePort of its OS, its own hairpin, nothing direct', () => {
    expect(expected(hybrid, 'node-endpoint-blackholed', 'win2')).to.deep.equal({
      must: ids(
        hybrid,
        /^pod-to-service(-udp)?\/[a-z]+-to-windows\/|^hairpin\/windows\/win2\/|^host-network-to-service\/[a-z]+-to-windows\/|^nodeport(-udp)?\/external-to-windows-node\/|^churn\/[a-z]+-to-windows\/(backend-recreated|scaled-back)\/|^(pod-to-nodeport|dual-protocol)\/[a-z]+-to-windows\//,
      ),
      // The affinity cells stick to win2's endpoint by chance.
      may: ids(hybrid, /^affinity\/[a-z]+-to-windows\//),
    });
    expect(expected(hybrid, 'node-endpoint-blackholed', 'lin2').must).to.deep.equal(
      ids(
        hybrid,
        /^pod-to-service(-udp)?\/[a-z]+-to-linux\/|^hairpin\/linux\/lin2\/|^host-network-to-service\/[a-z]+-to-linux\/|^host-network-to-own-nodeport\/linux\/|^nodeport(-udp)?\/external-to-linux-node\/|^churn\/[a-z]+-to-linux\/(backend-recreated|scaled-back)\/|^(pod-to-nodeport|dual-protocol)\/[a-z]+-to-linux\//,
      ),
    );
    // cp1 also hosts the cluster DNS pod: the kube-dns Service's one endpoint is gone too.
    expect(expected(hybrid, 'node-endpoint-blackholed', 'cp1').must).to.deep.equal(
      ids(
        hybrid,
        /^pod-to-service(-udp)?\/[a-z]+-to-linux\/|^hairpin\/linux\/cp1\/|^host-network-to-service\/[a-z]+-to-linux\/|^host-network-to-own-nodeport\/linux\/|^nodeport(-udp)?\/external-to-linux-node\/|^nodeport-local\/external-to-linux-node\/cp1\/|\/dns$|^churn\/[a-z]+-to-linux\/(backend-deleted|backend-recreated|scaled-back)\/|^(pod-to-nodeport|dual-protocol)\/[a-z]+-to-linux\/|^internal-local\/linux-to-linux\/has-endpoint\/cp1\//,
      ),
    );
  });

  it('hairpin masquerade missing on win1: exactly its two hairpin cells', () => {
    expect(expected(hybrid, 'hairpin-masquerade-missing')).to.deep.equal({
      must: ['hairpin/windows/win1/cluster-ip', 'hairpin/windows/win1/dns'],
      may: [],
    });
    expect(expected(hybrid, 'hairpin-masquerade-missing', 'lin2').must).to.deep.equal([
      'hairpin/linux/lin2/cluster-ip',
      'hairpin/linux/lin2/dns',
    ]);
  });

  it("one node's pods cut from the other OS (win2): its connections to Linux pods and its lookups, one way only", () => {
    expect(expected(hybrid, 'pods-cut-from-other-os', 'win2')).to.deep.equal({
      must: ids(
        hybrid,
        /^(pod-to-pod|pod-to-pod-udp|large-response|icmp)\/windows-to-linux\/cross-node\/win2\/|^pod-to-pod(-udp)?\/windows-to-[a-z]+\/(same|cross)-node\/win2\/.*dns$|^pod-to-service(-udp)?\/windows-to-linux\/win2\/|^pod-to-service(-udp)?\/windows-to-windows\/win2\/dns$|^hairpin\/windows\/win2\/dns$|^dns\/[a-z-]+\/windows\/win2\/|^dns-tcp\/windows\/win2\/|^churn\/windows-to-linux\/(backend-deleted|backend-recreated|scaled-back)\/win2\/|^(affinity|dual-protocol)\/windows-to-linux\/[a-z]+\/win2\/|^pod-to-nodeport\/windows-to-linux\/same-node\/win2\/|^internal-local\/windows-to-linux\/no-endpoint\/win2\/|^external-name\/windows\/win2\/|^pod-to-apiserver\/windows\/win2\/dns$/,
      ),
      may: [],
    });
    // Linux pods still open connections to win2's pods: the other direction is not cut.
    expect(expected(hybrid, 'pods-cut-from-other-os', 'win2').must).to.not.include(
      'pod-to-pod/linux-to-windows/cross-node/lin1/win2/ip',
    );
    // A Linux node's cut does not reach the DNS pod (cp1, Linux): only IP paths to Windows fail.
    expect(expected(hybrid, 'pods-cut-from-other-os', 'lin2').must).to.deep.equal(
      ids(
        hybrid,
        /^(pod-to-pod|pod-to-pod-udp|large-response|icmp)\/linux-to-windows\/cross-node\/lin2\/|^pod-to-service(-udp)?\/linux-to-windows\/lin2\/|^churn\/linux-to-windows\/(backend-deleted|backend-recreated|scaled-back)\/lin2\/|^(affinity|dual-protocol)\/linux-to-windows\/[a-z]+\/lin2\/|^pod-to-nodeport\/linux-to-windows\/same-node\/lin2\//,
      ),
    );
  });

  it('UDP to the pods of lin2 dropped: every UDP cell to or from lin2 (Services behind it too), and nothing else', () => {
    expect(expected(hybrid, 'udp-to-pods-dropped', 'lin2')).to.deep.equal({
      must: ids(
        hybrid,
        /^pod-to-pod-udp\/[a-z]+-to-[a-z]+\/(same-node\/lin2|cross-node\/lin2\/[a-z0-9]+|cross-node\/[a-z0-9]+\/lin2)\/|^pod-to-service-udp\/([a-z]+-to-linux\/|linux-to-windows\/lin2\/)|^nodeport-udp\/external-to-linux-node\/|^dual-protocol\/([a-z]+-to-linux\/udp\/|linux-to-windows\/udp\/lin2\/)/,
      ),
      may: [],
    });
    expect(expected(hybrid, 'udp-to-pods-dropped', 'lin2').must).to.have.length(
      18 + 10 + 2 + 3 + 6,
    );
  });

  it('DNS over TCP dropped on win1, then on lin2: exactly the one lookup over TCP of that node', () => {
    expect(expected(hybrid, 'dns-tcp-dropped')).to.deep.equal({
      must: ['dns-tcp/windows/win1/dns'],
      may: [],
    });
    expect(expected(hybrid, 'dns-tcp-dropped', 'lin2').must).to.deep.equal([
      'dns-tcp/linux/lin2/dns',
    ]);
  });

  it('the MTU fault fails the large-response cells into or out of its node, and nothing small', () => {
    expect(expected(hybrid, 'link-mtu-too-small').must).to.deep.equal(
      ids(hybrid, /^large-response\/.*\/cross-node\/(win1\/[a-z0-9]+|[a-z0-9]+\/win1)\//),
    );
  });

  for (const shape of ['1-2-2', '1-1-1', '1-0-2', '1-3-0']) {
    it(`every fault that applies to a ${shape} lab has a cell that must fail`, () => {
      const plan = lab(shape);
      for (const fault of FAULT_CATALOGUE) {
        if (notApplicable(fault, plan, { cluster: true }) !== undefined) continue;
        expect(expected(plan, fault.id).must, fault.id).to.not.be.empty;
      }
    });
  }
});
