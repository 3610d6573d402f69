import { expect } from 'chai';
import { cellId, parseCellId, type CellKey } from './cells.ts';
import {
  CLUSTER_SUBJECT,
  disruptionCellId,
  disruptionRowId,
  disruptionSequence,
  disruptionSubjects,
  parseDisruptionCellId,
} from './disruptions.ts';

const NODES = [
  { name: 'cp1', os: 'linux' as const, role: 'control-plane' },
  { name: 'lin1', os: 'linux' as const, role: 'worker' },
  { name: 'lin2', os: 'linux' as const, role: 'worker' },
  { name: 'win1', os: 'windows' as const, role: 'worker' },
  { name: 'win2', os: 'windows' as const, role: 'worker' },
];

const OVER_TIME_KEYS: CellKey[] = [
  {
    kind: 'long-lived-pod-to-pod',
    from: 'linux',
    to: 'windows',
    placement: 'cross-node',
    node: 'lin1',
    peer: 'win1',
    via: 'ip',
  },
  {
    kind: 'long-lived-pod-to-service',
    from: 'windows',
    to: 'linux',
    node: 'win2',
    via: 'cluster-ip',
  },
  { kind: 'long-lived-outbound-nat', from: 'linux', node: 'cp1', via: 'ip' },
  { kind: 'udp-conntrack', from: 'linux', to: 'windows', node: 'lin2', via: 'cluster-ip' },
  { kind: 'udp-conntrack', from: 'windows', to: 'linux', node: 'lin1', via: 'node-ip' },
  {
    kind: 'twin-services',
    from: 'windows',
    to: 'windows',
    twinStep: 'twin-recreated',
    node: 'win1',
    via: 'dns',
  },
];

describe('contracts: the disruption vocabulary', () => {
  it("builds the over-time rows' ids and parses them back to the same key", () => {
    expect(OVER_TIME_KEYS.map(cellId)).to.deep.equal([
      'long-lived-pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip',
      'long-lived-pod-to-service/windows-to-linux/win2/cluster-ip',
      'long-lived-outbound-nat/linux/cp1/ip',
      'udp-conntrack/linux-to-windows/lin2/cluster-ip',
      'udp-conntrack/windows-to-linux/lin1/node-ip',
      'twin-services/windows-to-windows/twin-recreated/win1/dns',
    ]);
    for (const key of OVER_TIME_KEYS) expect(parseCellId(cellId(key))).to.deep.equal(key);
    expect(parseCellId('twin-services/linux-to-linux/twin-moved/lin1/dns')).to.equal(undefined);
  });

  it('wraps a cell id in its disruption and parses it back', () => {
    const original = 'pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip';
    const id = disruptionCellId('node-reboot', 'lin1', original);
    expect(id).to.equal(`disruption/node-reboot/lin1/${original}`);
    expect(parseDisruptionCellId(id)).to.deep.equal({
      action: 'node-reboot',
      subject: 'lin1',
      original,
    });
    expect(disruptionRowId('cni-restart', 'dns/fqdn/linux')).to.equal(
      'disruption/cni-restart/dns/fqdn/linux',
    );
    for (const other of [
      original,
      'disruption/node-melted/lin1/dns/fqdn/linux/lin1/dns',
      'disruption/node-reboot',
    ])
      expect(parseDisruptionCellId(other), other).to.equal(undefined);
  });

  it('acts on the first and last node of each OS, workers first, Windows first', () => {
    expect(disruptionSubjects(NODES, 'ends')).to.deep.equal(['win1', 'win2', 'lin1', 'cp1']);
    expect(disruptionSubjects(NODES, 'all')).to.deep.equal(['win1', 'win2', 'lin1', 'lin2', 'cp1']);
    expect(disruptionSubjects(NODES, ['lin2'])).to.deep.equal(['lin2']);
    expect(disruptionSubjects(NODES.slice(0, 2), 'ends')).to.deep.equal(['lin1', 'cp1']);
    expect(disruptionSubjects([NODES[1]!], 'ends')).to.deep.equal(['lin1']);
  });

  it('runs every node action on a node before the next node, the DNS move once at the end', () => {
    expect(disruptionSequence(['lin1', 'win1'])).to.deep.equal([
      { action: 'kube-proxy-restart', subject: 'lin1' },
      { action: 'cni-restart', subject: 'lin1' },
      { action: 'runtime-restart', subject: 'lin1' },
      { action: 'node-reboot', subject: 'lin1' },
      { action: 'kube-proxy-restart', subject: 'win1' },
      { action: 'cni-restart', subject: 'win1' },
      { action: 'runtime-restart', subject: 'win1' },
      { action: 'node-reboot', subject: 'win1' },
      { action: 'dns-pods-moved', subject: CLUSTER_SUBJECT },
    ]);
    expect(disruptionSequence(['lin1'], ['dns-pods-moved', 'kube-proxy-restart'])).to.deep.equal([
      { action: 'kube-proxy-restart', subject: 'lin1' },
      { action: 'dns-pods-moved', subject: CLUSTER_SUBJECT },
    ]);
  });
});
