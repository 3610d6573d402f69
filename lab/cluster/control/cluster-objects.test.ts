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
import type { ClusterState, PodRecord, ServiceSpec } from './cluster-state.ts';
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

  it('checks the Service-feature fields as the API does, naming each', () => {
    const http = { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' as const };
    const base = { name: 'f', namespace: 'ns', type: 'ClusterIP' as const, selector: { a: 'b' } };
    const bad = (extra: object, message: RegExp) => {
      expect(() => {
        checkServiceSpec(state, { ...base, ports: [http], ...extra });
      }).to.throw(message);
    };
    bad({ sessionAffinity: 'Sticky' }, /service f sessionAffinity: expected None\|ClientIP/);
    bad(
      { affinityTimeoutSeconds: 5 },
      /affinityTimeoutSeconds: only with sessionAffinity ClientIP/,
    );
    bad({ sessionAffinity: 'ClientIP', affinityTimeoutSeconds: 0 }, /0 is not 1\.\.86400/);
    bad({ internalTrafficPolicy: 'Node' }, /internalTrafficPolicy: expected Cluster\|Local/);
    bad({ type: 'ExternalName' }, /externalName: given exactly for type ExternalName/);
    bad({ externalName: 'x.example' }, /externalName: given exactly for type ExternalName/);
    bad({ type: 'ExternalName', externalName: 'Not A Name' }, /'Not A Name' is not a DNS name/);
    bad({ endpoints: ['10.0.0.1'] }, /endpoints: only a Service without a selector/);
    bad({ selector: {}, endpoints: ['nope'] }, /endpoints: not IPv4 addresses: nope/);
    bad(
      { externalTrafficPolicy: 'Local' },
      /Local needs type NodePort or LoadBalancer, not ClusterIP/,
    );
    // What the suite deploys passes.
    for (const ok of [
      { sessionAffinity: 'ClientIP', affinityTimeoutSeconds: 1 },
      { internalTrafficPolicy: 'Local' },
      { type: 'LoadBalancer', externalTrafficPolicy: 'Local' },
      { type: 'ExternalName', externalName: 'echo.ns.svc.cluster.local', ports: [], selector: {} },
      { type: 'Headless', selector: {}, endpoints: ['198.51.100.1'] },
    ]) {
      expect(() => {
        checkServiceSpec(state, { ...base, ports: [http], ...ok } as unknown as ServiceSpec);
      }, JSON.stringify(ok)).to.not.throw();
    }
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

  it("answers an ExternalName Service with a CNAME, a selector-less one with its Endpoints; bare CNAMEs to one node's pods", () => {
    const state = initialState(plan, echo);
    state.services.push(
      {
        name: 'echo',
        namespace: 'ns',
        type: 'Headless',
        selector: {},
        ports: [],
        staticEndpoints: ['198.51.100.1'],
      },
      {
        name: 'ext',
        namespace: 'ns',
        type: 'ExternalName',
        selector: {},
        ports: [],
        externalName: 'echo.ns.svc.cluster.local',
      },
    );
    const zone = clusterZone(plan, state);
    expect(zone.records['echo.ns.svc.cluster.local']).to.deep.equal(['198.51.100.1']);
    expect(zone.records['ext.ns.svc.cluster.local']).to.equal(undefined);
    expect(zone.aliases).to.deep.equal({ 'ext.ns.svc.cluster.local': 'echo.ns.svc.cluster.local' });
    expect(zone.bareCnameClients).to.equal(undefined);
    state.bareCnameNodes = ['win1'];
    expect(clusterZone(plan, state).bareCnameClients).to.deep.equal(['10.244.2.0/24']);
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
