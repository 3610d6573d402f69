import { expect } from 'chai';
import { outboundNat, windowsCniConfig } from '../../cni/windows-cni-config.ts';
import type { ServiceRecord } from '../control/cluster-state.ts';
import type { PlannedNode } from '../../plan/lab-plan.ts';
import { fixturePlan } from '../../testing/fixture-plan.ts';
import { kubeProxyLines } from './kube-proxy-rules.ts';
import { renderNodeRules } from './node-rules.ts';

const web: ServiceRecord = {
  name: 'web',
  namespace: 'default',
  type: 'NodePort',
  selector: { app: 'web' },
  clusterIP: '10.96.0.2',
  ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 30000 }],
};

describe('kube-proxy rules', () => {
  const plan = fixturePlan();
  const [cp1, lin1, win1] = plan.nodes as [PlannedNode, PlannedNode, PlannedNode];

  it('spreads a ClusterIP over its endpoints and DNATs to the target port', () => {
    const { nat } = kubeProxyLines(plan, cp1, [
      { service: web, endpoints: ['10.244.1.2', '10.244.2.2', '10.244.3.2'] },
    ]);
    const jumps = nat.rules.filter((r) => /^-A KUBE-SVC-\w+ -m comment .* -j KUBE-SEP-/.test(r));
    expect(jumps).to.have.length(3);
    expect(jumps[0]).to.contain('--probability 0.3333333333');
    expect(jumps[1]).to.contain('--probability 0.5000000000');
    expect(jumps[2]).not.to.contain('statistic');
    expect(nat.rules.filter((r) => r.includes('DNAT'))).to.deep.equal(
      ['10.244.1.2', '10.244.2.2', '10.244.3.2'].map((ip) =>
        nat.rules.find((r) => r.endsWith(`--to-destination ${ip}:8080`)),
      ),
    );
    expect(
      nat.rules.some((r) =>
        r.startsWith('-A KUBE-SERVICES -d 10.96.0.2/32 -p tcp -m tcp --dport 80'),
      ),
    ).to.equal(true);
  });

  it('masquerades hairpin traffic only (source = the chosen endpoint)', () => {
    const { nat } = kubeProxyLines(plan, cp1, [{ service: web, endpoints: ['10.244.1.2'] }]);
    expect(
      nat.rules.filter((r) => r.includes('-s 10.244.1.2/32 -j KUBE-MARK-MASQ')),
    ).to.have.length(1);
  });

  it('opens the NodePort on every local address and SNATs it (externalTrafficPolicy Cluster)', () => {
    const { nat } = kubeProxyLines(plan, cp1, [{ service: web, endpoints: ['10.244.1.2'] }]);
    const ext = nat.rules.find((r) =>
      r.startsWith('-A KUBE-NODEPORTS -p tcp -m tcp --dport 30000'),
    );
    const chain = ext?.split(' -j ')[1];
    expect(nat.rules).to.include(`-A ${chain} -j KUBE-MARK-MASQ`);
    expect(nat.rules.at(-1)).to.contain('--dst-type LOCAL -j KUBE-NODEPORTS');
  });

  describe('externalTrafficPolicy Local', () => {
    const local: ServiceRecord = { ...web, externalTrafficPolicy: 'Local' };
    const endpoints = ['10.244.1.2', '10.244.2.2', '10.244.3.2'];
    /** The rules of the node port's chain on `node`. */
    const nodePortChain = (node: PlannedNode, dsr = true): string[] => {
      const { nat } = kubeProxyLines({ ...plan, windows: { dsr } }, node, [
        { service: local, endpoints },
      ]);
      const jump = nat.rules.find((r) =>
        r.startsWith('-A KUBE-NODEPORTS -p tcp -m tcp --dport 30000'),
      );
      const chain = jump?.split(' -j ')[1] ?? '';
      expect(chain).to.match(/^KUBE-XLB-/);
      return nat.rules.filter((r) => r.startsWith(`-A ${chain} `));
    };

    it("sends outside traffic to the node's own endpoint only, unmasqueraded", () => {
      const rules = nodePortChain(lin1);
      const toEndpoints = rules.filter((r) => r.includes('-j KUBE-SEP-'));
      expect(toEndpoints).to.have.length(1);
      expect(toEndpoints[0]).to.contain('10.244.1.2:8080').and.not.contain('statistic');
      // Only pods (the cluster way) and the node's own traffic are masqueraded.
      const masq = rules.filter((r) => r.endsWith('-j KUBE-MARK-MASQ'));
      expect(masq).to.have.length(1);
      expect(masq[0]).to.contain('--src-type LOCAL');
      expect(rules[0]).to.match(/-s 10\.244\.0\.0\/16 .*-j KUBE-SVC-/);
    });

    it('drops it on a node without an endpoint (marked for the firewall chain)', () => {
      const rules = nodePortChain(cp1);
      expect(rules.some((r) => r.includes('-j KUBE-SEP-'))).to.equal(false);
      expect(rules.at(-1))
        .to.contain('has no local endpoints')
        .and.match(/-j KUBE-MARK-DROP$/);
      const { filter } = kubeProxyLines(plan, cp1, [{ service: local, endpoints }]);
      expect(filter.rules).to.include('-A INPUT -j KUBE-FIREWALL');
      expect(
        filter.rules.some((r) => r.startsWith('-A KUBE-FIREWALL') && r.endsWith('-j DROP')),
      ).to.equal(true);
    });

    it('masquerades it on a Windows node without DSR, not with DSR', () => {
      const winEndpoints = (dsr: boolean) =>
        nodePortChain(win1, dsr).filter(
          (r) => !r.includes('--src-type LOCAL') && !r.includes('-s 10.244.0.0/16'),
        );
      expect(winEndpoints(false)[0])
        .to.contain('Windows without DSR')
        .and.match(/-j KUBE-MARK-MASQ$/);
      expect(winEndpoints(true).some((r) => r.endsWith('-j KUBE-MARK-MASQ'))).to.equal(false);
    });
  });

  it('rejects traffic to a Service without endpoints, and ignores headless Services', () => {
    const headless: ServiceRecord = { ...web, name: 'hs', type: 'Headless', ports: [] };
    const { nat, filter } = kubeProxyLines(plan, cp1, [
      { service: web, endpoints: [] },
      { service: headless, endpoints: ['10.244.1.2'] },
    ]);
    expect(
      filter.rules.some((r) => r.includes('-d 10.96.0.2/32') && r.includes('REJECT')),
    ).to.equal(true);
    expect(nat.rules.some((r) => r.includes('DNAT'))).to.equal(false);
  });
});

