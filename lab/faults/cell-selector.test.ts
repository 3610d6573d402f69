import { expect } from 'chai';
import { describeSelector, matchesCell, targetNodes, type CellRef } from './cell-selector.ts';

const cell = (id: string, from: string, to: string): CellRef => ({
  cell: id,
  source: { node: from },
  target: { node: to },
});

describe('cell selectors', () => {
  const p2p = cell('pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip', 'lin1', 'win1');
  const svc = cell('pod-to-service/windows-to-linux/win1/dns', 'win1', 'lin1,lin2,cp1');
  const np = cell('nodeport/external-to-windows-node/win2/node-ip', 'outside', 'win2');
  const dns = cell('dns/short-name/windows/win1/dns', 'win1', '-');

  it('select by the typed fields of the cell id: kind, OSes, via, lookup', () => {
    expect(matchesCell({ kinds: ['pod-to-pod'] }, p2p)).to.be.true;
    expect(matchesCell({ kinds: ['pod-to-service', 'large-response'] }, p2p)).to.be.false;
    expect(matchesCell({ fromOs: 'linux', toOs: 'windows' }, p2p)).to.be.true;
    expect(matchesCell({ toOs: 'linux' }, p2p)).to.be.false;
    expect(matchesCell({ fromOs: 'external', toOs: 'windows' }, np)).to.be.true;
    expect(matchesCell({ kinds: ['dns'], lookup: 'short-name' }, dns)).to.be.true;
    expect(matchesCell({ lookup: 'fqdn' }, dns)).to.be.false;
    expect(matchesCell({ lookup: 'short-name' }, p2p), 'not a DNS cell').to.be.false;
    expect(matchesCell({}, dns)).to.be.true;
  });

  it('a disruption selector picks only disruption cells of its actions and subjects, by the original cell', () => {
    const wrap = (action: string, subject: string, c: CellRef): CellRef => ({
      ...c,
      cell: `disruption/${action}/${subject}/${c.cell}`,
    });
    const afterRestart = wrap('kube-proxy-restart', 'win1', svc);
    const wanted = { kinds: ['pod-to-service' as const], from: ['win1'] };
    // Neither kind picks the other: the matrix cell is not the one after the action.
    expect(matchesCell(wanted, afterRestart)).to.be.false;
    expect(matchesCell({ ...wanted, disruption: {} }, svc)).to.be.false;
    expect(matchesCell({ ...wanted, disruption: {} }, afterRestart)).to.be.true;
    const on = (actions?: string[], subjects?: string[]) => ({
      ...wanted,
      disruption: {
        ...(actions === undefined ? {} : { actions: actions as ['kube-proxy-restart'] }),
        ...(subjects === undefined ? {} : { subjects }),
      },
    });
    expect(matchesCell(on(['kube-proxy-restart'], ['win1']), afterRestart)).to.be.true;
    expect(matchesCell(on(['node-reboot']), afterRestart)).to.be.false;
    expect(matchesCell(on(undefined, ['win2']), afterRestart)).to.be.false;
    // The rest of the selector is matched against the original cell.
    expect(matchesCell({ ...on(), from: ['lin1'] }, afterRestart)).to.be.false;
    expect(matchesCell({ ...on(), kinds: ['pod-to-pod'] }, afterRestart)).to.be.false;
    expect(describeSelector(on(['cni-restart', 'node-reboot'], ['win1', 'cp1']))).to.equal(
      'after cni-restart|node-reboot on win1,cp1: pod-to-service from win1',
    );
    expect(describeSelector(on())).to.equal('after any disruption: pod-to-service from win1');
  });

  it('never select an id outside the matrix grammar', () => {
    expect(matchesCell({}, cell('infrastructure/lab-ready', '-', '-'))).to.be.false;
    expect(matchesCell({}, cell('pod-to-pod/linux-to-mac/cross-node/ip', 'a', 'b'))).to.be.false;
  });

  it('via and from narrow the match', () => {
    expect(matchesCell({ via: 'dns' }, svc)).to.be.true;
    expect(matchesCell({ via: 'dns' }, p2p)).to.be.false;
    expect(matchesCell({ from: ['win1'] }, svc)).to.be.true;
    expect(matchesCell({ from: ['lin1'] }, svc)).to.be.false;
  });

  it('toAll needs every target node in the set (and at least one target)', () => {
    expect(matchesCell({ toAll: ['lin1', 'lin2', 'cp1'] }, svc)).to.be.true;
    expect(matchesCell({ toAll: ['lin1', 'lin2'] }, svc)).to.be.false;
    expect(matchesCell({ toAll: ['win1', 'lin1'] }, dns), 'no target node').to.be.false;
    expect(matchesCell({ kinds: ['nodeport'], toAll: ['win2'] }, np)).to.be.true;
  });

  it('toAny needs one target node in the set', () => {
    expect(matchesCell({ toAny: ['lin2'] }, svc)).to.be.true;
    expect(matchesCell({ toAny: ['win2'] }, svc)).to.be.false;
  });

  it('fromOs alone decides: a cell from the other OS or from outside is not picked', () => {
    expect(matchesCell({ fromOs: 'windows' }, p2p)).to.be.false;
    expect(matchesCell({ fromOs: 'windows' }, np), 'from outside').to.be.false;
    expect(matchesCell({ fromOs: 'external' }, p2p)).to.be.false;
    expect(matchesCell({ fromOs: 'windows' }, svc)).to.be.true;
  });

  it('steps and variants pick only cells that have one of them', () => {
    const churn = cell('churn/linux-to-windows/backend-recreated/lin1/cluster-ip', 'lin1', 'win1');
    const sticky = cell('affinity/windows-to-linux/sticky/win1/cluster-ip', 'win1', 'lin1');
    expect(matchesCell({ steps: ['backend-recreated'] }, churn)).to.be.true;
    expect(matchesCell({ steps: ['backend-deleted', 'scaled-back'] }, churn)).to.be.false;
    expect(matchesCell({ steps: ['backend-recreated'] }, p2p), 'no step').to.be.false;
    expect(matchesCell({ variants: ['sticky'] }, sticky)).to.be.true;
    expect(matchesCell({ variants: ['timeout'] }, sticky)).to.be.false;
    expect(matchesCell({ variants: ['sticky'] }, churn), 'no variant').to.be.false;
  });

  it('measures and networks pick only perf cells that run one of them', () => {
    const rr = cell('perf/tcp-rr/pod/linux-to-windows/cross-node/lin1/win1/ip', 'lin1', 'win1');
    expect(matchesCell({ measures: ['tcp-rr', 'udp-stream'] }, rr)).to.be.true;
    expect(matchesCell({ measures: ['tcp-stream'] }, rr)).to.be.false;
    expect(matchesCell({ measures: ['tcp-rr'] }, p2p), 'not a perf cell').to.be.false;
    expect(matchesCell({ networks: ['host', 'pod'] }, rr)).to.be.true;
    expect(matchesCell({ networks: ['service'] }, rr)).to.be.false;
    expect(matchesCell({ networks: ['pod'] }, p2p), 'not a perf cell').to.be.false;
  });

  it("targets are a pod, a Service's backends, none for cluster DNS or outside", () => {
    expect(targetNodes(cell('x', 'a', ' lin1 , lin2 ,,- '))).to.deep.equal(['lin1', 'lin2']);
    expect(targetNodes(svc)).to.deep.equal(['lin1', 'lin2', 'cp1']);
    expect(targetNodes(dns)).to.deep.equal([]);
    expect(targetNodes(cell('outbound-nat/linux/lin1/ip', 'lin1', 'outside'))).to.deep.equal([]);
  });

  it('describes itself in one line', () => {
    expect(
      describeSelector({
        kinds: ['pod-to-pod'],
        via: 'dns',
        from: ['win1'],
        toAll: ['cp1', 'lin1'],
      }),
    ).to.equal('pod-to-pod via dns from win1 to only cp1,lin1');
    expect(describeSelector({ kinds: ['dns'], lookup: 'search-list', from: ['win2'] })).to.equal(
      'dns search-list from win2',
    );
    expect(describeSelector({ via: 'dns' })).to.equal('any cell via dns');
    expect(
      describeSelector({
        kinds: ['churn', 'perf'],
        fromOs: 'external',
        toOs: 'linux',
        steps: ['backend-deleted', 'scaled-back'],
        variants: ['sticky', 'timeout'],
        measures: ['tcp-rr', 'udp-stream'],
        networks: ['pod', 'host'],
        toAny: ['lin1', 'win1'],
      }),
    ).to.equal(
      'churn|perf from external to linux after backend-deleted|scaled-back sticky|timeout ' +
        'measuring tcp-rr|udp-stream over pod|host network to any of lin1,win1',
    );
  });
});
