import { expect } from 'chai';
import { outboundNat, windowsCniConfig } from '../cni/windows-cni-config.ts';
import { fixturePlan } from '../testing/fixture-plan.ts';
import { FaultError } from './fault-error.ts';
import { editWindowsCni } from './windows-cni-edits.ts';

describe('Windows CNI config edits', () => {
  const plan = fixturePlan();
  const win1 = plan.nodes.find((n) => n.name === 'win1')!;
  const generated = windowsCniConfig(plan, win1);

  it('drops one CIDR from the v2 OutBoundNAT Settings.Exceptions and leaves the input alone', () => {
    const before = JSON.stringify(generated);
    const edited = editWindowsCni(
      generated,
      { kind: 'drop-exception', cidr: '10.96.0.0/12' },
      'win1',
    );
    expect(outboundNat(edited)).to.deep.equal({ enabled: true, exceptions: ['10.244.0.0/16'] });
    expect(JSON.stringify(generated)).to.equal(before);
  });

  it('drops it from a v1 ExceptionList in a config that asks for the v1 API', () => {
    const v1 = {
      delegate: {
        policies: [
          {
            Name: 'EndpointPolicy',
            Value: { Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16', '10.96.0.0/12'] },
          },
        ],
      },
    };
    const edited = editWindowsCni(v1, { kind: 'drop-exception', cidr: '10.244.0.0/16' }, 'win1');
    expect(outboundNat(edited).exceptions).to.deep.equal(['10.96.0.0/12']);
  });

  it('refuses a CIDR the list does not hold, naming the node', () => {
    expect(() =>
      editWindowsCni(generated, { kind: 'drop-exception', cidr: '10.0.0.0/8' }, 'win1'),
    ).to.throw(FaultError, /node win1: .*no 10\.0\.0\.0\/8/);
  });

  it('removes the search list and the runtime DNS capability', () => {
    const edited = editWindowsCni(
      generated,
      { kind: 'drop-dns-search' },
      'win1',
    ) as typeof generated;
    expect(edited.capabilities.dns).to.be.false;
    expect(edited.delegate.dns.Search).to.deep.equal([]);
    expect(edited.delegate.dns.Nameservers).to.deep.equal([plan.kubernetes.clusterDNS]);
  });

  it('refuses a config that is not an object', () => {
    expect(() => editWindowsCni('nope', { kind: 'drop-dns-search' }, 'win2')).to.throw(
      FaultError,
      /win2/,
    );
  });
});