describe('node rules (outbound NAT, Windows limitations)', () => {
  const plan = fixturePlan();
  const win1 = plan.nodes[2]!;

  it('masquerades Linux pod traffic leaving the cluster, not pod to pod (flannel ip-masq)', () => {
    const rules = renderNodeRules(plan, plan.nodes[0]!, []);
    expect(rules).to.contain(
      '-A FLANNEL-POSTRTG -s 10.244.0.0/16 -d 10.244.0.0/16 -m comment --comment "flanneld masq" -j RETURN',
    );
    expect(rules).to.contain(
      '-A FLANNEL-POSTRTG -s 10.244.0.0/16 ! -d 224.0.0.0/4 -m comment --comment "flanneld masq" -j MASQUERADE',
    );
    expect(rules).not.to.contain('HL-WIN-OUTBOUNDNAT');
  });

  it('SNATs Windows pod traffic to the node unless the original destination is in the ExceptionList read back', () => {
    const policy = outboundNat(windowsCniConfig(plan, win1));
    const rules = renderNodeRules(plan, win1, [], policy);
    expect(rules).to.contain(
      '-A POSTROUTING -s 10.244.2.0/24 -m comment --comment "windows OutBoundNAT (emulated)" -j HL-WIN-OUTBOUNDNAT',
    );
    expect(rules).to.contain(
      '-A HL-WIN-OUTBOUNDNAT -m conntrack --ctorigdst 10.244.0.0/16 -j RETURN',
    );
    expect(rules).to.contain(
      '-A HL-WIN-OUTBOUNDNAT -m conntrack --ctorigdst 10.96.0.0/12 -j RETURN',
    );
    expect(rules).to.contain('-j SNAT --to-source 192.168.200.12');
    expect(rules).not.to.contain('FLANNEL-POSTRTG');
  });

  it("drops Windows pods' echo requests OutBoundNAT would translate (ICMP cannot be), not to exceptions", () => {
    const rules = renderNodeRules(plan, win1, [], outboundNat(windowsCniConfig(plan, win1)));
    const icmp = rules.split('\n').filter((l) => l.includes('HL-WIN-ICMP'));
    expect(icmp).to.deep.equal([
      ':HL-WIN-ICMP - [0:0]',
      '-A FORWARD -s 10.244.2.0/24 -p icmp --icmp-type echo-request -j HL-WIN-ICMP',
      '-A HL-WIN-ICMP -d 10.244.0.0/16 -j RETURN',
      '-A HL-WIN-ICMP -d 10.96.0.0/12 -j RETURN',
      '-A HL-WIN-ICMP -m comment --comment "windows: NATed ICMP gets no reply (emulated)" -j DROP',
    ]);
    expect(renderNodeRules(plan, plan.nodes[0]!, [])).not.to.contain('HL-WIN-ICMP');
  });

  it("drops a Windows node's own connections to its NodePorts (documented), not a Linux node's", () => {
    const own = (node: PlannedNode) =>
      renderNodeRules(plan, node, [], outboundNat(windowsCniConfig(plan, win1)))
        .split('\n')
        .filter((l) => l.startsWith('-A OUTPUT') && l.includes('KUBE-MARK-DROP'));
    expect(own(win1)).to.have.length(2);
    expect(own(win1)[0]).to.contain('--dst-type LOCAL -p udp -m udp --dport 30000:32767');
    expect(own(plan.nodes[0]!)).to.deep.equal([]);
  });

  it('follows a broken ExceptionList, and refuses garbage in it', () => {
    const rules = renderNodeRules(plan, win1, [], { enabled: true, exceptions: ['10.96.0.0/12'] });
    expect(rules).not.to.contain('--ctorigdst 10.244.0.0/16');
    expect(() => renderNodeRules(plan, win1, [], { enabled: true, exceptions: ['pods'] })).to.throw(
      /not IPv4 CIDRs: pods/,
    );
  });

  it('is one iptables-restore document with the kube-proxy POSTROUTING jump before outbound NAT', () => {
    const rules = renderNodeRules(plan, plan.nodes[0]!, [
      { service: web, endpoints: ['10.244.1.2'] },
    ]);
    expect(rules.startsWith('*nat\n:PREROUTING ACCEPT [0:0]\n')).to.equal(true);
    expect(rules.match(/^COMMIT$/gm)).to.have.length(2);
    expect(rules.indexOf('-j KUBE-POSTROUTING')).to.be.lessThan(
      rules.indexOf('-j FLANNEL-POSTRTG'),
    );
  });
});
