import { expect } from 'chai';
import { fixturePlan } from '../testing/fixture-plan.ts';
import {
  cniDns,
  hnsApiVersion,
  outboundNat,
  policyBodies,
  windowsCniConfig,
} from './windows-cni-config.ts';

function windowsNode(plan: ReturnType<typeof fixturePlan>) {
  const node = plan.nodes.find((n) => n.name === 'win1');
  if (node === undefined) throw new Error('fixture has no win1');
  return node;
}

describe('windowsCniConfig', () => {
  it('renders flannel with the win-overlay delegate on the HNS v2 API for vxlan (golden)', () => {
    const plan = fixturePlan({ backend: 'vxlan' });
    expect(windowsCniConfig(plan, windowsNode(plan))).to.deep.equal({
      cniVersion: '0.3.0',
      name: 'vxlan0',
      type: 'flannel',
      capabilities: { portMappings: true, dns: true },
      delegate: {
        type: 'win-overlay',
        apiVersion: 2,
        dns: { Nameservers: ['10.96.0.10'], Search: ['svc.cluster.local', 'cluster.local'] },
        policies: [
          {
            name: 'EndpointPolicy',
            value: {
              Type: 'OutBoundNAT',
              Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] },
            },
          },
          {
            name: 'EndpointPolicy',
            value: {
              Type: 'SDNRoute',
              Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
            },
          },
          {
            name: 'EndpointPolicy',
            value: { Type: 'ProviderAddress', Settings: { ProviderAddress: '192.168.200.12' } },
          },
        ],
      },
    });
  });

  it('renders flannel with the win-bridge (l2bridge) delegate on the HNS v2 API for host-gw (golden)', () => {
    const plan = fixturePlan({ backend: 'host-gw' });
    expect(windowsCniConfig(plan, windowsNode(plan))).to.deep.equal({
      cniVersion: '0.3.0',
      name: 'cbr0',
      type: 'flannel',
      capabilities: { portMappings: true, dns: true },
      delegate: {
        type: 'win-bridge',
        apiVersion: 2,
        dns: { Nameservers: ['10.96.0.10'], Search: ['svc.cluster.local', 'cluster.local'] },
        policies: [
          {
            name: 'EndpointPolicy',
            value: {
              Type: 'OutBoundNAT',
              Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12', '192.168.200.0/24'] },
            },
          },
          {
            name: 'EndpointPolicy',
            value: {
              Type: 'SDNRoute',
              Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
            },
          },
          {
            name: 'EndpointPolicy',
            value: {
              Type: 'SDNRoute',
              Settings: { DestinationPrefix: '192.168.200.12/32', NeedEncap: true },
            },
          },
        ],
      },
    });
  });

  it('asks win-overlay and win-bridge for the HCN (v2) API, which containerd attaches pods with', () => {
    for (const backend of ['vxlan', 'host-gw'] as const) {
      const plan = fixturePlan({ backend });
      const config = windowsCniConfig(plan, windowsNode(plan));
      expect(hnsApiVersion(config), backend).to.equal(2);
      // The plugin hands each policy's value to HCN as an hcn.EndpointPolicy: Type and Settings.
      for (const body of policyBodies(config)) {
        expect(Object.keys(body).sort(), `${backend} ${String(body.Type)}`).to.deep.equal([
          'Settings',
          'Type',
        ]);
        expect(['OutBoundNAT', 'SDNRoute', 'ProviderAddress']).to.include(body.Type);
      }
    }
  });

  it('refuses Linux nodes', () => {
    const plan = fixturePlan();
    expect(() => windowsCniConfig(plan, plan.nodes[0]!)).to.throw(/cp1 is linux/);
  });
});

describe('outboundNat', () => {
  it('reads the exceptions back from a generated config', () => {
    const plan = fixturePlan({ backend: 'host-gw' });
    expect(outboundNat(windowsCniConfig(plan, windowsNode(plan)))).to.deep.equal({
      enabled: true,
      exceptions: ['10.244.0.0/16', '10.96.0.0/12', '192.168.200.0/24'],
    });
  });

  it('reads what is on disk, not what should be there', () => {
    const plan = fixturePlan();
    const config = JSON.parse(JSON.stringify(windowsCniConfig(plan, windowsNode(plan)))) as {
      delegate: { policies: { value: { Settings: { Exceptions?: string[] } } }[] };
    };
    config.delegate.policies[0]!.value.Settings.Exceptions = ['10.96.0.0/12'];
    expect(outboundNat(config)).to.deep.equal({ enabled: true, exceptions: ['10.96.0.0/12'] });
  });

  it('reads each API in its own form: v2 Settings.Exceptions, v1 (and wincni AdditionalArgs) ExceptionList', () => {
    const wincni = {
      AdditionalArgs: [
        { Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', ExceptionList: ['11.0.0.0/8'] } },
      ],
    };
    const v2 = {
      delegate: {
        ApiVersion: 2,
        policies: [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/8'] } }],
      },
    };
    expect(outboundNat(wincni).exceptions).to.deep.equal(['11.0.0.0/8']);
    expect(outboundNat(v2).exceptions).to.deep.equal(['10.0.0.0/8']);
    // A v1 list in a v2 config, or the reverse, is not what the plugin hands on.
    const mixed = {
      delegate: {
        apiVersion: 2,
        policies: [
          { name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', ExceptionList: ['x'] } },
        ],
      },
    };
    expect(outboundNat(mixed)).to.deep.equal({ enabled: true, exceptions: [] });
    expect(outboundNat({ policies: v2.delegate.policies })).to.deep.equal({
      enabled: true,
      exceptions: [],
    });
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
