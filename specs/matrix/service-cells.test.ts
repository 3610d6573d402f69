/** Service cells: each source node's cell toward a Service, how it is named, and why a lab skips it. */
import { expect } from 'chai';
import { fakeWorkloads } from '../testing/fake-workloads.ts';
import { hairpin, hostNetworkToService, podToService } from './service-cells.ts';
import { LAB, LINUX, WINDOWS, metas } from '../testing/small-lab.ts';

describe('Service cells', () => {
  it('pod-to-service: a cell per source node and via, titled with every backend node', () => {
    expect(
      metas(
        podToService(
          { kind: 'pod-to-service', from: 'windows', to: 'linux', vias: ['cluster-ip', 'dns'] },
          LAB,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-service/windows-to-linux',
        cell: 'pod-to-service/windows-to-linux/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-service windows-to-linux win1-to-lin1+cp1 via cluster-ip',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
      },
      {
        row: 'pod-to-service/windows-to-linux',
        cell: 'pod-to-service/windows-to-linux/win1/dns',
        via: 'dns',
        title: 'pod-to-service windows-to-linux win1-to-lin1+cp1 via dns',
        source: { os: 'windows', node: 'win1', label: 'windows pod', name: 'netexec-win1-a' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
      },
    ]);
  });

  it('pod-to-service without a source node skips each via, naming the source OS', () => {
    expect(
      metas(
        podToService(
          { kind: 'pod-to-service', from: 'windows', to: 'linux', vias: ['cluster-ip', 'dns'] },
          LINUX,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-service/windows-to-linux',
        cell: 'pod-to-service/windows-to-linux/none/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-service windows-to-linux via cluster-ip',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-service/windows-to-linux',
        cell: 'pod-to-service/windows-to-linux/none/dns',
        via: 'dns',
        title: 'pod-to-service windows-to-linux via dns',
        source: { os: 'windows', node: '-', label: 'windows pod' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('pod-to-service without a backend node skips each via, naming the Service OS', () => {
    expect(
      metas(
        podToService(
          { kind: 'pod-to-service-udp', from: 'linux', to: 'windows', vias: ['cluster-ip', 'dns'] },
          LINUX,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'pod-to-service-udp/linux-to-windows',
        cell: 'pod-to-service-udp/linux-to-windows/none/cluster-ip',
        via: 'cluster-ip',
        title: 'pod-to-service-udp linux-to-windows via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
      {
        row: 'pod-to-service-udp/linux-to-windows',
        cell: 'pod-to-service-udp/linux-to-windows/none/dns',
        via: 'dns',
        title: 'pod-to-service-udp linux-to-windows via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it("hairpin: each node's source pod toward its own hairpin Service", () => {
    expect(
      metas(hairpin({ kind: 'hairpin', from: 'linux', vias: ['cluster-ip', 'dns'] }, LAB)),
    ).to.deep.equal([
      {
        row: 'hairpin/linux',
        cell: 'hairpin/linux/lin1/cluster-ip',
        via: 'cluster-ip',
        title: 'hairpin linux lin1 via cluster-ip',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: {
          os: 'linux',
          node: 'lin1',
          label: "linux pod's own service",
          name: 'hairpin-lin1',
        },
        placement: '',
      },
      {
        row: 'hairpin/linux',
        cell: 'hairpin/linux/lin1/dns',
        via: 'dns',
        title: 'hairpin linux lin1 via dns',
        source: { os: 'linux', node: 'lin1', label: 'linux pod', name: 'netexec-lin1-a' },
        target: {
          os: 'linux',
          node: 'lin1',
          label: "linux pod's own service",
          name: 'hairpin-lin1',
        },
        placement: '',
      },
      {
        row: 'hairpin/linux',
        cell: 'hairpin/linux/cp1/cluster-ip',
        via: 'cluster-ip',
        title: 'hairpin linux cp1 via cluster-ip',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', label: "linux pod's own service", name: 'hairpin-cp1' },
        placement: '',
      },
      {
        row: 'hairpin/linux',
        cell: 'hairpin/linux/cp1/dns',
        via: 'dns',
        title: 'hairpin linux cp1 via dns',
        source: { os: 'linux', node: 'cp1', label: 'linux pod', name: 'netexec-cp1-a' },
        target: { os: 'linux', node: 'cp1', label: "linux pod's own service", name: 'hairpin-cp1' },
        placement: '',
      },
    ]);
  });

  it('hairpin without a node of the OS skips each via', () => {
    expect(
      metas(hairpin({ kind: 'hairpin', from: 'linux', vias: ['cluster-ip', 'dns'] }, WINDOWS)),
    ).to.deep.equal([
      {
        row: 'hairpin/linux',
        cell: 'hairpin/linux/none/cluster-ip',
        via: 'cluster-ip',
        title: 'hairpin linux via cluster-ip',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: "linux pod's own service" },
        placement: '',
        skip: 'needs a linux node; the lab has 0 linux nodes',
      },
      {
        row: 'hairpin/linux',
        cell: 'hairpin/linux/none/dns',
        via: 'dns',
        title: 'hairpin linux via dns',
        source: { os: 'linux', node: '-', label: 'linux pod' },
        target: { os: 'linux', node: '-', label: "linux pod's own service" },
        placement: '',
        skip: 'needs a linux node; the lab has 0 linux nodes',
      },
    ]);
  });

  it("host-network-to-service: each node's own network toward the Service of every backend node", () => {
    expect(
      metas(
        hostNetworkToService(
          { kind: 'host-network-to-service', from: 'windows', to: 'linux' },
          LAB,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'host-network-to-service/windows-to-linux',
        cell: 'host-network-to-service/windows-to-linux/win1/cluster-ip',
        via: 'cluster-ip',
        title: 'host-network-to-service windows-to-linux win1-to-lin1+cp1 via cluster-ip',
        source: { os: 'windows', node: 'win1', name: 'host-network', label: 'windows node' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
      },
    ]);
  });

  it('host-network-to-service without a source node skips, naming the source OS', () => {
    expect(
      metas(
        hostNetworkToService(
          { kind: 'host-network-to-service', from: 'windows', to: 'linux' },
          LINUX,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'host-network-to-service/windows-to-linux',
        cell: 'host-network-to-service/windows-to-linux/none/cluster-ip',
        via: 'cluster-ip',
        title: 'host-network-to-service windows-to-linux via cluster-ip',
        source: { os: 'windows', node: '-', name: 'host-network', label: 'windows node' },
        target: { os: 'linux', node: 'lin1,cp1', name: 'web-linux', label: 'linux service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('host-network-to-service without a backend node skips, naming the Service OS', () => {
    expect(
      metas(
        hostNetworkToService(
          { kind: 'host-network-to-service', from: 'linux', to: 'windows' },
          LINUX,
        ),
      ),
    ).to.deep.equal([
      {
        row: 'host-network-to-service/linux-to-windows',
        cell: 'host-network-to-service/linux-to-windows/none/cluster-ip',
        via: 'cluster-ip',
        title: 'host-network-to-service linux-to-windows via cluster-ip',
        source: { os: 'linux', node: '-', name: 'host-network', label: 'linux node' },
        target: { os: 'windows', node: '-', name: 'web-windows', label: 'windows service' },
        placement: '',
        skip: 'needs a windows node; the lab has 0 windows nodes',
      },
    ]);
  });

  it('a hairpin probe without its Service deployed is an error naming the source pod', () => {
    const [cell] = hairpin({ kind: 'hairpin', from: 'linux', vias: ['cluster-ip'] }, LAB);
    const w = fakeWorkloads(LAB);
    expect(() => cell!.probe!({ ...w, hairpin: [] })).to.throw(
      'no hairpin service for netexec-lin1-a was deployed',
    );
  });
});
