/** Matrix expansion of the default lab: what each kind of cell's probe asks for. */
import { expect } from 'chai';
import { NOT_FORWARDED_MS } from '../model/cell-plan.ts';
import { expandCells } from './expand-cells.ts';
import { MATRIX } from './rows.ts';
import { HYBRID, workloads } from '../testing/expand-cells-fixtures.ts';

describe('matrix expansion', () => {
  const cells = expandCells(MATRIX, HYBRID);

  it('asks hairpin cells to reach the source pod itself through its own Service', () => {
    const w = workloads(HYBRID);
    const cell = cells.find((c) => c.meta.cell === 'hairpin/windows/win2/dns')!;
    expect(cell.meta.source).to.include({ node: 'win2', name: 'netexec-win2-a' });
    expect(cell.meta.target).to.include({ node: 'win2', name: 'hairpin-win2' });
    expect(cell.probe!(w)).to.deep.equal({
      from: 'netexec-win2-a',
      request: {
        kind: 'endpoints',
        base: 'http://hairpin-win2.ns.svc.cluster.local:80',
        service: 'hairpin-win2',
        expect: ['netexec-win2-a'],
        maxRequests: 20,
      },
      check: { kind: 'every-endpoint', expect: ['netexec-win2-a'] },
    });
    const byIp = cells.find((c) => c.meta.cell === 'hairpin/linux/cp1/cluster-ip')!.probe!(w);
    expect(byIp.request).to.have.property('base', 'http://10.96.1.10:80');
  });

  it('asks pod-to-pod cells to see the source pod IP, outbound NAT the node IP', () => {
    const w = workloads(HYBRID);
    const p2p = cells.find(
      (c) => c.meta.cell === 'pod-to-pod/linux-to-windows/cross-node/lin1/win1/dns',
    )!.probe!(w);
    expect(p2p.from).to.equal('netexec-lin1-a');
    expect(p2p.request).to.deep.equal({
      kind: 'http',
      url: 'http://netexec-win1-a.netexec.ns.svc.cluster.local:8080/clientip',
    });
    expect(p2p.check).to.deep.equal({
      kind: 'source-ip',
      expect: w.pods.find((p) => p.name === 'netexec-lin1-a')!.ip,
      // The name must have led to netexec-win1-a itself.
      peer: w.pods.find((p) => p.name === 'netexec-win1-a')!.ip,
    });
    const nat = cells.find((c) => c.meta.cell === 'outbound-nat/windows/win2/ip')!.probe!(w);
    expect(nat.check).to.deep.equal({ kind: 'source-ip', expect: '192.168.200.14' });
    const search = cells.find((c) => c.meta.cell === 'dns/search-list/windows/win2/dns')!.probe!(w);
    expect(search.from).to.equal('netexec-win2-a');
    // Looked up with curl to the port the kubernetes Service answers (443): no wait on port 80.
    expect(search.request).to.deep.equal({ kind: 'dns', name: 'kubernetes.default', port: 443 });
    expect(search.check).to.deep.equal({ kind: 'answer', expect: '10.96.0.1' });
  });

  it('asks large-response cells for a body of several packets from a pod on another node', () => {
    const w = workloads(HYBRID);
    const big = cells.find(
      (c) => c.meta.cell === 'large-response/windows-to-linux/cross-node/win1/lin1/ip',
    )!;
    expect(big.meta.source.node).to.equal('win1');
    expect(big.meta.target.node).to.equal('lin1');
    const spec = big.probe!(w);
    const target = w.pods.find((p) => p.name === 'netexec-lin1-a')!;
    expect(spec.request).to.deep.equal({
      kind: 'http',
      url: `http://${target.ip}:8080/echo?msg=${'x'.repeat(8192)}`,
    });
    expect(spec.check).to.deep.equal({ kind: 'bytes', expect: 8192 });
  });

  it('asks Service and NodePort cells for every endpoint, Service cells with the source pod IP', () => {
    const w = workloads(HYBRID);
    const svc = cells.find((c) => c.meta.cell === 'pod-to-service/windows-to-linux/win2/dns')!;
    const spec = svc.probe!(w);
    const linuxEndpoints = ['netexec-cp1-b', 'netexec-lin1-b', 'netexec-lin2-b'];
    expect(spec.from).to.equal('netexec-win2-a');
    expect(spec.request).to.deep.include({
      kind: 'endpoints',
      service: 'web-linux',
      maxRequests: 60,
    });
    expect(spec.request).to.have.property('base', 'http://web-linux.ns.svc.cluster.local:80');
    expect(spec.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: linuxEndpoints,
      source: w.pods.find((p) => p.name === 'netexec-win2-a')!.ip,
    });
    const udp = cells.find((c) => c.meta.cell === 'pod-to-service-udp/windows-to-linux/win2/dns')!;
    expect(udp.probe!(w).request).to.deep.include({
      kind: 'endpoints',
      base: 'udp://web-linux.ns.svc.cluster.local:8081',
      maxRequests: 60,
    });
    expect(udp.probe!(w).check).to.deep.equal(spec.check);
    const np = cells.find((c) => c.meta.cell === 'nodeport/external-to-windows-node/win2/node-ip')!;
    const nodePort = np.probe!(w);
    expect(nodePort.from).to.equal('outside');
    expect(nodePort.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: ['netexec-win1-b', 'netexec-win2-b'],
    });
    const npUdp = cells.find(
      (c) => c.meta.cell === 'nodeport-udp/external-to-windows-node/win2/node-ip',
    )!;
    const win2 = HYBRID.find((n) => n.name === 'win2')!;
    expect(npUdp.probe!(w).request).to.have.property('base', `udp://${win2.ip}:30181`);
    expect(npUdp.probe!(w).check).to.deep.equal(nodePort.check);
  });

  it('asks ICMP cells for an echo reply from the target pod, or from the external address', () => {
    const w = workloads(HYBRID);
    const ping = cells.find(
      (c) => c.meta.cell === 'icmp/windows-to-linux/cross-node/win1/lin2/ip',
    )!;
    expect(ping.meta.title).to.equal('icmp windows-to-linux win1-to-lin2 cross-node via ip');
    const target = w.pods.find((p) => p.name === 'netexec-lin2-a')!.ip;
    expect(ping.probe!(w)).to.deep.equal({
      from: 'netexec-win1-a',
      request: { kind: 'icmp', host: target },
      check: { kind: 'echo-reply', from: target },
    });
    const outbound = cells.find((c) => c.meta.cell === 'icmp-outbound/linux/lin1/ip')!;
    expect(outbound.meta.target).to.include({ node: 'outside' });
    expect(outbound.probe!(w)).to.deep.equal({
      from: 'netexec-lin1-a',
      request: { kind: 'icmp', host: '198.51.100.1' },
      check: { kind: 'echo-reply', from: '198.51.100.1' },
    });
  });

  it('asks host network cells for the right server, from and to every node', () => {
    const w = workloads(HYBRID);
    const toPod = cells.find(
      (c) => c.meta.cell === 'host-network-to-pod/linux-to-windows/cross-node/lin2/win1/ip',
    )!;
    expect(toPod.meta.title).to.equal(
      'host-network-to-pod linux-to-windows lin2-to-win1 cross-node via ip',
    );
    expect(toPod.meta.source).to.include({ node: 'lin2', name: 'host-network' });
    const target = w.pods.find((p) => p.name === 'netexec-win1-a')!;
    expect(toPod.probe!(w)).to.deep.equal({
      from: 'host-network:lin2',
      request: { kind: 'http', url: `http://${target.ip}:8080/hostname` },
      check: { kind: 'body', expect: 'netexec-win1-a' },
    });
    const toHost = cells.find(
      (c) => c.meta.cell === 'pod-to-host-network/windows-to-windows/same-node/win2/ip',
    )!;
    expect(toHost.probe!(w)).to.deep.equal({
      from: 'netexec-win2-a',
      request: { kind: 'http', url: 'http://192.168.200.14:8085/hostname' },
      check: { kind: 'body', expect: 'win2' },
    });
    const svc = cells.find(
      (c) => c.meta.cell === 'host-network-to-service/windows-to-linux/win1/cluster-ip',
    )!.probe!(w);
    expect(svc.from).to.equal('host-network:win1');
    expect(svc.request).to.deep.include({ base: 'http://10.96.0.20:80', maxRequests: 60 });
    // Masqueraded off the node: who answered counts, not whom it saw.
    expect(svc.check).to.deep.equal({
      kind: 'every-endpoint',
      expect: ['netexec-cp1-b', 'netexec-lin1-b', 'netexec-lin2-b'],
    });
    const own = cells.find(
      (c) => c.meta.cell === 'host-network-to-own-nodeport/windows/win2/node-ip',
    )!.probe!(w);
    expect(own.from).to.equal('host-network:win2');
    expect(own.request).to.deep.include({ base: 'http://192.168.200.14:30081' });
  });

  it("asks Local traffic policy cells for the node's own endpoint with the client address, or for nothing", () => {
    const w = workloads(HYBRID);
    const ids = (row: string) =>
      cells.filter((c) => c.meta.row === row).map((c) => c.meta.target.node);
    // Every node of the OS but the last hosts an endpoint of its OS's Local Service.
    expect(ids('nodeport-local/external-to-linux-node')).to.deep.equal(['cp1', 'lin1']);
    expect(ids('nodeport-local/external-to-windows-node')).to.deep.equal(['win1']);
    expect(ids('nodeport-local-none/external-to-linux-node')).to.deep.equal(['lin2']);
    expect(ids('nodeport-local-none/external-to-windows-node')).to.deep.equal(['win2']);
    const local = cells.find(
      (c) => c.meta.cell === 'nodeport-local/external-to-linux-node/lin1/node-ip',
    )!;
    expect(local.meta.target).to.include({ node: 'lin1', name: 'local-linux' });
    expect(local.probe!(w)).to.deep.equal({
      from: 'outside',
      request: {
        kind: 'endpoints',
        base: 'http://192.168.200.11:30280',
        service: 'local-linux',
        // Asked until every backend answered: all 20 requests are made where only one may.
        expect: ['netexec-cp1-b', 'netexec-lin1-b'],
        maxRequests: 20,
      },
      check: {
        kind: 'every-endpoint',
        expect: ['netexec-lin1-b'],
        source: '192.168.200.1',
        only: true,
      },
    });
    const none = cells.find(
      (c) => c.meta.cell === 'nodeport-local-none/external-to-windows-node/win2/node-ip',
    )!;
    expect(none.probe!(w)).to.deep.equal({
      from: 'outside',
      request: { kind: 'http', url: 'http://192.168.200.14:30281/hostname' },
      check: { kind: 'not-forwarded' },
      timeoutMs: NOT_FORWARDED_MS,
    });
  });
});
