import { expect } from 'chai';
import { windowsCniConfig } from '../../cni/windows-cni-config.ts';
import { clusterZone, podDnsConfig, renderResolvConf } from '../dataplane/cluster-dns.ts';
import { initialState } from '../cluster-bootstrap.ts';
import {
  allocateClusterIp,
  allocateNodePort,
  allocatePodIp,
  checkServiceSpec,
} from './cluster-objects.ts';
import type { ClusterState, PodRecord } from './cluster-state.ts';
import { fixturePlan } from '../../testing/fixture-plan.ts';

const plan = fixturePlan();
const echo = { address: '198.51.100.1', httpPort: 8080, udpPort: 8081 };

function pod(name: string, node: string, ip: string, extra: Partial<PodRecord> = {}): PodRecord {
  return {
    name,
    namespace: 'default',
    node,
    ip,
    netns: `x-${name}`,
    phase: 'Running',
    program: 'netexec',
    logFile: '',
    labels: { app: 'web' },
    ...extra,
  };
}

describe('emulated cluster objects', () => {
  let state: ClusterState;
  beforeEach(() => {
    state = initialState(plan, echo);
  });

  it('allocates service IPs deterministically, never the API or DNS address', () => {
    expect(allocateClusterIp(plan, state)).to.equal('10.96.0.2');
    for (let i = 2; i <= 9; i++)
      state.services.push({
        name: `s${i}`,
        namespace: 'd',
        type: 'ClusterIP',
        selector: {},
        ports: [],
        clusterIP: `10.96.0.${i}`,
      });
    expect(allocateClusterIp(plan, state)).to.equal('10.96.0.11');
  });

  it('allocates NodePorts from the range and honours a free requested one', () => {
    expect(allocateNodePort(plan, state, new Set())).to.equal(30000);
    expect(allocateNodePort(plan, state, new Set([30000]))).to.equal(30001);
    expect(allocateNodePort(plan, state, new Set(), 31234)).to.equal(31234);
    expect(() => allocateNodePort(plan, state, new Set(), 80)).to.throw(/outside 30000-32767/);
  });

  it('allocates pod IPs from the node CIDR after the gateway', () => {
    const cp = plan.nodes[0]!;
    expect(allocatePodIp(cp, state)).to.equal('10.244.0.2');
    state.pods.push(pod('a', 'cp1', '10.244.0.2'));
    expect(allocatePodIp(cp, state)).to.equal('10.244.0.3');
  });

  it('rejects bad service specs with the field named', () => {
    const spec = {
      name: 'Web',
      namespace: 'default',
      type: 'ClusterIP' as const,
      selector: {},
      ports: [],
    };
    expect(() => {
      checkServiceSpec(state, spec);
    }).to.throw(/service name: 'Web' is not a DNS label/);
    expect(() => {
      checkServiceSpec(state, {
        ...spec,
        name: 'web',
        ports: [{ name: 'p', port: 0, targetPort: 80, protocol: 'TCP' }],
      });
    }).to.throw(/ports\[0\]\.port: 0 is not a port/);
    expect(() => {
      checkServiceSpec(state, { ...spec, name: 'kubernetes' });
    }).to.throw(/already exists/);
  });
});

describe('cluster DNS', () => {
  it('serves services, headless endpoints and pod hostnames, and kubernetes.default', () => {
    const state = initialState(plan, echo);
    state.services.push({
      name: 'hs',
      namespace: 'default',
      type: 'Headless',
      selector: { app: 'web' },
      ports: [],
    });
    state.pods.push(
      pod('a', 'cp1', '10.244.0.2', { hostname: 'web-0', subdomain: 'hs' }),
      pod('b', 'win1', '10.244.2.2'),
    );
    state.pods.push(pod('c', 'win1', '10.244.2.3', { phase: 'Pending' }));
    expect(clusterZone(plan, state)).to.deep.equal({
      domain: 'cluster.local',
      records: {
        'kubernetes.default.svc.cluster.local': ['10.96.0.1'],
        'hs.default.svc.cluster.local': ['10.244.0.2', '10.244.2.2'],
        'web-0.hs.default.svc.cluster.local': ['10.244.0.2'],
        'kube-dns.kube-system.svc.cluster.local': ['10.96.0.10'],
      },
    });
  });

  it('gives Linux pods kubelet resolv.conf', () => {
    expect(renderResolvConf(podDnsConfig(plan, plan.nodes[1]!, 'team'))).to.equal(
      'nameserver 10.96.0.10\nsearch team.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n',
    );
  });

  it("gives Windows pods kubelet's DNS when the CNI config has capabilities.dns", () => {
    const win = plan.nodes[2]!;
    const config = windowsCniConfig(plan, win);
    config.delegate.dns = { Nameservers: ['10.96.0.11'], Search: ['corp.example'] };
    expect(renderResolvConf(podDnsConfig(plan, win, 'team', config))).to.equal(
      'nameserver 10.96.0.10\nsearch team.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n',
    );
  });

  it("gives Windows pods the config's static dns section without capabilities.dns", () => {
    const win = plan.nodes[2]!;
    const config = windowsCniConfig(plan, win);
    config.capabilities.dns = false;
    config.delegate.dns = {
      Nameservers: ['10.96.0.10', '10.96.0.11'],
      Search: ['svc.cluster.local', 'corp.example'],
    };
    expect(renderResolvConf(podDnsConfig(plan, win, 'team', config))).to.equal(
      'nameserver 10.96.0.10\nnameserver 10.96.0.11\nsearch svc.cluster.local corp.example\noptions ndots:5\n',
    );
  });
});
