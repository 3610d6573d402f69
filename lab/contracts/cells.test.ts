import { expect } from 'chai';
import { cellId, parseCellId, rowId, sourceOs, targetOs, type CellKey } from './cells.ts';

const KEYS: CellKey[] = [
  {
    kind: 'pod-to-pod',
    from: 'windows',
    to: 'linux',
    placement: 'cross-node',
    node: 'win-2',
    peer: 'lin1',
    via: 'dns',
  },
  {
    kind: 'pod-to-pod',
    from: 'linux',
    to: 'linux',
    placement: 'same-node',
    node: 'lin1',
    via: 'ip',
  },
  {
    kind: 'large-response',
    from: 'linux',
    to: 'windows',
    placement: 'cross-node',
    node: 'cp1',
    peer: 'win1',
    via: 'ip',
  },
  { kind: 'pod-to-service', from: 'windows', to: 'windows', node: 'win1', via: 'cluster-ip' },
  { kind: 'nodeport', to: 'windows', node: 'win-2', via: 'node-ip' },
  { kind: 'nodeport', to: 'linux', via: 'node-ip' },
  { kind: 'outbound-nat', from: 'linux', node: 'cp1', via: 'ip' },
  { kind: 'dns', from: 'windows', lookup: 'search-list', node: 'win1', via: 'dns' },
  { kind: 'pod-to-pod', from: 'windows', to: 'windows', placement: 'cross-node', via: 'ip' },
  {
    kind: 'churn',
    from: 'linux',
    to: 'windows',
    step: 'backend-recreated',
    node: 'lin1',
    via: 'cluster-ip',
  },
  {
    kind: 'pod-to-nodeport',
    from: 'linux',
    to: 'windows',
    placement: 'cross-node',
    node: 'lin1',
    peer: 'cp1',
    via: 'node-ip',
  },
  {
    kind: 'affinity',
    from: 'windows',
    to: 'linux',
    variant: 'timeout',
    node: 'win1',
    via: 'cluster-ip',
  },
  {
    kind: 'dual-protocol',
    from: 'linux',
    to: 'linux',
    variant: 'udp',
    node: 'cp1',
    via: 'cluster-ip',
  },
  {
    kind: 'internal-local',
    from: 'windows',
    to: 'windows',
    variant: 'only-endpoint',
    node: 'win1',
    via: 'cluster-ip',
  },
  { kind: 'health-check-nodeport', to: 'linux', node: 'win2', via: 'node-ip' },
  { kind: 'external-name', from: 'windows', node: 'win2', via: 'dns' },
  { kind: 'pod-to-apiserver', from: 'linux', node: 'lin2', via: 'cluster-ip' },
];

