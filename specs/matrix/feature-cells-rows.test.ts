/** Matrix expansion of the Service-feature rows on the default lab: grep words and each row's probes. */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { expandCells } from './expand-cells.ts';
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
