/**
 * kube-proxy's iptables mode, reduced to what the matrix exercises: ClusterIP and NodePort
 * DNAT spread over endpoints, masquerade for hairpin and off-cluster sources, REJECT without
 * endpoints. Pure: returns iptables-restore lines for one node.
 */
import { createHash } from 'node:crypto';
import type { LabPlan } from '../../plan/lab-plan.ts';
import type { ServicePort, ServiceRecord } from '../control/cluster-state.ts';

export const MASQ_MARK = '0x4000/0x4000';

export interface ServiceEndpoints {
  service: ServiceRecord;
  /** Ready endpoint IPs, stable order. */
  endpoints: string[];
}

/** Lines for iptables-restore, split by table and into chain declarations and rules. */
export interface TableLines {
  chains: string[];
  rules: string[];
}

export interface KubeProxyLines {
  nat: TableLines;
  filter: TableLines;
}

function chainName(kind: string, ...parts: string[]): string {
  const digest = createHash('sha256')
    .update(parts.join('/'))
    .digest('hex')
    .slice(0, 16)
    .toUpperCase();
  return `KUBE-${kind}-${digest}`;
}

function match(port: ServicePort, dport: number): string {
  const proto = port.protocol.toLowerCase();
  return `-p ${proto} -m ${proto} --dport ${dport}`;
}

/** kube-proxy's own probability format: n-th of N remaining endpoints wins 1/(N-n). */
function probability(remaining: number): string {
  return (1 / remaining).toFixed(10);
}

function comment(text: string): string {
  return `-m comment --comment "${text}"`;
}

/** The static part every node has, services or not. */
function baseLines(): KubeProxyLines {
  return {
    nat: {
      chains: ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ'],
      rules: [
        `-A PREROUTING ${comment('kubernetes service portals')} -j KUBE-SERVICES`,
        `-A OUTPUT ${comment('kubernetes service portals')} -j KUBE-SERVICES`,
        `-A POSTROUTING ${comment('kubernetes postrouting rules')} -j KUBE-POSTROUTING`,
        `-A KUBE-MARK-MASQ -j MARK --set-xmark ${MASQ_MARK}`,
        `-A KUBE-POSTROUTING -m mark ! --mark ${MASQ_MARK} -j RETURN`,
        '-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0',
        `-A KUBE-POSTROUTING ${comment('kubernetes service traffic requiring SNAT')} -j MASQUERADE`,
      ],
    },
    filter: {
      chains: ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES'],
      rules: [
        '-A INPUT -m conntrack --ctstate NEW -j KUBE-EXTERNAL-SERVICES',
        '-A FORWARD -m conntrack --ctstate NEW -j KUBE-SERVICES',
        '-A OUTPUT -m conntrack --ctstate NEW -j KUBE-SERVICES',
      ],
    },
  };
}

function servicePortLines(
  plan: LabPlan,
  svc: ServiceRecord,
  port: ServicePort,
  endpoints: string[],
  out: KubeProxyLines,
): void {
  const id = `${svc.namespace}/${svc.name}:${port.name}`;
  const clusterIP = svc.clusterIP;
  if (clusterIP === undefined) return;
  if (endpoints.length === 0) {
    const reject = `${comment(`${id} has no endpoints`)} -j REJECT --reject-with icmp-port-unreachable`;
    out.filter.rules.push(
      `-A KUBE-SERVICES -d ${clusterIP}/32 ${match(port, port.port)} ${reject}`,
    );
    if (port.nodePort !== undefined) {
      out.filter.rules.push(
        `-A KUBE-EXTERNAL-SERVICES -m addrtype --dst-type LOCAL ${match(port, port.nodePort)} ${reject}`,
      );
    }
    return;
  }
  const svcChain = chainName('SVC', id, port.protocol);
  out.nat.chains.push(svcChain);
  out.nat.rules.push(
    `-A KUBE-SERVICES -d ${clusterIP}/32 ${match(port, port.port)} ${comment(`${id} cluster IP`)} -j ${svcChain}`,
    // Off-cluster sources (nodes, outside) are masqueraded so replies come back through us.
    `-A ${svcChain} ! -s ${plan.kubernetes.podCIDR} -d ${clusterIP}/32 ${match(port, port.port)} -j KUBE-MARK-MASQ`,
  );
  endpoints.forEach((ip, i) => {
    const sepChain = chainName('SEP', id, port.protocol, ip);
    const remaining = endpoints.length - i;
    const pick =
      remaining > 1 ? `-m statistic --mode random --probability ${probability(remaining)} ` : '';
    out.nat.chains.push(sepChain);
    out.nat.rules.push(
      `-A ${svcChain} ${comment(`${id} -> ${ip}:${port.targetPort}`)} ${pick}-j ${sepChain}`,
      // Hairpin: a pod reaching itself through its service must not see its own address as source.
      `-A ${sepChain} -s ${ip}/32 -j KUBE-MARK-MASQ`,
      `-A ${sepChain} -p ${port.protocol.toLowerCase()} -j DNAT --to-destination ${ip}:${port.targetPort}`,
    );
  });
  if (port.nodePort !== undefined) {
    const extChain = chainName('EXT', id, port.protocol);
    out.nat.chains.push(extChain);
    out.nat.rules.push(
      `-A KUBE-NODEPORTS ${match(port, port.nodePort)} ${comment(`${id} node port`)} -j ${extChain}`,
      // externalTrafficPolicy: Cluster — the backend may be elsewhere, so SNAT to this node.
      `-A ${extChain} -j KUBE-MARK-MASQ`,
      `-A ${extChain} -j ${svcChain}`,
    );
  }
}

/** Every node gets the same service rules, as kube-proxy programs them on every node. */
export function kubeProxyLines(plan: LabPlan, services: ServiceEndpoints[]): KubeProxyLines {
  const out = baseLines();
  for (const { service, endpoints } of services) {
    if (service.type === 'Headless') continue;
    for (const port of service.ports) servicePortLines(plan, service, port, endpoints, out);
  }
  out.nat.rules.push(
    `-A KUBE-SERVICES ${comment('kubernetes service nodeports')} -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`,
  );
  return out;
}
