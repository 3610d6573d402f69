/**
 * kube-proxy's iptables mode, reduced to what the matrix exercises: ClusterIP and NodePort
 * DNAT spread over endpoints, masquerade for hairpin and off-cluster sources, REJECT without
 * endpoints, ClientIP session affinity (`recent` lists), internalTrafficPolicy Local. Pure:
 * returns iptables-restore lines for one node.
 */
import { createHash } from 'node:crypto';
import { contains, parseCidr } from '../../net/ipv4.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type { ServicePort, ServiceRecord } from '../control/cluster-state.ts';

export const MASQ_MARK = '0x4000/0x4000';
/** What kube-proxy marks for its firewall chain to drop (externalTrafficPolicy Local, no local endpoint). */
export const DROP_MARK = '0x8000/0x8000';
/** sessionAffinityConfig.clientIP.timeoutSeconds when a ClientIP Service gives none (Kubernetes' default). */
export const DEFAULT_AFFINITY_SECONDS = 10_800;

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
      chains: [
        'KUBE-SERVICES',
        'KUBE-NODEPORTS',
        'KUBE-POSTROUTING',
        'KUBE-MARK-MASQ',
        'KUBE-MARK-DROP',
      ],
      rules: [
        `-A PREROUTING ${comment('kubernetes service portals')} -j KUBE-SERVICES`,
        `-A OUTPUT ${comment('kubernetes service portals')} -j KUBE-SERVICES`,
        `-A POSTROUTING ${comment('kubernetes postrouting rules')} -j KUBE-POSTROUTING`,
        `-A KUBE-MARK-MASQ -j MARK --set-xmark ${MASQ_MARK}`,
        `-A KUBE-MARK-DROP -j MARK --set-xmark ${DROP_MARK}`,
        `-A KUBE-POSTROUTING -m mark ! --mark ${MASQ_MARK} -j RETURN`,
        '-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0',
        `-A KUBE-POSTROUTING ${comment('kubernetes service traffic requiring SNAT')} -j MASQUERADE`,
      ],
    },
    filter: {
      chains: ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-FIREWALL'],
      rules: [
        '-A INPUT -m conntrack --ctstate NEW -j KUBE-EXTERNAL-SERVICES',
        '-A INPUT -j KUBE-FIREWALL',
        '-A FORWARD -m conntrack --ctstate NEW -j KUBE-SERVICES',
        '-A OUTPUT -m conntrack --ctstate NEW -j KUBE-SERVICES',
        '-A OUTPUT -j KUBE-FIREWALL',
        `-A KUBE-FIREWALL ${comment('kubernetes firewall for dropping marked packets')} -m mark --mark ${DROP_MARK} -j DROP`,
      ],
    },
  };
}

/**
 * Appends rules that pick one of `endpoints` (by their SEP chains) at random, as kube-proxy does;
 * with `affinitySeconds`, a client seen within that many seconds goes first to the endpoint it
 * went to (its SEP chain's `recent` list).
 */
function pickEndpoint(
  chain: string,
  id: string,
  port: ServicePort,
  endpoints: readonly string[],
  out: KubeProxyLines,
  affinitySeconds?: number,
): void {
  if (affinitySeconds !== undefined) {
    for (const ip of endpoints) {
      const sepChain = chainName('SEP', id, port.protocol, ip);
      out.nat.rules.push(
        `-A ${chain} ${comment(id)} -m recent --name ${sepChain} --rcheck --seconds ${affinitySeconds} --reap -j ${sepChain}`,
      );
    }
  }
  endpoints.forEach((ip, i) => {
    const remaining = endpoints.length - i;
    const pick =
      remaining > 1 ? `-m statistic --mode random --probability ${probability(remaining)} ` : '';
    const sepChain = chainName('SEP', id, port.protocol, ip);
    out.nat.rules.push(
      `-A ${chain} ${comment(`${id} -> ${ip}:${port.targetPort}`)} ${pick}-j ${sepChain}`,
    );
  });
}

/**
 * The NodePort rules of an externalTrafficPolicy Local port on `node` (kube-proxy's XLB chain):
 * pods and the node itself go the cluster way; outside traffic goes to the node's own endpoints
 * unmasqueraded, or is dropped when it has none. A Windows node without DSR masquerades it.
 */
