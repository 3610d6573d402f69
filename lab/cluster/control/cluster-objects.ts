/** Validation, deterministic address allocation and endpoint selection for the emulated cluster. */
import { ProviderError } from '../../errors.ts';
import { isIpv4, nthAddress, parseCidr, size, type Cidr } from '../../net/ipv4.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';
import type {
  ClusterState,
  PodRecord,
  PodSpec,
  ServiceRecord,
  ServiceSpec,
} from './cluster-state.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function cidrOf(text: string): Cidr {
  const cidr = parseCidr(text);
  if (cidr === undefined) throw new ProviderError(`plan holds a bad CIDR: ${text}`);
  return cidr;
}

function checkLabel(value: string | undefined, field: string): void {
  if (value !== undefined && !DNS_LABEL.test(value)) {
    throw new ProviderError(
      `${field}: '${value}' is not a DNS label (lowercase letters, digits, '-', at most 63)`,
    );
  }
}

export function planNode(plan: LabPlan, name: string): PlannedNode {
  const node = plan.nodes.find((n) => n.name === name);
  if (node === undefined) {
    throw new ProviderError(`no node '${name}' in lab ${plan.id}`, {
      hint: `nodes: ${plan.nodes.map((n) => n.name).join(', ')}`,
    });
  }
  return node;
}

export function findPod(
  state: ClusterState,
  namespace: string,
  name: string,
): PodRecord | undefined {
  return state.pods.find((p) => p.namespace === namespace && p.name === name);
}

export function findService(
  state: ClusterState,
  namespace: string,
  name: string,
): ServiceRecord | undefined {
  return state.services.find((s) => s.namespace === namespace && s.name === name);
}

export function checkPodSpec(plan: LabPlan, state: ClusterState, spec: PodSpec): PlannedNode {
  checkLabel(spec.name, 'pod name');
  checkLabel(spec.namespace, 'pod namespace');
  checkLabel(spec.hostname, 'pod hostname');
  checkLabel(spec.subdomain, 'pod subdomain');
  if (findPod(state, spec.namespace, spec.name) !== undefined) {
    throw new ProviderError(`pod ${spec.namespace}/${spec.name} already exists`);
  }
  return planNode(plan, spec.node);
}

export function checkServiceSpec(state: ClusterState, spec: ServiceSpec): void {
  checkLabel(spec.name, 'service name');
  checkLabel(spec.namespace, 'service namespace');
  if (findService(state, spec.namespace, spec.name) !== undefined) {
    throw new ProviderError(`service ${spec.namespace}/${spec.name} already exists`);
  }
  if (spec.ports.length === 0 && spec.type !== 'Headless' && spec.type !== 'ExternalName')
    throw new ProviderError(`service ${spec.name}: needs at least one port`);
  const policy: string | undefined = spec.externalTrafficPolicy; // untyped JSON, as for protocols
  if (policy !== undefined && policy !== 'Cluster' && policy !== 'Local')
    throw new ProviderError(`service ${spec.name} externalTrafficPolicy: expected Cluster|Local`);
  if (policy === 'Local' && !hasNodePorts(spec.type))
    throw new ProviderError(
      `service ${spec.name} externalTrafficPolicy: Local needs type NodePort or LoadBalancer, not ${spec.type}`,
    );
  checkFeatureFields(spec);
  const seen = new Set<string>();
  for (const [i, port] of spec.ports.entries()) {
    const where = `service ${spec.name} ports[${i}]`;
    for (const [field, value] of [
      ['port', port.port],
      ['targetPort', port.targetPort],
    ] as const) {
      if (!Number.isInteger(value) || value < 1 || value > 65535)
        throw new ProviderError(`${where}.${field}: ${value} is not a port`);
    }
    const protocol: string = port.protocol; // callers may hand in untyped JSON
    if (protocol !== 'TCP' && protocol !== 'UDP')
      throw new ProviderError(`${where}.protocol: expected TCP|UDP`);
    if (port.nodePort !== undefined && !hasNodePorts(spec.type))
      throw new ProviderError(
        `${where}.nodePort: only NodePort and LoadBalancer services have one`,
      );
    const key = `${port.port}/${port.protocol}`;
    if (seen.has(key)) throw new ProviderError(`${where}: ${key} given twice`);
    seen.add(key);
  }
}

/** Whether Services of `type` get node ports. */
export function hasNodePorts(type: ServiceSpec['type']): boolean {
  return type === 'NodePort' || type === 'LoadBalancer';
}

