import { expect } from 'chai';
import { CHURN_STEPS } from '../../lab/contracts/cells.ts';
import { churnChange, churnPlan, liveBackendNodes, liveBackends } from './churn.ts';
import type { SuiteNode } from './lab-driver.ts';

const node = (name: string, os: 'linux' | 'windows'): SuiteNode => ({
  name,
  os,
  role: name === 'cp1' ? 'control-plane' : 'worker',
  ip: '192.168.200.10',
});
const NODES = [node('cp1', 'linux'), node('lin1', 'linux'), node('win1', 'windows')];

describe('endpoint churn plan', () => {
  it("backs each OS's churn Service with a c pod per node and replaces the last node's", () => {
    expect(churnPlan(NODES, 'linux')).to.deep.equal({
      os: 'linux',
      backends: [
        { node: 'cp1', name: 'netexec-cp1-c' },
        { node: 'lin1', name: 'netexec-lin1-c' },
      ],
      deleted: 'netexec-lin1-c',
      replacement: { node: 'lin1', name: 'netexec-lin1-d' },
    });
    expect(churnPlan([node('cp1', 'linux')], 'windows')).to.equal(undefined);
  });

  it('names the live backends after each step, and none after scaling to zero', () => {
    const plan = churnPlan(NODES, 'linux')!;
    expect(CHURN_STEPS.map((step) => liveBackends(plan, step))).to.deep.equal([
      ['netexec-cp1-c'],
      ['netexec-cp1-c', 'netexec-lin1-d'],
      [],
      ['netexec-cp1-c', 'netexec-lin1-c'],
    ]);
    // A cell's targets are nodes, as the Service rows name them: the replacement is on lin1 too.
    expect(CHURN_STEPS.map((step) => liveBackendNodes(plan, step))).to.deep.equal([
      ['cp1'],
      ['cp1', 'lin1'],
      [],
      ['cp1', 'lin1'],
    ]);
  });

  it('changes the cluster step by step from one live set to the next', () => {
    const plan = churnPlan(NODES, 'linux')!;
    let live = plan.backends.map((b) => b.name);
    for (const step of CHURN_STEPS) {
      const { remove, create } = churnChange(plan, step);
      expect(
        remove.every((pod) => live.includes(pod)),
        step,
      ).to.equal(true);
      live = [...live.filter((pod) => !remove.includes(pod)), ...create.map((c) => c.name)];
      expect([...live].sort(), step).to.deep.equal([...liveBackends(plan, step)].sort());
    }
  });

  it('with one node of the OS, deleting its backend leaves none', () => {
    const plan = churnPlan(NODES, 'windows')!;
    expect(liveBackends(plan, 'backend-deleted')).to.deep.equal([]);
    expect(liveBackends(plan, 'backend-recreated')).to.deep.equal(['netexec-win1-d']);
  });
});
