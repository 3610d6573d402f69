import { expect } from 'chai';
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from './expand-cells.ts';
import { affinity, dualProtocol, internalLocal, podToNodePort } from './feature-cells.ts';
import { MATRIX } from './rows.ts';
import { FULL_MESH } from './mesh.ts';
import { DEFAULT_PERF } from './perf-cells.ts';

const node = (name: string, os: 'linux' | 'windows', role: 'control-plane' | 'worker' = 'worker') =>
  ({ name, os, role, ip: `192.168.200.${10 + Number(name.at(-1))}` }) satisfies SuiteNode;
const HYBRID = [
  node('cp1', 'linux', 'control-plane'),
  node('lin1', 'linux'),
  node('lin2', 'linux'),
  node('win1', 'windows'),
  node('win2', 'windows'),
];
const WORDS = [
  'pod-to-nodeport',
  'affinity',
  'health-check-nodeport',
  'external-name',
  'dual-protocol',
  'pod-to-apiserver',
  'internal-local',
];

describe('matrix expansion: the Service-feature rows', () => {
  const cells = expandCells(MATRIX, HYBRID, FULL_MESH, DEFAULT_PERF, {
    kubernetesVersion: '1.30.4',
  });
  const w = fakeWorkloads(HYBRID);
  const of = (row: string) =>
    cells.filter((c) => c.meta.row === row || c.meta.row.startsWith(`${row}/`));
  const probe = (c: CellPlan): ProbeSpec => c.probe!(w);
  const cell = (id: string): CellPlan => {
    const found = cells.find((c) => c.meta.cell === id);
    if (found === undefined) throw new Error(`no cell ${id}`);
    return found;
  };

  it('each grep word selects exactly its own row', () => {
    for (const word of WORDS) {
      const selected = cells.filter((c) => c.meta.title.includes(word));
      expect(selected.length, word).to.be.greaterThan(0);
      expect(new Set(selected.map((c) => c.meta.row.split('/')[0])), word).to.deep.equal(
        new Set([word]),
      );
      expect(selected, word).to.deep.equal(of(word));
    }
  });

  it('pod-to-nodeport: every node a source, every node the port, of each OS Service', () => {
    const pairs = of('pod-to-nodeport/linux-to-windows').map(
      (c) => `${c.meta.source.node}>${c.meta.target.node}:${c.meta.placement}`,
    );
    expect(pairs).to.have.length(3 * 5);
    expect(pairs).to.include.members(['lin1>lin1:same-node', 'lin1>win2:cross-node']);
    const spec = probe(cell('pod-to-nodeport/windows-to-linux/cross-node/win2/lin2/node-ip'));
    expect(spec.from).to.equal('netexec-win2-a');
    expect(spec.request).to.deep.include({
      kind: 'endpoints',
      base: 'http://192.168.200.12:30080',
    });
    // Masqueraded by the node: who answered counts, not whom they saw.
    expect(spec.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: ['netexec-cp1-b', 'netexec-lin1-b', 'netexec-lin2-b'],
    });
  });

  it('affinity: N new connections, N from the endpoint count (k^(1-N) < 1e-4), a second run after the timeout', () => {
    const sticky = probe(cell('affinity/linux-to-windows/sticky/lin1/cluster-ip'));
    expect(sticky.request).to.deep.include({
      base: 'http://10.96.3.21:80',
      minRequests: 15,
      maxRequests: 15,
    });
    expect(sticky.check).to.deep.equal({
      kind: 'same-endpoint',
      expect: ['netexec-win1-b', 'netexec-win2-b'],
      runs: [15],
    });
    expect(sticky.again).to.equal(undefined);
    const timeout = probe(cell('affinity/windows-to-linux/timeout/win2/cluster-ip'));
    // One connection makes the affinity; 0.5 s after the fake's 2 s timeout, ten must stick.
    expect(timeout.request).to.deep.include({ base: 'http://10.96.3.30:80', maxRequests: 1 });
    expect(timeout.check).to.deep.include({ runs: [1, 10] });
    expect(timeout.again?.afterMs).to.equal(2500);
    expect(timeout.again?.request).to.deep.include({ minRequests: 10, maxRequests: 10 });
  });

  it('internal-local: each source has the variant its node says, and none on a cluster without the field', () => {
    expect(of('internal-local').map((c) => c.meta.cell)).to.deep.equal([
      'internal-local/linux-to-linux/has-endpoint/lin1/cluster-ip',
      'internal-local/linux-to-linux/no-endpoint/lin2/cluster-ip',
      'internal-local/linux-to-linux/has-endpoint/cp1/cluster-ip',
      'internal-local/linux-to-windows/no-endpoint/lin1/cluster-ip',
      'internal-local/linux-to-windows/no-endpoint/lin2/cluster-ip',
      'internal-local/linux-to-windows/no-endpoint/cp1/cluster-ip',
      'internal-local/windows-to-linux/no-endpoint/win1/cluster-ip',
      'internal-local/windows-to-linux/no-endpoint/win2/cluster-ip',
      'internal-local/windows-to-windows/only-endpoint/win1/cluster-ip',
      'internal-local/windows-to-windows/no-endpoint/win2/cluster-ip',
    ]);
    const has = probe(cell('internal-local/linux-to-linux/has-endpoint/lin1/cluster-ip'));
    expect(has.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: ['netexec-lin1-b'],
      only: true,
    });
    expect(has.request).to.deep.include({ expect: ['netexec-cp1-b', 'netexec-lin1-b'] });
    const none = probe(cell('internal-local/linux-to-windows/no-endpoint/lin2/cluster-ip'));
    expect(none).to.deep.include({ check: { kind: 'not-forwarded' }, timeoutMs: 1000 });
    const old = expandCells(MATRIX, HYBRID, FULL_MESH, DEFAULT_PERF, {
      kubernetesVersion: 'v1.20.2',
    }).filter((c) => c.meta.row.startsWith('internal-local/'));
    expect(old.map((c) => c.probe)).to.deep.equal(old.map(() => undefined));
    expect(old[0]!.skip).to.match(/^Kubernetes v1\.20\.2 has no internalTrafficPolicy: .*1\.22/);
  });

  it('health-check-nodeport: 200 and one local endpoint where the node has one, 503 and none elsewhere', () => {
    const targets = of('health-check-nodeport/external-to-linux-service').map(
      (c) => c.meta.target.node,
    );
    expect(targets).to.deep.equal(['lin1', 'lin2', 'cp1', 'win1', 'win2']);
    const via = (n: string, os: string) =>
      probe(cell(`health-check-nodeport/external-to-${os}-service/${n}/node-ip`));
    expect(via('cp1', 'linux')).to.deep.equal({
      from: 'outside',
      request: { kind: 'http', url: 'http://192.168.200.11:30380/healthz' },
      check: { kind: 'health-check', status: 200, service: 'ns/health-linux', localEndpoints: 1 },
    });
    expect(via('lin2', 'linux').check).to.deep.include({ status: 503, localEndpoints: 0 });
    expect(via('win1', 'linux').check).to.deep.include({ status: 503, localEndpoints: 0 });
    expect(via('win1', 'windows').check).to.deep.include({ status: 200, localEndpoints: 1 });
  });

  it('external-name: the name through its CNAME must lead to the echo and its /hostname', () => {
    expect(probe(cell('external-name/windows/win1/dns'))).to.deep.equal({
      from: 'netexec-win1-a',
      request: { kind: 'http', url: 'http://external-name.ns.svc.cluster.local:8080/hostname' },
      check: { kind: 'body', expect: 'external', peer: '198.51.100.1' },
    });
  });

  it('dual-protocol: each protocol on the one port number, every endpoint seeing the pod', () => {
    const udp = probe(cell('dual-protocol/linux-to-windows/udp/lin2/cluster-ip'));
    expect(udp.request).to.deep.include({ base: 'udp://10.96.3.41:8080' });
    expect(udp.check).to.deep.include({ source: '10.244.2.10' });
    const tcp = probe(cell('dual-protocol/linux-to-windows/tcp/lin2/cluster-ip'));
    expect(tcp.request).to.deep.include({ base: 'http://10.96.3.41:8080' });
  });

  it('pod-to-apiserver: TLS to the kubernetes Service by ClusterIP and by name; any HTTP answer', () => {
    expect(probe(cell('pod-to-apiserver/linux/lin1/cluster-ip'))).to.deep.equal({
      from: 'netexec-lin1-a',
      request: { kind: 'http', url: 'https://10.96.0.1:443/version' },
      check: { kind: 'http-answer', peer: '10.96.0.1' },
    });
    expect(probe(cell('pod-to-apiserver/windows/win2/dns')).request).to.deep.equal({
      kind: 'http',
      url: 'https://kubernetes.default.svc.cluster.local:443/version',
    });
    expect(cell('pod-to-apiserver/windows/win2/dns').meta.target).to.deep.include({
      node: 'cp1',
      label: 'API server',
    });
  });
});

