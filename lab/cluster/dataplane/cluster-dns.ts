/**
 * Cluster DNS: the zone the DNS pod serves (CoreDNS kubernetes-plugin records) and the
 * resolv.conf each pod gets: kubelet's (cluster DNS + search + ndots:5), except on Windows nodes
 * whose CNI config lacks capabilities.dns, where the config's static dns section applies.
 */
import { cniDns, runtimeDns } from '../../cni/windows-cni-config.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import { endpointIps, endpointPods } from '../control/cluster-objects.ts';
import type { ClusterState } from '../control/cluster-state.ts';

/** The dns-server.mjs zone file format. */
export interface Zone {
  domain: string;
  records: Record<string, string[]>;
  /** CNAMEs: ExternalName Services' names and the names they stand for. */
  aliases?: Record<string, string>;
  /** Clients (pod CIDRs) answered with a CNAME alone, not followed (fault injection). */
  bareCnameClients?: string[];
}

/**
 * Records for every Service (ClusterIP, or endpoints when headless), headless pod hostnames and
 * ExternalName Services (CNAMEs), as CoreDNS's kubernetes plugin answers them.
 */
export function clusterZone(plan: LabPlan, state: ClusterState): Zone {
  const domain = plan.kubernetes.dnsDomain;
  const records: Record<string, string[]> = {};
  const aliases: Record<string, string> = {};
  const add = (name: string, ips: string[]): void => {
    records[name] = [...(records[name] ?? []), ...ips];
  };
  const sorted = [...state.services].sort((a, b) =>
    `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
  );
  for (const svc of sorted) {
    const fqdn = `${svc.name}.${svc.namespace}.svc.${domain}`;
    if (svc.type === 'ExternalName') {
      if (svc.externalName !== undefined) aliases[fqdn] = svc.externalName;
      continue;
    }
    if (svc.type !== 'Headless') {
      if (svc.clusterIP !== undefined) add(fqdn, [svc.clusterIP]);
      continue;
    }
    add(fqdn, endpointIps(svc, state));
    for (const pod of endpointPods(svc, state)) {
      if (pod.subdomain === svc.name) add(`${pod.hostname ?? pod.name}.${fqdn}`, [pod.ip]);
    }
  }
  const bare = plan.nodes.filter((n) => state.bareCnameNodes?.includes(n.name) === true);
  return {
    domain,
    records,
    ...(Object.keys(aliases).length === 0 ? {} : { aliases }),
    ...(bare.length === 0 ? {} : { bareCnameClients: bare.map((n) => n.podCIDR) }),
  };
}

/** The search list and nameservers a pod in `namespace` on `node` gets. */
export function podDnsConfig(
  plan: LabPlan,
  node: PlannedNode,
  namespace: string,
  windowsCniConfig?: unknown,
): { nameservers: string[]; search: string[]; options: string[] } {
  const domain = plan.kubernetes.dnsDomain;
  const own = `${namespace}.svc.${domain}`;
  if (node.os === 'windows' && windowsCniConfig !== undefined && !runtimeDns(windowsCniConfig)) {
    const dns = cniDns(windowsCniConfig);
    return { nameservers: dns.Nameservers, search: dns.Search, options: ['ndots:5'] };
  }
  return {
    nameservers: [plan.kubernetes.clusterDNS],
    search: [own, `svc.${domain}`, domain],
    options: ['ndots:5'],
  };
}

export function renderResolvConf(config: {
  nameservers: string[];
  search: string[];
  options: string[];
}): string {
  return [
    ...config.nameservers.map((ns) => `nameserver ${ns}`),
    ...(config.search.length > 0 ? [`search ${config.search.join(' ')}`] : []),
    ...(config.options.length > 0 ? [`options ${config.options.join(' ')}`] : []),
    '',
  ].join('\n');
}
