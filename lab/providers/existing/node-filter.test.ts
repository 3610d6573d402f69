import { expect } from 'chai';
import {
  NodeFilterSyntaxError,
  parseNodeNames,
  parseSelector,
  parseTolerations,
  selects,
  tolerates,
} from './node-filter.ts';

describe('NODE_SELECTOR, NODES and TOLERATIONS', () => {
  it('parses a label selector as kubectl -l takes it, and matches node labels', () => {
    const terms = parseSelector(
      'pool=hybrid, tier!=infra,gpu,!spot,zone in (a, b),arch notin (arm64)',
    );
    const labels = { pool: 'hybrid', tier: 'app', gpu: '', zone: 'b', arch: 'amd64' };
    expect(selects(terms, labels)).to.equal(true);
    expect(selects(terms, { ...labels, spot: 'true' })).to.equal(false);
    expect(selects(terms, { ...labels, zone: 'c' })).to.equal(false);
    expect(selects(parseSelector('pool==hybrid'), { pool: 'other' })).to.equal(false);
    expect(
      selects(parseSelector('kubernetes.io/os=windows'), { 'kubernetes.io/os': 'windows' }),
    ).to.equal(true);
  });

  it('refuses a selector that is no selector, naming the term', () => {
    expect(() => parseSelector('pool=hybrid,,x')).to.throw(NodeFilterSyntaxError, 'empty');
    expect(() => parseSelector('pool=a b')).to.throw(NodeFilterSyntaxError, 'pool=a b');
    expect(() => parseSelector('-bad=x')).to.throw(NodeFilterSyntaxError, 'not a label key');
  });

  it('parses NODES as node names and refuses anything else', () => {
    expect(parseNodeNames('lin1, win1,lin1')).to.deep.equal(['lin1', 'win1']);
    expect(() => parseNodeNames('lin1,Win_1')).to.throw(NodeFilterSyntaxError, '"Win_1"');
  });

  it('parses TOLERATIONS as kubectl taint writes taints: key=value:Effect, key:Effect, key=value, key', () => {
    expect(
      parseTolerations('CriticalAddonsOnly=true:NoSchedule,dedicated:NoExecute,spot=yes,gpu'),
    ).to.deep.equal([
      { key: 'CriticalAddonsOnly', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
      { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' },
      { key: 'spot', operator: 'Equal', value: 'yes' },
      { key: 'gpu', operator: 'Exists' },
    ]);
    expect(() => parseTolerations('a=b:NoSchedul')).to.throw(NodeFilterSyntaxError, 'NoSchedule');
    expect(() => parseTolerations('a=b c:NoSchedule')).to.throw(
      NodeFilterSyntaxError,
      'label value',
    );
  });

  it('tolerates as the scheduler does: key, operator, value and effect', () => {
    const taint = { key: 'dedicated', value: 'infra', effect: 'NoSchedule' };
    expect(tolerates({ key: 'dedicated', operator: 'Equal', value: 'infra' }, taint)).to.equal(
      true,
    );
    expect(
      tolerates({ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }, taint),
    ).to.equal(true);
    expect(tolerates({ key: 'dedicated', operator: 'Equal', value: 'db' }, taint)).to.equal(false);
    expect(
      tolerates({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, taint),
    ).to.equal(false);
    expect(tolerates({ operator: 'Exists' }, taint)).to.equal(true);
    // Values are case-sensitive: OpenShift's os=Windows is not sig-windows' os=windows.
    expect(
      tolerates(
        { key: 'os', operator: 'Equal', value: 'windows' },
        { key: 'os', value: 'Windows', effect: 'NoSchedule' },
      ),
    ).to.equal(false);
  });
});
