import { expect } from 'chai';
import { fixturePlan, type FixtureNode } from '../testing/fixture-plan.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import { describeSelector } from './cell-selector.ts';
import { findFault } from './fault-catalogue.ts';
import { notApplicable, resolveTargets } from './fault-targets.ts';
import { internalLocalImpact } from './feature-impacts.ts';

const FIVE: FixtureNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane' },
  { name: 'lin1', os: 'linux', role: 'worker' },
  { name: 'lin2', os: 'linux', role: 'worker' },
  { name: 'win1', os: 'windows', role: 'worker' },
  { name: 'win2', os: 'windows', role: 'worker' },
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

describe('fault catalogue: the Service-feature faults', () => {
  const plan = fixturePlan({ nodes: FIVE });

  it("pods-own-nodeport-dropped: only the node's own pods through its own address", () => {
    const d = derive(plan, 'pods-own-nodeport-dropped', 'lin2');
    expect(d.must).to.deep.equal(['pod-to-nodeport from lin2 to only lin2']);
    const [action] = d.actions;
    expect(action).to.include({ kind: 'nft', node: 'lin2', forgetFlowsFrom: '10.244.2.0/24' });
    expect(action?.kind === 'nft' && action.ruleset).to.include(
      'ip saddr 10.244.2.0/24 ip daddr 192.168.200.12 meta l4proto { tcp, udp } th dport 30000-32767 drop',
    );
  });

  it("affinity-ignored: the node's kube-proxy balances ClientIP Services anew on every connection", () => {
    const d = derive(plan, 'affinity-ignored');
    expect(d.targets).to.deep.equal(['win1']);
    expect(d.actions).to.deep.equal([
      { kind: 'proxy-quirk', node: 'win1', quirk: 'ignores-affinity' },
    ]);
    expect(d.must).to.deep.equal(['affinity from win1']);
    expect(d.outcomes).to.deep.equal(['wrong-answer']);
  });

  it('health-check-wrong: red wherever counting every endpoint is not the true count', () => {
    // Local endpoints: linux cp1, lin1 (2); windows win1 (1).
    expect(derive(plan, 'health-check-wrong', 'lin2').must).to.deep.equal([
      'health-check-nodeport to linux to only lin2',
      'health-check-nodeport to windows to only lin2',
    ]);
    // win1 has the Windows Service's one endpoint: 1 either way.
    expect(derive(plan, 'health-check-wrong', 'win1').must).to.deep.equal([
      'health-check-nodeport to linux to only win1',
    ]);
    expect(derive(plan, 'health-check-wrong', 'cp1').must).to.deep.equal([
      'health-check-nodeport to linux to only cp1',
      'health-check-nodeport to windows to only cp1',
    ]);
  });

  it("cname-unanswered and apiserver-unreachable-from-pods: the node's pods alone", () => {
    expect(derive(plan, 'cname-unanswered', 'lin1')).to.deep.include({
      must: ['external-name from lin1'],
      actions: [{ kind: 'bare-cname', node: 'lin1' }],
      outcomes: ['nxdomain'],
    });
    const api = derive(plan, 'apiserver-unreachable-from-pods', 'win2');
    expect(api.must).to.deep.equal(['pod-to-apiserver from win2']);
    expect(api.actions[0]?.kind === 'nft' && api.actions[0].ruleset).to.include(
      'ip saddr 10.244.4.0/24 ip daddr 192.168.200.10 tcp dport 6443 drop',
    );
  });

  it("port-protocol-collision: the second protocol of a port number, kube-dns's TCP 53 too", () => {
    expect(derive(plan, 'port-protocol-collision', 'win2').must).to.deep.equal([
      'dual-protocol udp from win2',
      'dns-tcp from win2',
    ]);
  });

  it('internal-traffic-policy-ignored acts on Linux nodes (Windows ignores the policy already)', () => {
    const d = derive(plan, 'internal-traffic-policy-ignored');
    expect(d.targets).to.deep.equal(['lin1']);
    expect(d.must).to.deep.equal(['internal-local has-endpoint|no-endpoint from lin1']);
    expect(() => derive(plan, 'internal-traffic-policy-ignored', 'win1')).to.throw(
      /acts on linux nodes/,
    );
  });

  it('faults of the emulated cluster API are refused on real clusters', () => {
    for (const id of ['affinity-ignored', 'health-check-wrong', 'cname-unanswered']) {
      expect(notApplicable(findFault(id), plan, { cluster: false }), id).to.match(
        /emulated cluster API/,
      );
    }
  });

  it('internal-local impact: Windows cells fail where every endpoint is lost, may where some are', () => {
    const lost = (targets: string[]) => (_from: string, to: string) => targets.includes(to);
    const both = internalLocalImpact(plan, lost(['cp1', 'lin1']));
    expect(both.mustFail.map(describeSelector)).to.deep.equal([
      'internal-local has-endpoint|only-endpoint from cp1,lin1',
      'internal-local to linux from win1',
      'internal-local to linux from win2',
    ]);
    const one = internalLocalImpact(plan, lost(['lin1']));
    expect(one.mustFail.map(describeSelector)).to.deep.equal([
      'internal-local has-endpoint|only-endpoint from lin1',
    ]);
    expect(one.mayFail.map(describeSelector)).to.deep.equal([
      'internal-local to linux from win1',
      'internal-local to linux from win2',
    ]);
  });
});
