/** Service-feature cells on a small lab: internal-local. */
import { expect } from 'chai';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { internalLocal } from './feature-cells.ts';
import { LAB, LAB3, LINUX, metas } from '../testing/feature-cells-fixtures.ts';

describe('Service-feature cells on a small lab: ids, titles, endpoints and skip reasons', () => {
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
});
