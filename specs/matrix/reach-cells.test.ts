/** Reach cells: the health-check node port from outside, the ExternalName and the API server from pods. */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { healthCheckNodePort, reachFromPods } from './reach-cells.ts';
import { LAB, LINUX, WINDOWS, metas } from '../testing/small-lab.ts';

describe('reach cells', () => {
  it("health-check-nodeport: via every node, saying which have a local endpoint of the OS's Service", () => {
    expect(
      metas(healthCheckNodePort({ kind: 'health-check-nodeport', to: 'linux' }, LAB)),
    ).to.deep.equal([
      {
        row: 'health-check-nodeport/external-to-linux-service',
        cell: 'health-check-nodeport/external-to-linux-service/lin1/node-ip',
        via: 'node-ip',
        title:
          'health-check-nodeport external-to-linux-service lin1 without a local endpoint via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'linux', node: 'lin1', name: 'health-linux', label: 'linux node' },
        placement: '',
      },
      {
        row: 'health-check-nodeport/external-to-linux-service',
        cell: 'health-check-nodeport/external-to-linux-service/cp1/node-ip',
        via: 'node-ip',
        title:
          'health-check-nodeport external-to-linux-service cp1 with a local endpoint via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'linux', node: 'cp1', name: 'health-linux', label: 'linux node' },
        placement: '',
      },
      {
        row: 'health-check-nodeport/external-to-linux-service',
        cell: 'health-check-nodeport/external-to-linux-service/win1/node-ip',
        via: 'node-ip',
        title:
          'health-check-nodeport external-to-linux-service win1 without a local endpoint via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'windows', node: 'win1', name: 'health-linux', label: 'windows node' },
        placement: '',
      },
    ]);
  });

  it('health-check-nodeport without a node of the OS skips, naming it', () => {
    expect(
      metas(healthCheckNodePort({ kind: 'health-check-nodeport', to: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'health-check-nodeport/external-to-windows-service',
        cell: 'health-check-nodeport/external-to-windows-service/none/node-ip',
        via: 'node-ip',
        title: 'health-check-nodeport external-to-windows-service via node-ip',
        source: { os: 'external', node: 'outside', label: 'external' },
        target: { os: 'windows', node: '-', name: 'health-windows', label: 'windows node' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-apiserver: each source node toward the control-plane nodes, by ClusterIP and by name', () => {
    expect(metas(reachFromPods({ kind: 'pod-to-apiserver', from: 'linux' }, LAB))).to.deep.equal([
      {
        row: 'pod-to-apiserver/linux',
        cell: 'pod-to-apiserver/linux/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-apiserver linux lin1-to-cp1 via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'cp1', name: 'kubernetes', label: 'API server' },
        placement: '',
      },
      {
        row: 'pod-to-apiserver/linux',
        cell: 'pod-to-apiserver/linux/lin1/dns',
        via: 'dns',
        title: 'pod-to-apiserver linux lin1-to-cp1 via dns',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: { os: 'linux', node: 'cp1', name: 'kubernetes', label: 'API server' },
        placement: '',
      },
      {
        row: 'pod-to-apiserver/linux',
        cell: 'pod-to-apiserver/linux/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-apiserver linux cp1-to-cp1 via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', name: 'kubernetes', label: 'API server' },
        placement: '',
      },
      {
        row: 'pod-to-apiserver/linux',
        cell: 'pod-to-apiserver/linux/cp1/dns',
        via: 'dns',
        title: 'pod-to-apiserver linux cp1-to-cp1 via dns',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', name: 'kubernetes', label: 'API server' },
        placement: '',
      },
    ]);
  });

  it('pod-to-apiserver without a source node skips both vias, still naming the API servers', () => {
    expect(
      metas(reachFromPods({ kind: 'pod-to-apiserver', from: 'windows' }, LINUX)),
    ).to.deep.equal([
      {
        row: 'pod-to-apiserver/windows',
        cell: 'pod-to-apiserver/windows/none/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-apiserver windows via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'cp1', name: 'kubernetes', label: 'API server' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-apiserver/windows',
        cell: 'pod-to-apiserver/windows/none/dns',
        via: 'dns',
        title: 'pod-to-apiserver windows via dns',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'cp1', name: 'kubernetes', label: 'API server' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-apiserver on a lab without a control-plane node names none', () => {
    expect(
      metas(reachFromPods({ kind: 'pod-to-apiserver', from: 'windows' }, WINDOWS)),
    ).to.deep.equal([
      {
        row: 'pod-to-apiserver/windows',
        cell: 'pod-to-apiserver/windows/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-apiserver windows win1-to- via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: '-', name: 'kubernetes', label: 'API server' },
        placement: '',
      },
      {
        row: 'pod-to-apiserver/windows',
        cell: 'pod-to-apiserver/windows/win1/dns',
        via: 'dns',
        title: 'pod-to-apiserver windows win1-to- via dns',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: '-', name: 'kubernetes', label: 'API server' },
        placement: '',
      },
    ]);
  });

  it('external-name: each source node toward the ExternalName, by name only', () => {
    expect(metas(reachFromPods({ kind: 'external-name', from: 'windows' }, LAB))).to.deep.equal([
      {
        row: 'external-name/windows',
        cell: 'external-name/windows/win1/dns',
        via: 'dns',
        title: 'external-name windows win1 via dns',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'external', node: 'outside', label: 'external', name: 'external-name' },
        placement: '',
      },
    ]);
  });

  it('external-name without a source node skips', () => {
    expect(metas(reachFromPods({ kind: 'external-name', from: 'linux' }, WINDOWS))).to.deep.equal([
      {
        row: 'external-name/linux',
        cell: 'external-name/linux/none/dns',
        via: 'dns',
        title: 'external-name linux via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'external', node: 'outside', label: 'external', name: 'external-name' },
        placement: '',
        skip: 'needs a linux node; the lab has 0 linux nodes',
      },
    ]);
  });

  it('a health-check probe without its Service deployed is an error naming the OS', () => {
    const [cell] = healthCheckNodePort({ kind: 'health-check-nodeport', to: 'windows' }, LAB);
    const w = fakeWorkloads(LAB);
    expect(() => cell!.probe!({ ...w, features: { ...w.features!, healthCheck: [] } })).to.throw(
      'no health-check Service of windows was deployed',
    );
  });

  it("asks the health-check node port of the OS's own Service, 200 with a local endpoint, 503 without", () => {
    const w = fakeWorkloads(LAB);
    const specs = healthCheckNodePort({ kind: 'health-check-nodeport', to: 'windows' }, LAB).map(
      (c) => c.probe!(w),
    );
    expect(specs.map((s) => [s.from, s.request, s.check])).to.deep.equal([
      [
        'outside',
        { kind: 'http', url: 'http://192.168.200.11:30381/healthz' },
        { kind: 'health-check', status: 503, service: 'ns/health-windows', localEndpoints: 0 },
      ],
      [
        'outside',
        { kind: 'http', url: 'http://192.168.200.10:30381/healthz' },
        { kind: 'health-check', status: 503, service: 'ns/health-windows', localEndpoints: 0 },
      ],
      [
        'outside',
        { kind: 'http', url: 'http://192.168.200.13:30381/healthz' },
        { kind: 'health-check', status: 200, service: 'ns/health-windows', localEndpoints: 1 },
      ],
    ]);
  });

  it('pod-to-apiserver names every control-plane node', () => {
    const cp2: SuiteNode = { name: 'cp2', os: 'linux', role: 'control-plane', ip: '192.168.200.9' };
    const [cell] = reachFromPods({ kind: 'pod-to-apiserver', from: 'linux' }, [...LAB, cp2]);
    expect(cell!.meta).to.deep.include({
      title: 'pod-to-apiserver linux lin1-to-cp1+cp2 via cluster-ip',
      target: { os: 'linux', node: 'cp1,cp2', name: 'kubernetes', label: 'API server' },
    });
  });
});