function localNodePortLines(
  plan: LabPlan,
  node: PlannedNode,
  id: string,
  port: ServicePort,
  endpoints: readonly string[],
  svcChain: string,
  out: KubeProxyLines,
  affinitySeconds?: number,
): string {
  const xlbChain = chainName('XLB', id, port.protocol);
  const local = localTo(node, endpoints);
  out.nat.chains.push(xlbChain);
  out.nat.rules.push(
    `-A ${xlbChain} -s ${plan.kubernetes.podCIDR} ${comment('Redirect pods trying to reach external loadbalancer VIP to clusterIP')} -j ${svcChain}`,
    `-A ${xlbChain} ${comment('masquerade LOCAL traffic')} -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
    `-A ${xlbChain} ${comment('route LOCAL traffic to service')} -m addrtype --src-type LOCAL -j ${svcChain}`,
  );
  if (local.length === 0) {
    out.nat.rules.push(
      `-A ${xlbChain} ${comment(`${id} has no local endpoints`)} -j KUBE-MARK-DROP`,
    );
    return xlbChain;
  }
  if (node.os === 'windows' && !plan.windows.dsr) {
    // Without DSR, Windows' load balancer cannot keep the client address (a documented limitation).
    out.nat.rules.push(
      `-A ${xlbChain} ${comment('Windows without DSR: client SNATed')} -j KUBE-MARK-MASQ`,
    );
  }
  pickEndpoint(xlbChain, id, port, local, out, affinitySeconds);
  return xlbChain;
}

/** The endpoints in `node`'s own pod network. */
function localTo(node: PlannedNode, endpoints: readonly string[]): string[] {
  const podCidr = parseCidr(node.podCIDR);
  return endpoints.filter((ip) => podCidr !== undefined && contains(podCidr, ip));
}

/**
 * internalTrafficPolicy Local (kube-proxy's SVL chain): traffic to the ClusterIP from inside the
 * cluster goes to the node's own endpoints only, and is dropped where the node has none.
 */
function internalLocalLines(
  node: PlannedNode,
  id: string,
  port: ServicePort,
  endpoints: readonly string[],
  out: KubeProxyLines,
  affinitySeconds?: number,
): string {
  const svlChain = chainName('SVL', id, port.protocol);
  const local = localTo(node, endpoints);
  out.nat.chains.push(svlChain);
  if (local.length === 0) {
    out.nat.rules.push(
      `-A ${svlChain} ${comment(`${id} has no local endpoints`)} -j KUBE-MARK-DROP`,
    );
  } else {
    pickEndpoint(svlChain, id, port, local, out, affinitySeconds);
  }
  return svlChain;
}

function servicePortLines(
  plan: LabPlan,
  node: PlannedNode,
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
  const affinity =
    svc.sessionAffinity === 'ClientIP'
      ? (svc.affinityTimeoutSeconds ?? DEFAULT_AFFINITY_SECONDS)
      : undefined;
  // Windows kube-proxy does not implement internalTrafficPolicy (upstream's e2e skips it there).
  const internalLocal = svc.internalTrafficPolicy === 'Local' && node.os !== 'windows';
  const clusterChain = internalLocal
    ? internalLocalLines(node, id, port, endpoints, out, affinity)
    : svcChain;
  out.nat.chains.push(svcChain);
  out.nat.rules.push(
    `-A KUBE-SERVICES -d ${clusterIP}/32 ${match(port, port.port)} ${comment(`${id} cluster IP`)} -j ${clusterChain}`,
    // Off-cluster sources (nodes, outside) are masqueraded so replies come back through us.
    `-A ${svcChain} ! -s ${plan.kubernetes.podCIDR} -d ${clusterIP}/32 ${match(port, port.port)} -j KUBE-MARK-MASQ`,
  );
  pickEndpoint(svcChain, id, port, endpoints, out, affinity);
  const proto = port.protocol.toLowerCase();
  const remember = (sepChain: string) =>
    affinity === undefined ? '' : `-m recent --name ${sepChain} --set `;
  for (const ip of endpoints) {
    const sepChain = chainName('SEP', id, port.protocol, ip);
    out.nat.chains.push(sepChain);
    out.nat.rules.push(
      // Hairpin: a pod reaching itself through its service must not see its own address as source.
      `-A ${sepChain} -s ${ip}/32 -j KUBE-MARK-MASQ`,
      `-A ${sepChain} ${remember(sepChain)}-p ${proto} -j DNAT --to-destination ${ip}:${port.targetPort}`,
    );
  }
  if (port.nodePort === undefined) return;
  let extChain: string;
  if (svc.externalTrafficPolicy === 'Local') {
    extChain = localNodePortLines(plan, node, id, port, endpoints, svcChain, out, affinity);
  } else {
    extChain = chainName('EXT', id, port.protocol);
    out.nat.chains.push(extChain);
    out.nat.rules.push(
      // externalTrafficPolicy: Cluster — the backend may be elsewhere, so SNAT to this node.
      `-A ${extChain} -j KUBE-MARK-MASQ`,
      `-A ${extChain} -j ${svcChain}`,
    );
  }
  out.nat.rules.push(
    `-A KUBE-NODEPORTS ${match(port, port.nodePort)} ${comment(`${id} node port`)} -j ${extChain}`,
  );
}

/**
 * `node`'s service rules, as its kube-proxy programs them: the same on every node but for
 * externalTrafficPolicy Local, which sends to the node's own endpoints only.
 */
export function kubeProxyLines(
  plan: LabPlan,
  node: PlannedNode,
  services: ServiceEndpoints[],
): KubeProxyLines {
  const out = baseLines();
  if (node.os === 'windows') {
    // Windows' load balancer does not serve a node's own NodePorts to the node itself (a
    // documented limitation): the node's own connections to them are dropped.
    const { min, max } = plan.kubernetes.nodePortRange;
    for (const proto of ['tcp', 'udp']) {
      out.nat.rules.unshift(
        `-A OUTPUT -m addrtype --dst-type LOCAL -p ${proto} -m ${proto} --dport ${min}:${max} ${comment('Windows: local NodePort access from the node itself fails')} -j KUBE-MARK-DROP`,
      );
    }
  }
  for (const { service, endpoints } of services) {
    if (service.type === 'Headless' || service.type === 'ExternalName') continue;
    for (const port of service.ports) servicePortLines(plan, node, service, port, endpoints, out);
  }
  out.nat.rules.push(
    `-A KUBE-SERVICES ${comment('kubernetes service nodeports')} -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`,
  );
  return out;
}
