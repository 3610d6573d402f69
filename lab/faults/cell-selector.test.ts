import { expect } from 'chai';
import { describeSelector, matchesCell, targetNodes, type CellRef } from './cell-selector.ts';

const cell = (id: string, from: string, to: string, via = id.split('/').at(-1) ?? ''): CellRef => ({
  cell: id,
  via,
  source: { node: from },
  target: { node: to },
});

describe('cell selectors', () => {
  const p2p = cell('pod-to-pod/linux-to-windows/cross-node/ip', 'lin1', 'win1');
  const svc = cell('pod-to-service/windows-to-linux/dns', 'win1', 'lin1,lin2,cp1');
  const np = cell('nodeport/external-to-windows-node/win2/node-ip', 'outside', 'win2');
  const dns = cell('dns/short-name/windows/dns', 'win1', '-');

  it('globs: * stays within a segment, ** crosses segments', () => {
    expect(matchesCell({ cell: 'pod-to-pod/**' }, p2p)).to.be.true;
    expect(matchesCell({ cell: 'pod-to-pod/*' }, p2p)).to.be.false;
    expect(matchesCell({ cell: 'nodeport/*/win2/node-ip' }, np)).to.be.true;
    expect(matchesCell({ cell: 'nodeport/*/win1/node-ip' }, np)).to.be.false;
    expect(matchesCell({ cell: '**' }, dns)).to.be.true;
  });

  it('via and from narrow the match', () => {
    expect(matchesCell({ cell: '**', via: 'dns' }, svc)).to.be.true;
    expect(matchesCell({ cell: '**', via: 'dns' }, p2p)).to.be.false;
    expect(matchesCell({ cell: '**', from: ['win1'] }, svc)).to.be.true;
    expect(matchesCell({ cell: '**', from: ['lin1'] }, svc)).to.be.false;
  });

  it('toAll needs every target node in the set (and at least one target)', () => {
    expect(matchesCell({ cell: '**', toAll: ['lin1', 'lin2', 'cp1'] }, svc)).to.be.true;
    expect(matchesCell({ cell: '**', toAll: ['lin1', 'lin2'] }, svc)).to.be.false;
    expect(matchesCell({ cell: '**', toAll: ['win1', 'lin1'] }, dns), 'no target node').to.be.false;
  });

  it('toAny needs one target node in the set', () => {
    expect(matchesCell({ cell: '**', toAny: ['lin2'] }, svc)).to.be.true;
    expect(matchesCell({ cell: '**', toAny: ['win2'] }, svc)).to.be.false;
  });

  it("targets are a pod, a Service's backends, none for cluster DNS or outside", () => {
    expect(targetNodes(svc)).to.deep.equal(['lin1', 'lin2', 'cp1']);
    expect(targetNodes(dns)).to.deep.equal([]);
    expect(targetNodes(cell('outbound-nat/linux/lin1/ip', 'lin1', 'outside'))).to.deep.equal([]);
  });

  it('describes itself in one line', () => {
    expect(
      describeSelector({
        cell: 'pod-to-pod/**',
        via: 'dns',
        from: ['win1'],
        toAll: ['cp1', 'lin1'],
      }),
    ).to.equal('pod-to-pod/** via dns from win1 to only cp1,lin1');
    expect(describeSelector({ cell: 'x/**', toAny: ['win1'] })).to.equal('x/** to any of win1');
  });
});
