import { expect } from 'chai';
import { fixturePlan } from '../testing/fixture-plan.ts';
import { cniDns, outboundNat, windowsCniConfig } from './windows-cni-config.ts';

function windowsNode(plan: ReturnType<typeof fixturePlan>) {
  const node = plan.nodes.find((n) => n.name === 'win1');
  if (node === undefined) throw new Error('fixture has no win1');
  return node;
}

describe('windowsCniConfig', () => {
  it('renders flannel with the win-overlay delegate for vxlan (golden)', () => {
    const plan = fixturePlan({ backend: 'vxlan' });
    expect(windowsCniConfig(plan, windowsNode(plan))).to.deep.equal({
      cniVersion: '0.3.0',
      name: 'vxlan0',
      type: 'flannel',
      capabilities: { portMappings: true, dns: true },
      delegate: {
        type: 'win-overlay',
        dns: { Nameservers: ['10.96.0.10'], Search: ['svc.cluster.local', 'cluster.local'] },
        policies: [
          {
            Name: 'EndpointPolicy',
            Value: { Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16', '10.96.0.0/12'] },
          },
          {
            Name: 'EndpointPolicy',
            Value: { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
          },
        ],
      },
    });
  });

  it('renders flannel with the win-bridge (l2bridge) delegate for host-gw (golden)', () => {
    const plan = fixturePlan({ backend: 'host-gw' });
    expect(windowsCniConfig(plan, windowsNode(plan))).to.deep.equal({
      cniVersion: '0.3.0',
      name: 'cbr0',
      type: 'flannel',
      capabilities: { portMappings: true, dns: true },
      delegate: {
        type: 'win-bridge',
        dns: { Nameservers: ['10.96.0.10'], Search: ['svc.cluster.local', 'cluster.local'] },
        policies: [
          {
            Name: 'EndpointPolicy',
            Value: {
              Type: 'OutBoundNAT',
              ExceptionList: ['10.244.0.0/16', '10.96.0.0/12', '192.168.200.0/24'],
            },
          },
          {
            Name: 'EndpointPolicy',
            Value: { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
          },
          {
            Name: 'EndpointPolicy',
            Value: { Type: 'ROUTE', DestinationPrefix: '192.168.200.12/32', NeedEncap: true },
          },
        ],
      },
    });
  });

  it('refuses Linux nodes', () => {
    const plan = fixturePlan();
    expect(() => windowsCniConfig(plan, plan.nodes[0]!)).to.throw(/cp1 is linux/);
  });
});

describe('outboundNat', () => {
  it('reads the ExceptionList back from a generated config', () => {
    const plan = fixturePlan({ backend: 'host-gw' });
    expect(outboundNat(windowsCniConfig(plan, windowsNode(plan)))).to.deep.equal({
      enabled: true,
      exceptions: ['10.244.0.0/16', '10.96.0.0/12', '192.168.200.0/24'],
    });
  });

  it('reads what is on disk, not what should be there', () => {
    const plan = fixturePlan();
    const config = JSON.parse(JSON.stringify(windowsCniConfig(plan, windowsNode(plan)))) as {
      delegate: { policies: { Value: { ExceptionList?: string[] } }[] };
    };
    config.delegate.policies[0]!.Value.ExceptionList = ['10.96.0.0/12'];
    expect(outboundNat(config)).to.deep.equal({ enabled: true, exceptions: ['10.96.0.0/12'] });
  });

  it('reads the wincni AdditionalArgs form and the HNS v2 Settings form', () => {
    const wincni = {
      AdditionalArgs: [
        { Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', ExceptionList: ['11.0.0.0/8'] } },
      ],
    };
    const v2 = {
      delegate: { policies: [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/8'] } }] },
    };
    expect(outboundNat(wincni).exceptions).to.deep.equal(['11.0.0.0/8']);
    expect(outboundNat(v2).exceptions).to.deep.equal(['10.0.0.0/8']);
  });

  it('says disabled when there is no OutBoundNAT policy', () => {
    expect(outboundNat({ delegate: { policies: [] } })).to.deep.equal({
      enabled: false,
      exceptions: [],
    });
    expect(outboundNat(null)).to.deep.equal({ enabled: false, exceptions: [] });
  });
});

describe('cniDns', () => {
  it('reads the delegate dns section', () => {
    const plan = fixturePlan();
    expect(cniDns(windowsCniConfig(plan, windowsNode(plan)))).to.deep.equal({
      Nameservers: ['10.96.0.10'],
      Search: ['svc.cluster.local', 'cluster.local'],
    });
  });

  it('falls back to a top-level dns section', () => {
    expect(cniDns({ dns: { Nameservers: ['10.0.0.10'] } })).to.deep.equal({
      Nameservers: ['10.0.0.10'],
      Search: [],
    });
  });
});
