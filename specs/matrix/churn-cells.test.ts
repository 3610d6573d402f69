/** Churn cells: what each step's probe asks of the churn Service, and what it must see. */
import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { CHURN_MIN_REQUESTS, churn } from './churn-cells.ts';
import { REQUESTS_PER_ENDPOINT } from './cell-parts.ts';

const NODES: SuiteNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
  { name: 'win2', os: 'windows', role: 'worker', ip: '192.168.200.14' },
];

describe('churn cells', () => {
  const w = fakeWorkloads(NODES);
  const cellsOf = (from: 'linux' | 'windows', to: 'linux' | 'windows') =>
    churn({ kind: 'churn', from, to }, NODES);
  const stepOf = (from: 'linux' | 'windows', to: 'linux' | 'windows', step: string) =>
    cellsOf(from, to).filter((c) => c.churn?.step === step);

  it('after a step with live backends, exactly those may answer, each seeing the source pod', () => {
    for (const cell of stepOf('windows', 'linux', 'backend-deleted')) {
      const spec = cell.probe!(w);
      const from = w.pods.find((p) => p.name === spec.from)!;
      expect(spec.request).to.deep.equal({
        kind: 'endpoints',
        base: 'http://10.96.2.20:80',
        service: 'churn-linux',
        expect: ['netexec-cp1-c'],
        maxRequests: REQUESTS_PER_ENDPOINT + CHURN_MIN_REQUESTS,
        minRequests: CHURN_MIN_REQUESTS,
      });
      // `only`: the deleted backend answering at all is the stale rule the row is there to find.
      expect(spec.check).to.deep.equal({
        kind: 'every-endpoint',
        expect: ['netexec-cp1-c'],
        source: from.ip,
        only: true,
      });
    }
  });

  it('after the backend is recreated, the old one and its replacement are told apart by name', () => {
    const [cell] = stepOf('linux', 'windows', 'backend-recreated');
    const spec = cell!.probe!(w);
    expect(spec.check).to.deep.include({
      expect: ['netexec-win1-c', 'netexec-win2-d'],
      only: true,
    });
    expect(cell!.meta.target).to.include({ node: 'win1,win2', name: 'churn-windows' });
  });

  it('scaled to zero, a Linux source must be refused: kube-proxy rejects a Service without endpoints', () => {
    const cells = stepOf('linux', 'windows', 'scaled-to-zero');
    expect(cells).to.have.length(2);
    for (const cell of cells) {
      const spec = cell.probe!(w);
      expect(spec.check).to.deep.equal({ kind: 'refused' });
      // One request, expecting the deleted backend: anything that answers is judged as forwarded.
      expect(spec.request).to.deep.include({ expect: ['netexec-win2-c'], maxRequests: 1 });
      expect(cell.meta.target).to.include({ node: '-' });
    }
    expect(stepOf('linux', 'linux', 'scaled-to-zero')[0]!.probe!(w).check.kind).to.equal('refused');
  });

  it('scaled to zero, a Windows source only must not be answered (its load balancer is not documented)', () => {
    for (const to of ['linux', 'windows'] as const) {
      const [cell] = stepOf('windows', to, 'scaled-to-zero');
      expect(cell!.probe!(w).check).to.deep.equal({ kind: 'not-forwarded' });
    }
  });

  it('a lab without the Service OS skips every step, naming what it lacks', () => {
    const cells = churn({ kind: 'churn', from: 'linux', to: 'windows' }, NODES.slice(0, 2));
    expect(cells.map((c) => [c.meta.cell, c.skip])).to.deep.equal([
      [
        'churn/linux-to-windows/backend-deleted/none/cluster-ip',
        'needs a windows node; the lab has 0 windows nodes',
      ],
      [
        'churn/linux-to-windows/backend-recreated/none/cluster-ip',
        'needs a windows node; the lab has 0 windows nodes',
      ],
      [
        'churn/linux-to-windows/scaled-to-zero/none/cluster-ip',
        'needs a windows node; the lab has 0 windows nodes',
      ],
      [
        'churn/linux-to-windows/scaled-back/none/cluster-ip',
        'needs a windows node; the lab has 0 windows nodes',
      ],
    ]);
  });

  it('names each step after its source node and the nodes with live backends (none when scaled to zero)', () => {
    const cells = cellsOf('windows', 'linux').filter((c) => c.meta.source.node === 'win1');
    const metas = cells.map((c) => (c.skip === undefined ? c.meta : { ...c.meta, skip: c.skip }));
    expect(metas).to.deep.equal([
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/backend-deleted/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux backend-deleted win1-to-cp1 via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'cp1', name: 'churn-linux', label: 'linux churn service' },
        placement: '',
      },
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/backend-recreated/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux backend-recreated win1-to-cp1+lin1 via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: {
          os: 'linux',
          node: 'cp1,lin1',
          name: 'churn-linux',
          label: 'linux churn service',
        },
        placement: '',
      },
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/scaled-to-zero/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux scaled-to-zero win1-to-none via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: '-', name: 'churn-linux', label: 'linux churn service' },
        placement: '',
      },
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/scaled-back/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux scaled-back win1-to-cp1+lin1 via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: {
          os: 'linux',
          node: 'cp1,lin1',
          name: 'churn-linux',
          label: 'linux churn service',
        },
        placement: '',
      },
    ]);
  });

  it('a lab without the source OS skips every step, its source blank', () => {
    const cells = churn({ kind: 'churn', from: 'windows', to: 'linux' }, NODES.slice(0, 2));
    const metas = cells.map((c) => (c.skip === undefined ? c.meta : { ...c.meta, skip: c.skip }));
    expect(metas).to.deep.equal([
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/backend-deleted/none/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux backend-deleted via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'churn-linux', label: 'linux churn service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/backend-recreated/none/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux backend-recreated via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'churn-linux', label: 'linux churn service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/scaled-to-zero/none/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux scaled-to-zero via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'churn-linux', label: 'linux churn service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'churn/windows-to-linux',
        cell: 'churn/windows-to-linux/scaled-back/none/cluster-ip',
        via: 'cluster-ip',
        title: 'churn windows-to-linux scaled-back via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: '-', name: 'churn-linux', label: 'linux churn service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it("asks the Service of the row's OS, allowing 20 requests per live endpoint", () => {
    const [cell] = stepOf('linux', 'windows', 'backend-recreated');
    expect(cell!.probe!(w).request).to.deep.include({
      base: 'http://10.96.2.21:80',
      service: 'churn-windows',
      maxRequests: 2 * REQUESTS_PER_ENDPOINT + CHURN_MIN_REQUESTS,
    });
    expect(() => cell!.probe!({ ...w, churn: [] })).to.throw('churn-windows was not deployed');
  });
});
