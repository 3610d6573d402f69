/**
 * The CNI config the provisioner writes on a Windows node for flannel (win-overlay for vxlan,
 * win-bridge/l2bridge for host-gw), and readers of the parts the netns emulation honours.
 *
 * containerd attaches pods through HCN (HNS v2) namespaces, so the delegate asks the plugins for
 * the v2 API (`apiVersion: 2`) and gives its policies in the v2 form: the facts catalogue's
 * `cni-hns-api-under-containerd`.
 */
import { LabError } from '../errors.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { outboundNatExceptions } from '../plan/outbound-nat.ts';

/** The HNS API version the delegate asks win-overlay and win-bridge for: HCN, as containerd needs. */
export const HCN_API_VERSION = 2;

/**
 * An HCN (HNS v2) endpoint policy as win-overlay and win-bridge read it with `apiVersion: 2`:
 * `value` is an hcn.EndpointPolicy (`Type` and its `Settings`).
 */
export interface HcnEndpointPolicy {
  name: 'EndpointPolicy';
  value:
    | { Type: 'OutBoundNAT'; Settings: { Exceptions: string[] } }
    | { Type: 'SDNRoute'; Settings: { DestinationPrefix: string; NeedEncap: boolean } }
    | { Type: 'ProviderAddress'; Settings: { ProviderAddress: string } };
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
    apiVersion: typeof HCN_API_VERSION;
    dns: WindowsCniDns;
    policies: HcnEndpointPolicy[];
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
  const policy = (value: HcnEndpointPolicy['value']): HcnEndpointPolicy => ({
    name: 'EndpointPolicy',
    value,
  });
  return {
    cniVersion: '0.3.0',
    name: plan.cni.windowsNetworkName,
    type: 'flannel',
    capabilities: { portMappings: true, dns: true },
    delegate: {
      type: bridge ? 'win-bridge' : 'win-overlay',
      apiVersion: HCN_API_VERSION,
      dns: { Nameservers: [clusterDNS], Search: [`svc.${dnsDomain}`, dnsDomain] },
      policies: [
        policy({ Type: 'OutBoundNAT', Settings: { Exceptions: exceptions } }),
        ...routes.map((prefix) =>
          policy({ Type: 'SDNRoute', Settings: { DestinationPrefix: prefix, NeedEncap: true } }),
        ),
        // Overlay endpoints are encapsulated to the node's own address (VXLAN's outer source).
        ...(bridge
          ? []
          : [policy({ Type: 'ProviderAddress', Settings: { ProviderAddress: node.ip } })]),
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

/**
 * A field of a config read back from disk, its key matched as the plugins' Go JSON decoding
 * matches it: exactly, else regardless of case (`value` and `Value`, `apiVersion` and `ApiVersion`).
 */
export function jsonField(object: Json, key: string): unknown {
  if (key in object) return object[key];
  const found = Object.keys(object).find((k) => k.toLowerCase() === key.toLowerCase());
  return found === undefined ? undefined : object[found];
}

/**
 * Every policy body of a config read back from disk, wherever the plugin keeps its policies
 * (`policies`, wincni's `AdditionalArgs`; each `{name, value}` or bare).
 */
export function policyBodies(config: unknown): Json[] {
  if (!isObject(config)) return [];
  const delegate = jsonField(config, 'delegate');
  const holder = isObject(delegate) ? delegate : config;
  const lists = [holder, config].flatMap((h) => [
    jsonField(h, 'policies'),
    jsonField(h, 'AdditionalArgs'),
  ]);
  const found = lists.find((list) => Array.isArray(list) && list.length > 0);
  return (Array.isArray(found) ? found : []).filter(isObject).map((p) => {
    const value = jsonField(p, 'value');
    return isObject(value) ? value : p;
  });
}

/**
 * The HNS API a config asks its plugin for, as win-overlay and win-bridge decide it: 2 (HCN)
 * only when `apiVersion` is 2, else 1.
 */
export function hnsApiVersion(config: unknown): 1 | 2 {
  if (!isObject(config)) return 1;
  const delegate = jsonField(config, 'delegate');
  const holder = isObject(delegate) ? delegate : config;
  return jsonField(holder, 'apiVersion') === HCN_API_VERSION ? 2 : 1;
}

/**
 * Reads the OutBoundNAT policy (and its exception CIDRs) back out of a Windows CNI config, in the
 * form of the API the config asks for.
 */
export function outboundNat(config: unknown): OutboundNat {
  const policy = policyBodies(config).find(
    (p) => String(jsonField(p, 'Type')).toLowerCase() === 'outboundnat',
  );
  if (policy === undefined) return { enabled: false, exceptions: [] };
  // As the plugin hands it on: HCN reads Settings.Exceptions, HNS v1 the policy's ExceptionList.
  const settings = jsonField(policy, 'Settings');
  const exceptions =
    hnsApiVersion(config) === 2
      ? isObject(settings)
        ? jsonField(settings, 'Exceptions')
        : undefined
      : jsonField(policy, 'ExceptionList');
  return { enabled: true, exceptions: strings(exceptions) };
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
