/**
 * The CNI config the provisioner writes on a Windows node for flannel (win-overlay for vxlan,
 * win-bridge/l2bridge for host-gw), and readers of the parts the netns emulation honours.
 */
import { LabError } from '../errors.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { outboundNatExceptions } from '../plan/outbound-nat.ts';

/** HNS endpoint policy in the v1 (`Name`/`Value`) form win-overlay and win-bridge read. */
export interface HnsEndpointPolicy {
  Name: 'EndpointPolicy';
  Value:
    | { Type: 'OutBoundNAT'; ExceptionList: string[] }
    | { Type: 'ROUTE'; DestinationPrefix: string; NeedEncap: boolean };
}

export interface WindowsCniDns {
  Nameservers: string[];
  Search: string[];
}

export interface WindowsCniConfig {
  cniVersion: string;
  /** The HNS network name; Windows kube-proxy must use the same (KUBE_NETWORK). */
  name: string;
  type: 'flannel';
  capabilities: { portMappings: boolean; dns: boolean };
  delegate: {
    type: 'win-overlay' | 'win-bridge';
    dns: WindowsCniDns;
    policies: HnsEndpointPolicy[];
  };
}

/** The config for `node` (which must be a Windows node) as flannel's Windows DaemonSet expects. */
export function windowsCniConfig(plan: LabPlan, node: PlannedNode): WindowsCniConfig {
  if (node.os !== 'windows') {
    throw new LabError(`windowsCniConfig: node ${node.name} is ${node.os}, not windows`);
  }
  const { podCIDR, serviceCIDR, clusterDNS, dnsDomain } = plan.kubernetes;
  const bridge = plan.cni.backend === 'host-gw';
  const exceptions = outboundNatExceptions({
    podCIDR,
    serviceCIDR,
    labCIDR: plan.network.cidr,
    backend: plan.cni.backend,
  });
  // l2bridge pods reach their host by a route of their own.
  const routes = bridge ? [serviceCIDR, `${node.ip}/32`] : [serviceCIDR];
  return {
    cniVersion: '0.3.0',
    name: plan.cni.windowsNetworkName,
    type: 'flannel',
    capabilities: { portMappings: true, dns: true },
    delegate: {
      type: bridge ? 'win-bridge' : 'win-overlay',
      dns: { Nameservers: [clusterDNS], Search: [`svc.${dnsDomain}`, dnsDomain] },
      policies: [
        { Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', ExceptionList: exceptions } },
        ...routes.map((prefix): HnsEndpointPolicy => ({
          Name: 'EndpointPolicy',
          Value: { Type: 'ROUTE', DestinationPrefix: prefix, NeedEncap: true },
        })),
      ],
    },
  };
}

/** What an OutBoundNAT policy says: pod traffic is SNATed to the node unless sent to one of these. */
export interface OutboundNat {
  /** False when the config has no OutBoundNAT policy at all (then nothing is SNATed). */
  enabled: boolean;
  exceptions: string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Every policy of a config read back from disk: v1 `policies`/`AdditionalArgs`, v2 `Type`/`Settings`. */
function policiesOf(config: unknown): Json[] {
  if (!isObject(config)) return [];
  const holder = isObject(config.delegate) ? config.delegate : config;
  const lists = [holder.policies, holder.AdditionalArgs, config.policies, config.AdditionalArgs];
  const found = lists.find((list) => Array.isArray(list) && list.length > 0);
  return (Array.isArray(found) ? found : [])
    .filter(isObject)
    .map((p) => (isObject(p.Value) ? p.Value : p));
}

/** Reads the OutBoundNAT policy (and its exception CIDRs) back out of a Windows CNI config. */
export function outboundNat(config: unknown): OutboundNat {
  const policy = policiesOf(config).find((p) => String(p.Type).toLowerCase() === 'outboundnat');
  if (policy === undefined) return { enabled: false, exceptions: [] };
  const settings = isObject(policy.Settings) ? policy.Settings : {};
  return { enabled: true, exceptions: strings(policy.ExceptionList ?? settings.Exceptions) };
}

/**
 * Whether the config asks the runtime for per-pod DNS (`capabilities.dns`): then the plugin uses
 * kubelet's DNS for the pod (cluster DNS, the pod namespace's search list) instead of its static
 * dns section.
 */
export function runtimeDns(config: unknown): boolean {
  return isObject(config) && isObject(config.capabilities) && config.capabilities.dns === true;
}

/** Reads the dns section (delegate's or top level's) of a Windows CNI config. */
export function cniDns(config: unknown): WindowsCniDns {
  const holder = isObject(config) && isObject(config.delegate) ? config.delegate : config;
  const top = isObject(config) && isObject(config.dns) ? config.dns : {};
  const dns = isObject(holder) && isObject(holder.dns) ? holder.dns : top;
  return { Nameservers: strings(dns.Nameservers), Search: strings(dns.Search) };
}
