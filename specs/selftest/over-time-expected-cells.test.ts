/** The over-time faults' selectors against the cells a suite run with the rows they need expands. */
import { expect } from 'chai';
import { findFault } from '../../lab/faults/fault-catalogue.ts';
import { resolveTargets } from '../../lab/faults/fault-targets.ts';
import { fixturePlan } from '../../lab/testing/fixture-plan.ts';
import { suiteCells } from './suite-cells.ts';
import { expectationOf } from './detection.ts';

const plan = fixturePlan({
  nodes: [
    { name: 'cp1', os: 'linux', role: 'control-plane' },
    { name: 'lin1', os: 'linux', role: 'worker' },
    { name: 'lin2', os: 'linux', role: 'worker' },
    { name: 'win1', os: 'windows', role: 'worker' },
    { name: 'win2', os: 'windows', role: 'worker' },
  ],
  backend: 'vxlan',
});

function expected(id: string, node: string) {
  const fault = findFault(id);
  const targets = resolveTargets(fault, plan, node);
  const impact = fault.impact(plan, targets);
  const cells = suiteCells(plan, fault.witness, [node]).map((c) => c.meta);
  const of = (kind: string) =>
    cells.filter((c) => expectationOf(impact, c) === kind).map((c) => c.cell);
  return { must: of('must-fail'), may: of('may-fail'), all: cells.map((c) => c.cell) };
}

/** The ids of `cells` matching `pattern`, written over the id grammar, not the catalogue's selectors. */
const matching = (cells: readonly string[], pattern: RegExp) =>
  cells.filter((c) => pattern.test(c));

describe('over-time faults → expected cells', () => {
  it("kube-proxy not rebuilt on lin1: every action's cells through lin1's rules, then its lookups", () => {
    const { must, may, all } = expected('kube-proxy-not-rebuilt', 'lin1');
    const actions = '(kube-proxy-restart|cni-restart|runtime-restart|node-reboot)';
    const through =
      '((pod-to-service|pod-to-service-udp|host-network-to-service)/[a-z]+-to-[a-z]+/lin1/|hairpin/linux/lin1/|[a-z-]+/[a-z]+-to-[a-z]+/(cross-node/lin1/[a-z0-9]+|same-node/lin1|lin1)/dns$|dns[a-z/-]*/linux/lin1/dns$|(nodeport|nodeport-udp|nodeport-local|host-network-to-own-nodeport|health-check-nodeport)/[a-z-]+/lin1/|pod-to-nodeport/[a-z]+-to-[a-z]+/(same-node/lin1|cross-node/[a-z0-9]+/lin1)/|(affinity|dual-protocol)/linux-to-[a-z]+/[a-z]+/lin1/|internal-local/linux-to-[a-z]+/(has-endpoint|only-endpoint)/lin1/|external-name/linux/lin1/dns$|pod-to-apiserver/linux/lin1/)';
    const pattern = new RegExp(
      `^disruption/${actions}/lin1/${through}|^disruption/dns-pods-moved/cluster/dns[a-z/-]*/linux/lin1/dns$|^disruption/(cni|runtime)-restart/lin1/long-lived-pod-to-service/linux-to-[a-z]+/lin1/`,
    );
    expect(must).to.deep.equal(matching(all, pattern));
    expect(may).to.deep.equal([]);
    // Nothing of the matrix itself, nor of another node's: the fault shows only after a restart.
    expect(must.every((c) => c.startsWith('disruption/'))).to.equal(true);
    // A node without a local endpoint answers nothing anyway: that cell passes.
    expect(must.some((c) => c.includes('nodeport-local-none'))).to.equal(false);
    expect(must.filter((c) => c.startsWith('disruption/kube-proxy-restart/'))).to.have.length(
      must.filter((c) => c.startsWith('disruption/node-reboot/')).length,
    );
  });

  it('kube-proxy not rebuilt on win1: its own NodePort from itself stays an expected timeout', () => {
    const { must } = expected('kube-proxy-not-rebuilt', 'win1');
    expect(must.some((c) => c.includes('host-network-to-own-nodeport'))).to.equal(false);
    expect(must).to.include(
      'disruption/node-reboot/win1/nodeport/external-to-windows-node/win1/node-ip',
    );
  });

  it('UDP conntrack kept on win2: its sockets by ClusterIP, and the sockets via its NodePort', () => {
    const { must, may, all } = expected('udp-conntrack-kept', 'win2');
    expect(must).to.deep.equal(
      matching(
        all,
        /^udp-conntrack\/(windows-to-[a-z]+\/win2\/cluster-ip|[a-z]+-to-windows\/win2\/node-ip)$/,
      ),
    );
    expect(must).to.have.length(4);
    expect(may).to.deep.equal([]);
  });

  it('the idle cut on lin2: its long-lived connections, and those to its pod; maybe those via its Service', () => {
    const { must, may, all } = expected('conntrack-idle-cut', 'lin2');
    expect(must).to.deep.equal(
      matching(
        all,
        /^long-lived-[a-z-]+\/(linux|linux-to-[a-z]+)\/(cross-node\/)?lin2\/|^long-lived-pod-to-pod\/[a-z]+-to-linux\/cross-node\/[a-z0-9]+\/lin2\//,
      ),
    );
    expect(may).to.deep.equal(
      matching(all, /^long-lived-pod-to-service\/[a-z]+-to-linux\/(cp1|lin1|win1|win2)\//),
    );
  });

  it('DNS pinned on cp1: its lookups after the DNS pods moved, nothing before', () => {
    const { must, may } = expected('dns-pinned-after-move', 'cp1');
    expect(must).to.deep.equal([
      'disruption/dns-pods-moved/cluster/dns/short-name/linux/cp1/dns',
      'disruption/dns-pods-moved/cluster/dns/fqdn/linux/cp1/dns',
      'disruption/dns-pods-moved/cluster/dns/search-list/linux/cp1/dns',
      'disruption/dns-pods-moved/cluster/dns-tcp/linux/cp1/dns',
    ]);
    expect(may).to.deep.equal([]);
  });
});