describe('Service-feature cells on a small lab: ids, titles, endpoints and skip reasons', () => {
  const LAB: SuiteNode[] = [
    { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
    { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
    { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
  ];
  const LINUX = LAB.slice(0, 2);
  const LAB3: SuiteNode[] = [
    ...LINUX,
    { name: 'lin2', os: 'linux', role: 'worker', ip: '192.168.200.12' },
    ...LAB.slice(2),
  ];
  /** A cell's meta, with its skip reason when the lab cannot host it. */
  const metas = (cells: CellPlan[]) =>
    cells.map((c) => (c.skip === undefined ? c.meta : { ...c.meta, skip: c.skip }));

  it('affinity: a sticky and an across-the-timeout cell per source node, naming every backend node', () => {
    expect(metas(affinity({ kind: 'affinity', from: 'windows', to: 'linux' }, LAB))).to.deep.equal([
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/sticky/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux win1-to-lin1+cp1 sticky via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
      },
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/timeout/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux win1-to-lin1+cp1 across the timeout via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
      },
    ]);
  });

  it('affinity toward an OS with one node skips both variants: one endpoint cannot tell', () => {
    expect(metas(affinity({ kind: 'affinity', from: 'linux', to: 'windows' }, LAB))).to.deep.equal([
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/sticky/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows sticky via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: 'win1', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs two windows endpoints to tell a sticky Service from one that is not; the lab has 1 windows node',
      },
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/timeout/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows timeout via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: 'win1', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs two windows endpoints to tell a sticky Service from one that is not; the lab has 1 windows node',
      },
    ]);
  });

  it('affinity without a node of the Service OS skips, naming it', () => {
    expect(
      metas(affinity({ kind: 'affinity', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/sticky/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows sticky via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'affinity/linux-to-windows',
        cell: 'affinity/linux-to-windows/timeout/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity linux-to-windows timeout via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'affinity-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('affinity without a source node skips, naming the source OS', () => {
    expect(
      metas(affinity({ kind: 'affinity', from: 'windows', to: 'linux' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/sticky/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux sticky via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'affinity/windows-to-linux',
        cell: 'affinity/windows-to-linux/timeout/none/cluster-ip',
        via: 'cluster-ip',
        title: 'affinity windows-to-linux timeout via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'affinity-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('dual-protocol: a TCP and a UDP cell per source node', () => {
    expect(
      metas(dualProtocol({ kind: 'dual-protocol', from: 'linux', to: 'windows' }, LAB)),
    ).to.deep.equal([
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/tcp/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows lin1-to-win1 tcp via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/udp/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows lin1-to-win1 udp via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/tcp/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows cp1-to-win1 tcp via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/udp/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows cp1-to-win1 udp via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'windows', node: 'win1', name: 'dual-windows', label: 'windows service' },
        placement: '',
      },
    ]);
  });

  it('dual-protocol without a node of the Service OS skips, naming it', () => {
    expect(
      metas(dualProtocol({ kind: 'dual-protocol', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/tcp/none/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows tcp via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'dual-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'dual-protocol/linux-to-windows',
        cell: 'dual-protocol/linux-to-windows/udp/none/cluster-ip',
        via: 'cluster-ip',
        title: 'dual-protocol linux-to-windows udp via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'dual-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('internal-local: each source node has the variant its node says (a local endpoint among others, or none)', () => {
    expect(
      metas(internalLocal({ kind: 'internal-local', from: 'linux', to: 'linux' }, LAB3)),
    ).to.deep.equal([
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/has-endpoint/lin1/cluster-ip',
        via: 'cluster-ip',
        title:
          'internal-local linux-to-linux lin1-to-cp1+lin1 with a local endpoint via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: {
          os: 'linux',
          node: 'cp1,lin1',
          name: 'internal-local-linux',
          label: 'linux service',
        },
        placement: '',
      },
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/no-endpoint/lin2/cluster-ip',
        via: 'cluster-ip',
        title:
          'internal-local linux-to-linux lin2-to-cp1+lin1 without a local endpoint via cluster-ip',
        source: { os: 'linux', node: 'lin2', label: 'linux pod', name: 'netexec-lin2-a' },
        target: {
          os: 'linux',
          node: 'cp1,lin1',
          name: 'internal-local-linux',
          label: 'linux service',
        },
        placement: '',
      },
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/has-endpoint/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-linux cp1-to-cp1+lin1 with a local endpoint via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: {
          os: 'linux',
          node: 'cp1,lin1',
          name: 'internal-local-linux',
          label: 'linux service',
        },
        placement: '',
      },
    ]);
  });

  it("internal-local with a single local endpoint: the Service's only one there, none elsewhere", () => {
    expect(
      metas(internalLocal({ kind: 'internal-local', from: 'linux', to: 'linux' }, LAB)),
    ).to.deep.equal([
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/no-endpoint/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-linux lin1-to-cp1 without a local endpoint via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'cp1', name: 'internal-local-linux', label: 'linux service' },
        placement: '',
      },
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/only-endpoint/cp1/cluster-ip',
        via: 'cluster-ip',
        title:
          "internal-local linux-to-linux cp1-to-cp1 with the Service's only endpoint via cluster-ip",
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', name: 'internal-local-linux', label: 'linux service' },
        placement: '',
      },
    ]);
  });

  it('internal-local on a version without the policy skips every variant with the reason', () => {
    expect(
      metas(
        internalLocal(
          { kind: 'internal-local', from: 'linux', to: 'linux' },
          LAB,
          'no policy here',
        ),
      ),
    ).to.deep.equal([
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/has-endpoint/none/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-linux has-endpoint via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: 'cp1', name: 'internal-local-linux', label: 'linux service' },
        placement: '',
        skip: 'no policy here',
      },
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/only-endpoint/none/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-linux only-endpoint via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: 'cp1', name: 'internal-local-linux', label: 'linux service' },
        placement: '',
        skip: 'no policy here',
      },
      {
        row: 'internal-local/linux-to-linux',
        cell: 'internal-local/linux-to-linux/no-endpoint/none/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-linux no-endpoint via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: 'cp1', name: 'internal-local-linux', label: 'linux service' },
        placement: '',
        skip: 'no policy here',
      },
    ]);
  });

  it('internal-local without a node of the Service OS skips, naming it', () => {
    expect(
      metas(internalLocal({ kind: 'internal-local', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'internal-local/linux-to-windows',
        cell: 'internal-local/linux-to-windows/has-endpoint/none/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-windows has-endpoint via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: {
          os: 'windows',
          node: '-',
          name: 'internal-local-windows',
          label: 'windows service',
        },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'internal-local/linux-to-windows',
        cell: 'internal-local/linux-to-windows/only-endpoint/none/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-windows only-endpoint via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: {
          os: 'windows',
          node: '-',
          name: 'internal-local-windows',
          label: 'windows service',
        },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'internal-local/linux-to-windows',
        cell: 'internal-local/linux-to-windows/no-endpoint/none/cluster-ip',
        via: 'cluster-ip',
        title: 'internal-local linux-to-windows no-endpoint via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: {
          os: 'windows',
          node: '-',
          name: 'internal-local-windows',
          label: 'windows service',
        },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-nodeport: each source node via its own node (same-node) and each other node (cross-node)', () => {
    expect(
      metas(podToNodePort({ kind: 'pod-to-nodeport', from: 'windows', to: 'linux' }, LAB)),
    ).to.deep.equal([
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/cross-node/win1/lin1/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux win1-to-lin1 cross-node via node-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1', name: 'web-linux', label: 'linux node' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/cross-node/win1/cp1/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux win1-to-cp1 cross-node via node-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'cp1', name: 'web-linux', label: 'linux node' },
        placement: 'cross-node',
      },
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/same-node/win1/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux win1-to-win1 same-node via node-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'windows', node: 'win1', name: 'web-linux', label: 'windows node' },
        placement: 'same-node',
      },
    ]);
  });

  it('pod-to-nodeport without a node of the Service OS skips both placements, naming it', () => {
    expect(
      metas(podToNodePort({ kind: 'pod-to-nodeport', from: 'linux', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'pod-to-nodeport/linux-to-windows',
        cell: 'pod-to-nodeport/linux-to-windows/same-node/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport linux-to-windows same-node via node-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows node' },
        placement: 'same-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-nodeport/linux-to-windows',
        cell: 'pod-to-nodeport/linux-to-windows/cross-node/none/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport linux-to-windows cross-node via node-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows node' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-nodeport without a source node skips both placements, naming the source OS', () => {
    expect(
      metas(podToNodePort({ kind: 'pod-to-nodeport', from: 'windows', to: 'linux' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/same-node/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux same-node via node-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'web-linux', label: 'linux node' },
        placement: 'same-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-nodeport/windows-to-linux',
        cell: 'pod-to-nodeport/windows-to-linux/cross-node/none/none/node-ip',
        via: 'node-ip',
        title: 'pod-to-nodeport windows-to-linux cross-node via node-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'web-linux', label: 'linux node' },
        placement: 'cross-node',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('internal-local: a node with a local endpoint sweeps for its own only; one without must not be answered', () => {
    const w = fakeWorkloads(LAB3);
    const specs = internalLocal({ kind: 'internal-local', from: 'linux', to: 'linux' }, LAB3).map(
      (c) => c.probe!(w),
    );
    expect(specs.map((s) => [s.from, s.request, s.check])).to.deep.equal([
      [
        'netexec-lin1-a',
        {
          kind: 'endpoints',
          base: 'http://10.96.3.50:80',
          service: 'internal-local-linux',
          expect: ['netexec-cp1-b', 'netexec-lin1-b'],
          maxRequests: 20,
        },
        { kind: 'every-endpoint', expect: ['netexec-lin1-b'], only: true },
      ],
      [
        'netexec-lin2-a',
        { kind: 'http', url: 'http://10.96.3.50:80/hostname' },
        { kind: 'not-forwarded' },
      ],
      [
        'netexec-cp1-a',
        {
          kind: 'endpoints',
          base: 'http://10.96.3.50:80',
          service: 'internal-local-linux',
          expect: ['netexec-cp1-b', 'netexec-lin1-b'],
          maxRequests: 20,
        },
        { kind: 'every-endpoint', expect: ['netexec-cp1-b'], only: true },
      ],
    ]);
  });

  it('a feature cell of a driver without the feature Services fails naming what is missing', () => {
    const w = fakeWorkloads(LAB);
    const [sticky, timeout] = affinity({ kind: 'affinity', from: 'windows', to: 'linux' }, LAB);
    const bare: Workloads = { ...w };
    delete bare.features;
    expect(() => sticky!.probe!(bare)).to.throw('no Service-feature Services were deployed');
    const none = { ...w, features: { ...w.features!, affinity: [], affinityTimeout: [] } };
    expect(() => sticky!.probe!(none)).to.throw('no affinity Service of linux was deployed');
    expect(() => timeout!.probe!(none)).to.throw(
      'no affinity timeout Service of linux was deployed',
    );
    const [local] = internalLocal({ kind: 'internal-local', from: 'linux', to: 'linux' }, LAB);
    expect(() => local!.probe!({ ...w, features: { ...w.features!, internalLocal: [] } })).to.throw(
      'no internalTrafficPolicy Local Service of linux was deployed',
    );
    const [dual] = dualProtocol({ kind: 'dual-protocol', from: 'linux', to: 'windows' }, LAB);
    expect(() => dual!.probe!({ ...w, features: { ...w.features!, dualProtocol: [] } })).to.throw(
      'no dual-protocol Service of windows was deployed',
    );
  });

  it('dual-protocol titles name every backend node', () => {
    const [cell] = dualProtocol({ kind: 'dual-protocol', from: 'windows', to: 'linux' }, LAB);
    expect(cell!.meta.title).to.equal(
      'dual-protocol windows-to-linux win1-to-lin1+cp1 tcp via cluster-ip',
    );
  });
});
