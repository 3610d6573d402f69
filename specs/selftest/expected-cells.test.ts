/** The catalogue's selectors against the cells the suite really expands for a lab. */
import { expect } from 'chai';
import { FAULT_CATALOGUE, findFault } from '../../lab/faults/fault-catalogue.ts';
import { notApplicable, resolveTargets } from '../../lab/faults/fault-targets.ts';
import { fixturePlan, type FixtureNode } from '../../lab/testing/fixture-plan.ts';
import type { CniBackend, LabPlan } from '../../lab/plan/lab-plan.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import { expectationOf } from './detection.ts';

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

/** Cells of the suite for this lab, split by what the fault's catalogue entry says about them. */
function expected(plan: LabPlan, id: string, node?: string) {
  const fault = findFault(id);
  const impact = fault.impact(plan, resolveTargets(fault, plan, node));
  const cells = expandCells(MATRIX, plan.nodes).filter((c) => c.probe !== undefined);
  const of = (kind: string) =>
    cells.filter((c) => expectationOf(impact, c.meta) === kind).map((c) => c.meta.cell);
  return { must: of('must-fail'), may: of('may-fail') };
}

const DNS_CELLS = [
  'pod-to-pod/windows-to-windows/same-node/dns',
  'pod-to-pod/windows-to-windows/cross-node/dns',
  'pod-to-pod/windows-to-linux/cross-node/dns',
  'pod-to-pod/linux-to-windows/cross-node/dns',
  'pod-to-pod/linux-to-linux/same-node/dns',
  'pod-to-pod/linux-to-linux/cross-node/dns',
  'pod-to-service/linux-to-windows/dns',
  'pod-to-service/windows-to-linux/dns',
  'pod-to-service/linux-to-linux/dns',
  'pod-to-service/windows-to-windows/dns',
  'dns/short-name/linux/dns',
  'dns/fqdn/linux/dns',
  'dns/search-list/linux/dns',
  'dns/short-name/windows/dns',
  'dns/fqdn/windows/dns',
  'dns/search-list/windows/dns',
];

describe("catalogue → expected cells on the suite's real cell ids", () => {
  const hybrid = lab('1-2-2');

  it('NodePort rules removed on win1: exactly its NodePort cell', () => {
    expect(expected(hybrid, 'nodeport-rules-removed')).to.deep.equal({
      must: ['nodeport/external-to-windows-node/win1/node-ip'],
      may: [],
    });
  });

  it('DNS stopped: every cell that resolves a name', () => {
    expect(expected(hybrid, 'dns-stopped')).to.deep.equal({ must: DNS_CELLS, may: [] });
  });

  it('route to win1 removed: its pod paths and its lookups; Services spread over it may fail', () => {
    expect(expected(hybrid, 'pod-route-removed')).to.deep.equal({
      must: [
        'pod-to-pod/windows-to-windows/same-node/dns',
        'pod-to-pod/windows-to-windows/cross-node/ip',
        'pod-to-pod/windows-to-windows/cross-node/dns',
        'pod-to-pod/windows-to-linux/cross-node/ip',
        'pod-to-pod/windows-to-linux/cross-node/dns',
        'pod-to-pod/linux-to-windows/cross-node/ip',
        'pod-to-pod/linux-to-windows/cross-node/dns',
        'large-response/windows-to-windows/cross-node/ip',
        'large-response/windows-to-linux/cross-node/ip',
        'large-response/linux-to-windows/cross-node/ip',
        'pod-to-service/windows-to-linux/cluster-ip',
        'pod-to-service/windows-to-linux/dns',
        'pod-to-service/windows-to-windows/dns',
        'dns/short-name/windows/dns',
        'dns/fqdn/windows/dns',
        'dns/search-list/windows/dns',
      ],
      may: [
        'pod-to-service/linux-to-windows/cluster-ip',
        'pod-to-service/linux-to-windows/dns',
        'pod-to-service/windows-to-windows/cluster-ip',
        'nodeport/external-to-windows-node/win1/node-ip',
        'nodeport/external-to-windows-node/win2/node-ip',
      ],
    });
  });

  it('host-gw: the NodePort on the cut-off node itself keeps working', () => {
    expect(expected(lab('1-2-2', 'host-gw'), 'pod-route-removed').may).to.not.include(
      'nodeport/external-to-windows-node/win1/node-ip',
    );
  });

  it('kube-proxy down on lin1: the Linux probes through ClusterIPs', () => {
    expect(expected(hybrid, 'clusterip-rules-removed').must).to.deep.equal([
      'pod-to-pod/linux-to-windows/cross-node/dns',
      'pod-to-pod/linux-to-linux/same-node/dns',
      'pod-to-pod/linux-to-linux/cross-node/dns',
      'pod-to-service/linux-to-windows/cluster-ip',
      'pod-to-service/linux-to-windows/dns',
      'pod-to-service/linux-to-linux/cluster-ip',
      'pod-to-service/linux-to-linux/dns',
      'dns/short-name/linux/dns',
      'dns/fqdn/linux/dns',
      'dns/search-list/linux/dns',
    ]);
  });

  it('masquerade off: outbound NAT of every Linux node', () => {
    expect(expected(hybrid, 'masquerade-off').must).to.deep.equal([
      'outbound-nat/linux/cp1/ip',
      'outbound-nat/linux/lin1/ip',
      'outbound-nat/linux/lin2/ip',
    ]);
  });

  it('ExceptionList without the cluster CIDR: pod-to-pod from Windows pods', () => {
    expect(expected(hybrid, 'exception-list-no-cluster-cidr').must).to.deep.equal([
      'pod-to-pod/windows-to-windows/same-node/ip',
      'pod-to-pod/windows-to-windows/same-node/dns',
      'pod-to-pod/windows-to-windows/cross-node/ip',
      'pod-to-pod/windows-to-windows/cross-node/dns',
      'pod-to-pod/windows-to-linux/cross-node/ip',
      'pod-to-pod/windows-to-linux/cross-node/dns',
    ]);
  });

  it('ExceptionList without the service CIDR: Services from Windows pods', () => {
    expect(expected(hybrid, 'exception-list-no-service-cidr').must).to.deep.equal([
      'pod-to-service/windows-to-linux/cluster-ip',
      'pod-to-service/windows-to-linux/dns',
      'pod-to-service/windows-to-windows/cluster-ip',
      'pod-to-service/windows-to-windows/dns',
    ]);
  });

  it('blackholed Windows endpoints: the Windows Service from both OSes and its NodePorts', () => {
    expect(expected(hybrid, 'windows-endpoints-blackholed').must).to.deep.equal([
      'pod-to-service/linux-to-windows/cluster-ip',
      'pod-to-service/linux-to-windows/dns',
      'pod-to-service/windows-to-windows/cluster-ip',
      'pod-to-service/windows-to-windows/dns',
      'nodeport/external-to-windows-node/win1/node-ip',
      'nodeport/external-to-windows-node/win2/node-ip',
    ]);
  });

  it('the MTU fault fails the large-response cells into or out of its node, and nothing small', () => {
    expect(expected(hybrid, 'link-mtu-too-small').must).to.deep.equal([
      'large-response/windows-to-windows/cross-node/ip',
      'large-response/windows-to-linux/cross-node/ip',
      'large-response/linux-to-windows/cross-node/ip',
    ]);
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
