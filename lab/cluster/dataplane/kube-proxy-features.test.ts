import { expect } from 'chai';
import type { ServiceRecord } from '../control/cluster-state.ts';
import type { PlannedNode } from '../../plan/lab-plan.ts';
import { fixturePlan } from '../../testing/fixture-plan.ts';
import { DEFAULT_AFFINITY_SECONDS, kubeProxyLines } from './kube-proxy-rules.ts';
import { servicesSeenBy } from '../proxy-view.ts';
import { healthConfig } from '../health-check-sync.ts';
import { initialState } from '../cluster-bootstrap.ts';

const service = (extra: Partial<ServiceRecord>): ServiceRecord => ({
  name: 'web',
  namespace: 'ns',
  type: 'ClusterIP',
  selector: { app: 'web' },
  clusterIP: '10.96.0.2',
  ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
  ...extra,
});

describe('kube-proxy rules: session affinity, internalTrafficPolicy, health checks', () => {
  const plan = fixturePlan();
  const [cp1, lin1, win1] = plan.nodes as [PlannedNode, PlannedNode, PlannedNode];
  const ip = (node: PlannedNode, host: number) => node.podCIDR.replace(/0\/24$/, String(host));
  const endpoints = [ip(cp1, 5), ip(lin1, 5), ip(win1, 5)];

  it('ClientIP: a recent client goes back to its endpoint before the random pick; each DNAT records the client', () => {
    const { nat } = kubeProxyLines(plan, lin1, [
      { service: service({ sessionAffinity: 'ClientIP', affinityTimeoutSeconds: 2 }), endpoints },
    ]);
    const svc = nat.rules.filter((r) => /^-A KUBE-SVC-/.test(r) && r.includes('KUBE-SEP-'));
    // Three affinity checks, then the three probabilistic picks.
    expect(
      svc
        .slice(0, 3)
        .every((r) =>
          / -m recent --name (KUBE-SEP-\w+) --rcheck --seconds 2 --reap -j \1$/.test(r),
        ),
    ).to.equal(true);
    expect(svc.slice(3).every((r) => !r.includes('recent'))).to.equal(true);
    const dnat = nat.rules.filter((r) => r.includes('DNAT'));
    expect(dnat).to.have.length(3);
    for (const r of dnat)
      expect(r).to.match(/^-A (KUBE-SEP-\w+) -m recent --name \1 --set -p tcp -j DNAT/);
    const plain = kubeProxyLines(plan, lin1, [{ service: service({}), endpoints }]).nat.rules;
    expect(plain.filter((r) => r.includes('recent'))).to.deep.equal([]);
    const defaulted = kubeProxyLines(plan, lin1, [
      { service: service({ sessionAffinity: 'ClientIP' }), endpoints },
    ]).nat.rules;
    expect(defaulted.some((r) => r.includes(`--seconds ${DEFAULT_AFFINITY_SECONDS} `))).to.equal(
      true,
    );
  });

  it('internalTrafficPolicy Local: a Linux node sends its pods to its own endpoints only, and drops where it has none', () => {
    const local = service({ internalTrafficPolicy: 'Local' });
    const on = (node: PlannedNode, eps = endpoints) =>
      kubeProxyLines(plan, node, [{ service: local, endpoints: eps }]).nat.rules;
    const entry = (rules: string[]) =>
      rules.find((r) => r.startsWith('-A KUBE-SERVICES -d 10.96.0.2/32'))!.split(' -j ')[1]!;
    const lin = on(lin1);
    const svl = entry(lin);
    expect(svl).to.match(/^KUBE-SVL-/);
    expect(lin.filter((r) => r.startsWith(`-A ${svl} `))).to.have.length(1);
    expect(lin.find((r) => r.startsWith(`-A ${svl} `))).to.not.include('statistic');
    const withoutOwn = on(lin1, [ip(cp1, 5), ip(win1, 5)]);
    expect(withoutOwn.filter((r) => r.startsWith(`-A ${entry(withoutOwn)} `))).to.deep.equal([
      `-A ${entry(withoutOwn)} -m comment --comment "ns/web:http has no local endpoints" -j KUBE-MARK-DROP`,
    ]);
    // Windows kube-proxy does not implement the policy: every endpoint, as Cluster.
    expect(entry(on(win1))).to.match(/^KUBE-SVC-/);
  });

  it("what a node's kube-proxy gets wrong: affinity and the internal policy ignored, ports keyed by number", () => {
    const state = initialState(plan, { address: '198.51.100.1', httpPort: 8080, udpPort: 8081 });
    state.services.push(
      service({
        name: 'dual',
        sessionAffinity: 'ClientIP',
        internalTrafficPolicy: 'Local',
        ports: [
          { name: 'tcp', port: 8080, targetPort: 8080, protocol: 'TCP' },
          { name: 'udp', port: 8080, targetPort: 8081, protocol: 'UDP' },
        ],
        staticEndpoints: endpoints,
      }),
    );
    const seen = (node: string) =>
      servicesSeenBy(node, state).find((s) => s.service.name === 'dual')!.service;
    expect(seen('lin1')).to.include({
      sessionAffinity: 'ClientIP',
      internalTrafficPolicy: 'Local',
    });
    expect(seen('lin1').ports).to.have.length(2);
    state.proxyQuirks = {
      lin1: ['ignores-affinity', 'ignores-internal-policy', 'ports-by-number'],
    };
    expect(seen('lin1')).to.include({ sessionAffinity: 'None', internalTrafficPolicy: 'Cluster' });
    expect(seen('lin1').ports.map((p) => p.protocol)).to.deep.equal(['TCP']);
    expect(seen('cp1').ports).to.have.length(2);
    // kube-dns's UDP and TCP 53: the TCP one is lost there too.
    const dns = servicesSeenBy('lin1', state).find((s) => s.service.name === 'kube-dns')!.service;
    expect(dns.ports.map((p) => p.protocol)).to.deep.equal(['UDP']);
  });

  it('health checks: each node reports its own endpoints of each LoadBalancer Local Service (all of them when counting wrong)', () => {
    const lb = service({
      name: 'health',
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 31000,
    });
    const seen = [
      { service: lb, endpoints: [ip(cp1, 5), ip(cp1, 6), ip(lin1, 5)] },
      { service: service({}), endpoints },
    ];
    expect(healthConfig(cp1, seen)).to.deep.equal({
      services: [{ port: 31000, namespace: 'ns', name: 'health', localEndpoints: 2 }],
    });
    expect(healthConfig(win1, seen).services[0]?.localEndpoints).to.equal(0);
    expect(healthConfig(win1, seen, true).services[0]?.localEndpoints).to.equal(3);
  });
});