/** Session affinity, internalTrafficPolicy, ExternalName and selector-less Endpoints, as the API checks them. */
function checkFeatureFields(spec: ServiceSpec): void {
  const where = `service ${spec.name}`;
  const affinity: string | undefined = spec.sessionAffinity;
  if (affinity !== undefined && affinity !== 'None' && affinity !== 'ClientIP')
    throw new ProviderError(`${where} sessionAffinity: expected None|ClientIP`);
  const timeout = spec.affinityTimeoutSeconds;
  if (timeout !== undefined) {
    if (affinity !== 'ClientIP')
      throw new ProviderError(
        `${where} affinityTimeoutSeconds: only with sessionAffinity ClientIP`,
      );
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86_400)
      throw new ProviderError(`${where} affinityTimeoutSeconds: ${timeout} is not 1..86400`);
  }
  const internal: string | undefined = spec.internalTrafficPolicy;
  if (internal !== undefined && internal !== 'Cluster' && internal !== 'Local')
    throw new ProviderError(`${where} internalTrafficPolicy: expected Cluster|Local`);
  if ((spec.type === 'ExternalName') !== (spec.externalName !== undefined))
    throw new ProviderError(`${where} externalName: given exactly for type ExternalName`);
  if (
    spec.externalName !== undefined &&
    !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(spec.externalName)
  )
    throw new ProviderError(`${where} externalName: '${spec.externalName}' is not a DNS name`);
  if (spec.endpoints !== undefined) {
    if (Object.keys(spec.selector).length > 0)
      throw new ProviderError(`${where} endpoints: only a Service without a selector has its own`);
    const bad = spec.endpoints.filter((ip) => !isIpv4(ip));
    if (bad.length > 0)
      throw new ProviderError(`${where} endpoints: not IPv4 addresses: ${bad.join(', ')}`);
  }
}

/** Lowest free address of the node's pod CIDR after the gateway (.1). */
export function allocatePodIp(node: PlannedNode, state: ClusterState): string {
  const cidr = cidrOf(node.podCIDR);
  const used = new Set(state.pods.filter((p) => p.node === node.name).map((p) => p.ip));
  for (let offset = 2; offset < size(cidr) - 1; offset++) {
    const ip = nthAddress(cidr, offset);
    if (!used.has(ip)) return ip;
  }
  throw new ProviderError(`node ${node.name}: pod CIDR ${node.podCIDR} is full`);
}

/** Offset of a pod IP inside its node's pod CIDR (names the node-side veth). */
export function podOffset(node: PlannedNode, ip: string): number {
  const cidr = cidrOf(node.podCIDR);
  const value = ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  return value - cidr.base;
}

/** Lowest free service address, never the API service's nor the cluster DNS's. */
export function allocateClusterIp(plan: LabPlan, state: ClusterState): string {
  const cidr = cidrOf(plan.kubernetes.serviceCIDR);
  const reserved = new Set([plan.kubernetes.apiServiceIP, plan.kubernetes.clusterDNS]);
  const used = new Set(state.services.map((s) => s.clusterIP));
  for (let offset = 1; offset < size(cidr) - 1; offset++) {
    const ip = nthAddress(cidr, offset);
    if (!reserved.has(ip) && !used.has(ip)) return ip;
  }
  throw new ProviderError(`service CIDR ${plan.kubernetes.serviceCIDR} is full`);
}

/** The requested NodePort if it is free and in range, else the lowest free one. */
export function allocateNodePort(
  plan: LabPlan,
  state: ClusterState,
  taken: Set<number>,
  requested?: number,
): number {
  const { min, max } = plan.kubernetes.nodePortRange;
  for (const svc of state.services) {
    for (const p of svc.ports) if (p.nodePort !== undefined) taken.add(p.nodePort);
    if (svc.healthCheckNodePort !== undefined) taken.add(svc.healthCheckNodePort);
  }
  if (requested !== undefined) {
    if (requested < min || requested > max)
      throw new ProviderError(`nodePort ${requested} is outside ${min}-${max}`);
    if (taken.has(requested)) throw new ProviderError(`nodePort ${requested} is already allocated`);
    return requested;
  }
  for (let port = min; port <= max; port++) if (!taken.has(port)) return port;
  throw new ProviderError(`NodePort range ${min}-${max} is full`);
}

function selects(service: ServiceRecord, pod: PodRecord): boolean {
  const selector = Object.entries(service.selector);
  return (
    pod.namespace === service.namespace &&
    pod.phase === 'Running' &&
    selector.length > 0 &&
    selector.every(([key, value]) => pod.labels[key] === value)
  );
}

/** Ready pods the service selects (or its static endpoints), in a stable order. */
export function endpointPods(service: ServiceRecord, state: ClusterState): PodRecord[] {
  return state.pods
    .filter((p) => selects(service, p))
    .sort((a, b) => a.ip.localeCompare(b.ip, 'en', { numeric: true }));
}

export function endpointIps(service: ServiceRecord, state: ClusterState): string[] {
  return service.staticEndpoints ?? endpointPods(service, state).map((p) => p.ip);
}
