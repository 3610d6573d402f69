import { expect } from 'chai';
import { loadSpec } from '../../../lab/spec/load-spec.ts';
import { planLab } from '../../../lab/plan/plan-lab.ts';
import { targetNodes } from '../../../lab/faults/cell-selector.ts';
import { expandCells } from '../../matrix/expand-cells.ts';
import { MATRIX } from '../../matrix/rows.ts';
import { disruptionSequence, disruptionSubjects } from '../../../lab/contracts/disruptions.ts';
import { disruptionCells, touches } from './disruption-cells.ts';
import { expandOverTimeCells, type HeldCell } from './over-time-cells.ts';
import { OVER_TIME_ROWS } from './over-time-rows.ts';

const NODES = planLab(loadSpec('hybrid', process.cwd()).spec).nodes;
const CELLS = expandOverTimeCells(OVER_TIME_ROWS, NODES);
const count = (prefix: string) => CELLS.filter((c) => c.meta.cell.startsWith(prefix)).length;

describe('over-time cells', () => {
  it('give every node of the default lab its held connections, UDP sockets and twin sweeps', () => {
    // Every node to each OS; every node to each OS's Service; every node out.
    expect(count('long-lived-pod-to-pod/')).to.equal(10);
    expect(count('long-lived-pod-to-service/')).to.equal(10);
    expect(count('long-lived-outbound-nat/')).to.equal(5);
    // By ClusterIP from every node to each OS; by NodePort via every node of the OS, from each OS.
    expect(count('udp-conntrack/') - CELLS.filter((c) => c.meta.via === 'node-ip').length).to.equal(
      10,
    );
    expect(CELLS.filter((c) => c.meta.via === 'node-ip').length).to.equal(10);
    // After the delete (by ClusterIP) and after the recreate (by ClusterIP and by name).
    expect(count('twin-services/')).to.equal(30);
    expect(CELLS.filter((c) => c.skip !== undefined)).to.deep.equal([]);
    expect(new Set(CELLS.map((c) => c.meta.cell)).size).to.equal(CELLS.length);
  });

  it('connect every node as a source and as a target of a long-lived pod-to-pod connection', () => {
    const pairs = CELLS.filter((c) => c.meta.cell.startsWith('long-lived-pod-to-pod/'));
    const sources = new Set(pairs.map((c) => c.meta.source.node));
    const targets = new Set(pairs.map((c) => c.meta.target.node));
    expect([...sources].sort()).to.deep.equal(['cp1', 'lin1', 'lin2', 'win1', 'win2']);
    expect([...targets].sort()).to.deep.equal(['cp1', 'lin1', 'lin2', 'win1', 'win2']);
    for (const c of pairs) expect(c.meta.source.node, c.meta.cell).to.not.equal(c.meta.target.node);
  });

  it('send a NodePort socket from a pod on another node than the one whose port it is', () => {
    for (const c of CELLS.filter((c) => c.meta.via === 'node-ip')) {
      expect(c.meta.source.node, c.meta.cell).to.not.equal(c.meta.target.node);
      expect(c.meta.cell.split('/')[2], c.meta.cell).to.equal(c.meta.target.node);
    }
  });

  it('skip with what the lab lacks where it has one node of an OS', () => {
    const small = NODES.filter((n) => n.name !== 'win2');
    const cells = expandOverTimeCells(OVER_TIME_ROWS, small);
    const skipped = cells.filter((c) => c.skip !== undefined).map((c) => c.meta.cell);
    expect(skipped).to.deep.equal([
      'long-lived-pod-to-pod/windows-to-windows/cross-node/win1/none/ip',
    ]);
    expect(cells.find((c) => c.skip !== undefined)?.skip).to.equal(
      'needs two windows nodes; the lab has 1 windows node',
    );
  });
});

describe('disruption cells', () => {
  const matrix = expandCells(MATRIX, NODES);
  const held = CELLS.filter((c): c is HeldCell => c.family === 'long-lived');
  const cells = disruptionCells(disruptionSequence(['lin1']), matrix, held);

  it('probe again every matrix cell that starts or ends on the node, churn aside', () => {
    const again = cells.filter(
      (c) => c.kind === 'reprobe' && c.disruption.action === 'node-reboot',
    );
    const expected = matrix.filter(
      (c) =>
        c.probe !== undefined &&
        !c.meta.cell.startsWith('churn/') &&
        (c.meta.source.node === 'lin1' || targetNodes(c.meta).includes('lin1')),
    );
    expect(again.map((c) => c.meta.cell)).to.deep.equal(
      expected.map((c) => `disruption/node-reboot/lin1/${c.meta.cell}`),
    );
    const ids = again.map((c) => c.meta.cell.replace('disruption/node-reboot/lin1/', ''));
    expect(ids).to.include.members([
      'pod-to-pod/windows-to-linux/cross-node/win1/lin1/ip',
      'pod-to-pod/linux-to-linux/same-node/lin1/dns',
      'pod-to-service/windows-to-linux/win1/cluster-ip',
      'nodeport/external-to-linux-node/lin1/node-ip',
      'dns/fqdn/linux/lin1/dns',
    ]);
    expect(ids).to.not.include.members([
      'pod-to-pod/linux-to-linux/cross-node/lin2/cp1/ip',
      'dns/fqdn/linux/lin2/dns',
      'churn/linux-to-linux/backend-deleted/lin1/cluster-ip',
    ]);
    expect(again.length).to.be.greaterThan(100);
    expect(again.every((c) => c.meta.title.startsWith('disruption node-reboot lin1 '))).to.equal(
      true,
    );
    expect(again[0]?.meta.row).to.equal(`disruption/node-reboot/${expected[0]?.meta.row ?? ''}`);
  });

  it("probe every node's lookups after the DNS pods moved, and nothing else", () => {
    const moved = cells.filter((c) => c.disruption.action === 'dns-pods-moved');
    expect(
      moved.every((c) => /^disruption\/dns-pods-moved\/cluster\/dns(-tcp)?\//.test(c.meta.cell)),
    ).to.equal(true);
    expect(moved).to.have.length(20);
    expect(new Set(moved.map((c) => c.meta.source.node)).size).to.equal(5);
  });

  it('hold the long-lived connections with an end on the node through each action, but a reboot', () => {
    const through = cells.filter((c) => c.kind === 'held');
    const perAction = (action: string) => through.filter((c) => c.disruption.action === action);
    const touching = held.filter((h) => touches(h.meta, 'lin1'));
    expect(perAction('kube-proxy-restart')).to.have.length(touching.length);
    expect(perAction('runtime-restart').every((c) => c.skip === undefined)).to.equal(true);
    const reboot = perAction('node-reboot');
    expect(reboot).to.have.length(touching.length);
    expect(reboot.every((c) => c.skip?.startsWith('not expected to survive'))).to.equal(true);
  });

  it('act on the first and last node of each OS by default', () => {
    const subjects = disruptionSubjects(NODES, 'ends');
    const all = disruptionCells(disruptionSequence(subjects), matrix, held);
    expect([...new Set(all.map((c) => c.disruption.subject))]).to.deep.equal([
      'win1',
      'win2',
      'lin1',
      'cp1',
      'cluster',
    ]);
  });
});