describe('contracts: the cell-id grammar', () => {
  it('builds ids naming the nodes at both ends', () => {
    expect(KEYS.map(cellId)).to.deep.equal([
      'pod-to-pod/windows-to-linux/cross-node/win-2/lin1/dns',
      'pod-to-pod/linux-to-linux/same-node/lin1/ip',
      'large-response/linux-to-windows/cross-node/cp1/win1/ip',
      'pod-to-service/windows-to-windows/win1/cluster-ip',
      'nodeport/external-to-windows-node/win-2/node-ip',
      'nodeport/external-to-linux-node/none/node-ip',
      'outbound-nat/linux/cp1/ip',
      'dns/search-list/windows/win1/dns',
      'pod-to-pod/windows-to-windows/cross-node/none/none/ip',
      'churn/linux-to-windows/backend-recreated/lin1/cluster-ip',
      'pod-to-nodeport/linux-to-windows/cross-node/lin1/cp1/node-ip',
      'affinity/windows-to-linux/timeout/win1/cluster-ip',
      'dual-protocol/linux-to-linux/udp/cp1/cluster-ip',
      'internal-local/windows-to-windows/only-endpoint/win1/cluster-ip',
      'health-check-nodeport/external-to-linux-service/win2/node-ip',
      'external-name/windows/win2/dns',
      'pod-to-apiserver/linux/lin2/cluster-ip',
    ]);
    expect(rowId(KEYS[14]!)).to.equal('health-check-nodeport/external-to-linux-service');
    expect(rowId(KEYS[11]!)).to.equal('affinity/windows-to-linux');
    expect(rowId(KEYS[4]!)).to.equal('nodeport/external-to-windows-node');
    expect(rowId(KEYS[7]!)).to.equal('dns/search-list/windows');
  });

  it('parses every id it builds back to the same key', () => {
    for (const key of KEYS) expect(parseCellId(cellId(key)), cellId(key)).to.deep.equal(key);
  });

  it('parses nothing outside the grammar', () => {
    for (const id of [
      'infrastructure/lab-ready',
      'pod-to-pod/linux-to-mac/cross-node/ip',
      'pod-to-pod/linux-to-linux/cross-node/lin1/ip',
      'pod-to-pod/linux-to-linux/same-node/lin1/lin2/ip',
      'pod-to-service/linux-to-linux/cluster-ip',
      'dns/reverse/linux/lin1/dns',
      'nodeport/external-to-linux-node/Bad_Node/node-ip',
      'churn/linux-to-windows/backend-moved/lin1/cluster-ip',
      'affinity/linux-to-linux/udp/lin1/cluster-ip',
      'dual-protocol/linux-to-linux/lin1/cluster-ip',
      'internal-local/linux-to-windows/sticky/lin1/cluster-ip',
      'health-check-nodeport/external-to-linux-node/lin1/node-ip',
    ]) {
      expect(parseCellId(id), id).to.equal(undefined);
    }
  });

  it('names the OS at each end', () => {
    expect(KEYS.map((k) => `${sourceOs(k)}>${targetOs(k)}`)).to.deep.equal([
      'windows>linux',
      'linux>linux',
      'linux>windows',
      'windows>windows',
      'external>windows',
      'external>linux',
      'linux>external',
      'windows>cluster-dns',
      'windows>windows',
      'linux>windows',
      'linux>windows',
      'windows>linux',
      'linux>linux',
      'windows>windows',
      'external>linux',
      'windows>external',
      'linux>linux',
    ]);
  });
  it("builds ids with the defaults of what a key leaves out: cross-node, and 'none' for a peer, step or variant", () => {
    const partial: CellKey[] = [
      { kind: 'pod-to-pod', from: 'linux', to: 'windows', node: 'lin1', peer: 'win1', via: 'ip' },
      { kind: 'churn', from: 'linux', to: 'windows', node: 'lin1', via: 'cluster-ip' },
      { kind: 'affinity', from: 'windows', to: 'linux', node: 'win1', via: 'cluster-ip' },
      {
        kind: 'perf',
        measure: 'tcp-rr',
        network: 'pod',
        from: 'linux',
        to: 'windows',
        node: 'lin1',
        via: 'ip',
      },
    ];
    expect(partial.map(cellId)).to.deep.equal([
      'pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip',
      'churn/linux-to-windows/none/lin1/cluster-ip',
      'affinity/windows-to-linux/none/win1/cluster-ip',
      'perf/tcp-rr/pod/linux-to-windows/cross-node/lin1/none/ip',
    ]);
  });

  it('builds perf ids naming one node on the same node, both across nodes, and the Service path without a placement', () => {
    const perf = {
      kind: 'perf',
      measure: 'tcp-stream',
      from: 'windows',
      to: 'linux',
      node: 'win1',
    } as const;
    const keys: CellKey[] = [
      { ...perf, network: 'host', placement: 'same-node', via: 'ip' },
      { ...perf, network: 'pod', placement: 'cross-node', peer: 'lin2', via: 'ip' },
      { ...perf, network: 'service', placement: 'cross-node', peer: 'lin2', via: 'cluster-ip' },
    ];
    expect(keys.map(cellId)).to.deep.equal([
      'perf/tcp-stream/host/windows-to-linux/same-node/win1/ip',
      'perf/tcp-stream/pod/windows-to-linux/cross-node/win1/lin2/ip',
      'perf/tcp-stream/service/windows-to-linux/win1/cluster-ip',
    ]);
    expect(parseCellId(cellId(keys[0]!))).to.deep.equal(keys[0]);
    expect(parseCellId(cellId(keys[1]!))).to.deep.equal(keys[1]);
  });

  it('names a hairpin its own OS at both ends and an outbound echo the outside as its target', () => {
    const keys: CellKey[] = [
      { kind: 'hairpin', from: 'windows', node: 'win1', via: 'cluster-ip' },
      { kind: 'host-network-to-own-nodeport', from: 'windows', node: 'win1', via: 'node-ip' },
      { kind: 'icmp-outbound', from: 'windows', node: 'win1', via: 'ip' },
      { kind: 'dns-tcp', from: 'linux', node: 'lin1', via: 'dns' },
    ];
    expect(keys.map((k) => `${sourceOs(k)}>${targetOs(k)}`)).to.deep.equal([
      'windows>windows',
      'windows>windows',
      'windows>external',
      'linux>cluster-dns',
    ]);
  });
});
