import { expect } from 'chai';
import { cellId, type CellKey, type PerfMeasure, type PerfNetwork } from '../contracts/cells.ts';
import { fixturePlan } from '../testing/fixture-plan.ts';
import { describeSelector, matchesCell, type CellRef } from './cell-selector.ts';
import type { FaultImpact } from './fault-definition.ts';
import { LINK_THROTTLE, findFault } from './fault-catalogue.ts';
import { resolveTargets } from './fault-targets.ts';
import { egressLossy } from './nft-rulesets.ts';

const plan = fixturePlan({
  nodes: [
    { name: 'cp1', os: 'linux', role: 'control-plane' },
    { name: 'lin1', os: 'linux', role: 'worker' },
    { name: 'lin2', os: 'linux', role: 'worker' },
    { name: 'win1', os: 'windows', role: 'worker' },
  ],
});
const osOf = (n: string) => (n.startsWith('win') ? 'windows' : 'linux');

/** A perf cell as the self-test sees it: its id, source node and target node(s). */
function perf(measure: PerfMeasure, network: PerfNetwork, src: string, dst: string) {
  const service = network === 'service';
  const key: CellKey = {
    kind: 'perf',
    measure,
    network,
    from: osOf(src),
    to: osOf(service ? 'lin' : dst),
    via: service ? 'cluster-ip' : 'ip',
    node: src,
    ...(service ? {} : { placement: src === dst ? 'same-node' : 'cross-node' }),
    ...(service || src === dst ? {} : { peer: dst }),
  };
  return { cell: cellId(key), source: { node: src }, target: { node: dst } };
}

/** The catalogue's word on a cell, as the self-test reads it: must-fail wins over may-fail. */
function expectationOf(impact: FaultImpact, cell: CellRef): 'must-fail' | 'may-fail' | 'pass' {
  if (impact.mustFail.some((s) => matchesCell(s, cell))) return 'must-fail';
  return impact.mayFail.some((s) => matchesCell(s, cell)) ? 'may-fail' : 'pass';
}

function impactOn(id: string, node: string) {
  const fault = findFault(id);
  return fault.impact(plan, resolveTargets(fault, plan, node));
}

describe('faults: degraded lab links (perf mode witnesses them)', () => {
  it('throttles the node’s lab link with the tbf the issue gives, undone by deleting the root qdisc', () => {
    const fault = findFault('link-throttled');
    expect(fault.witness).to.equal('perf');
    const [action] = fault.actions(plan, resolveTargets(fault, plan, 'lin1'));
    expect(action).to.deep.equal({
      kind: 'qdisc',
      node: 'lin1',
      device: 'eth0',
      qdisc: LINK_THROTTLE,
    });
    expect(LINK_THROTTLE.join(' ')).to.equal('tbf rate 1mbit burst 32kbit latency 400ms');
  });

  it('drops one in five packets leaving the node’s lab link with nftables numgen random', () => {
    const fault = findFault('link-lossy');
    const [action] = fault.actions(plan, resolveTargets(fault, plan, 'lin1'));
    expect(action).to.include({
      kind: 'nft',
      node: 'lin1',
      family: 'inet',
      table: 'hlfault_link_lossy',
    });
    expect((action as { ruleset: string }).ruleset).to.include(
      'oifname "eth0" numgen random mod 5 0 counter drop',
    );
    expect(egressLossy('eth0', 10, 't')).to.include(
      'oifname "eth0" numgen random mod 10 0 counter drop',
    );
  });

  for (const [id, networks] of [
    ['link-throttled', ['pod', 'host']],
    ['link-lossy', ['pod']],
  ] as const) {
    it(`${id}: the node’s outgoing streams must fail, every other path through it may, the rest must pass`, () => {
      const impact = impactOn(id, 'lin1');
      const of = (c: ReturnType<typeof perf>) => expectationOf(impact, c);
      for (const network of networks) {
        expect(of(perf('tcp-stream', network, 'lin1', 'lin2'))).to.equal('must-fail');
        expect(of(perf('udp-stream', network, 'lin1', 'win1'))).to.equal('must-fail');
        expect(of(perf('tcp-stream-reverse', network, 'cp1', 'lin1'))).to.equal('must-fail');
        // What the node only receives (ACKs aside) need not show.
        expect(of(perf('tcp-stream', network, 'cp1', 'lin1'))).to.equal('may-fail');
        expect(of(perf('tcp-rr', network, 'lin1', 'lin2'))).to.equal('may-fail');
      }
      // A Service's backend may be on the node; same-node paths never cross the link.
      expect(of(perf('tcp-stream', 'service', 'lin1', 'cp1,lin1,lin2'))).to.equal('may-fail');
      expect(of(perf('tcp-stream', 'pod', 'lin1', 'lin1'))).to.equal('pass');
      // Paths not through the node must stay green: a false alarm otherwise.
      expect(of(perf('tcp-stream', 'pod', 'lin2', 'cp1'))).to.equal('pass');
      expect(of(perf('udp-stream', 'host', 'cp1', 'win1'))).to.equal('pass');
      expect(impact.outcomes).to.deep.equal(['slow', 'flaky', 'timeout', 'error']);
      expect(impact.mustFail.map(describeSelector)[0]).to.include(
        'measuring tcp-stream|udp-stream',
      );
    });
  }

  it('link-lossy leaves the host network’s streams to may-fail (the node’s own large packets lost few segments here)', () => {
    const impact = impactOn('link-lossy', 'lin1');
    expect(expectationOf(impact, perf('tcp-stream', 'host', 'lin1', 'lin2'))).to.equal('may-fail');
  });
});
