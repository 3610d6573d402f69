/**
 * The Services of the Service-feature rows (docs/service-features.md): what every driver deploys for them, the
 * names cells and drivers agree on, and what a Kubernetes version lacks of them.
 */
import type { Os } from '../../lab/contracts/cells.ts';

/** A ClusterIP Service backed by the `b` pods of one OS (the local backends, for internalLocal). */
export interface FeatureService {
  os: Os;
  name: string;
  clusterIP: string;
  /** Its HTTP port; a dual-protocol Service carries UDP on the same number. */
  port: number;
}

export interface FeatureServices {
  /** sessionAffinity ClientIP with the default timeout, per OS with nodes. */
  affinity: FeatureService[];
  /** sessionAffinity ClientIP with timeoutSeconds `timeoutSeconds`, per OS with nodes. */
  affinityTimeout: (FeatureService & { timeoutSeconds: number })[];
  /** One port number for TCP (netexec's HTTP port) and UDP (its UDP port), per OS with nodes. */
  dualProtocol: FeatureService[];
  /** internalTrafficPolicy Local over the local backends, per OS; none where the cluster lacks it. */
  internalLocal: FeatureService[];
  /** type LoadBalancer, externalTrafficPolicy Local over the local backends, per OS. */
  healthCheck: { os: Os; name: string; namespace: string; healthCheckNodePort: number }[];
  /**
   * An ExternalName Service whose name is a CNAME to `target`, a name of the cluster domain that
   * resolves to the external echo (`address`:`port`, answering /hostname with `hostname`).
   */
  externalName: {
    fqdn: string;
    target: string;
    address: string;
    port: number;
    hostname: string;
  };
}

/** The addresses a feature cell's flow may use (ClusterIPs, the echo behind the ExternalName): path evidence traces them. */
export function featureAddresses(features: FeatureServices | undefined): string[] {
  if (features === undefined) return [];
  const { affinity, affinityTimeout, dualProtocol, internalLocal, externalName } = features;
  return [
    ...[...affinity, ...affinityTimeout, ...dualProtocol, ...internalLocal].map((s) => s.clusterIP),
    externalName.address,
  ];
}

/** The HTTP port of the feature Services (netexec's HTTP server behind it). */
export const FEATURE_SERVICE_PORT = 80;
/** The dual-protocol Services' one port number: TCP to netexec's HTTP port, UDP to its UDP port. */
export const DUAL_PROTOCOL_PORT = 8080;
/**
 * The ExternalName Service, and the selector-less headless Service whose Endpoints are the
 * external echo: its name is the CNAME's target.
 */
export const EXTERNAL_NAME_SERVICE = 'external-name';
export const EXTERNAL_ECHO_SERVICE = 'external-echo';

export function affinityServiceName(os: Os, timeout = false): string {
  return timeout ? `affinity-timeout-${os}` : `affinity-${os}`;
}

export function dualProtocolServiceName(os: Os): string {
  return `dual-${os}`;
}

export function internalLocalServiceName(os: Os): string {
  return `internal-local-${os}`;
}

/** The LoadBalancer Service with externalTrafficPolicy Local whose health-check node port is probed. */
export function healthCheckServiceName(os: Os): string {
  return `health-${os}`;
}

/** Major and minor of `version` (`v1.20.2`, `1.30.4`), read from its start; undefined when it is no version. */
function minorOf(version: string | undefined): { major: number; minor: number } | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return match === null ? undefined : { major: Number(match[1]), minor: Number(match[2]) };
}

/** Whether `version` is below 1.`minor` (false when the version is unknown). */
function below(version: string | undefined, minor: number): boolean {
  const found = minorOf(version);
  return found !== undefined && found.major <= 1 && found.minor < minor;
}

/**
 * The load balancer class of the health-check Services where the cluster has the field: one no
 * controller implements, so no cloud builds a load balancer for them, while the API server still
 * allocates their node ports and health-check node port and every kube-proxy serves it
 * (https://kubernetes.io/docs/concepts/services-networking/service/#load-balancer-class).
 */
export const NO_LOAD_BALANCER_CLASS = 'hybrid-lab.io/none';

/**
 * Why a cluster at `version` has no spec.loadBalancerClass to rely on, or undefined when it has
 * (or the version is unknown): the field came in 1.21 behind an alpha gate, on by default as beta
 * from 1.22 (a gate a cluster may still turn off, and the API server then drops the field
 * unsaid), GA in 1.24.
 */
export function loadBalancerClassGap(version: string | undefined): string | undefined {
  if (!below(version, 24)) return undefined;
  return `Kubernetes ${version} has no spec.loadBalancerClass to rely on (GA in 1.24; beta behind the ServiceLoadBalancerClass feature gate before, alpha in 1.21; https://kubernetes.io/docs/concepts/services-networking/service/#load-balancer-class)`;
}

/**
 * Why a cluster at `version` (`v1.20.2`, `1.30.4`) has no internalTrafficPolicy, or undefined when
 * it has (or the version is unknown).
 */
export function internalTrafficPolicyGap(version: string | undefined): string | undefined {
  if (!below(version, 22)) return undefined;
  return `Kubernetes ${version} has no internalTrafficPolicy: the field came in 1.21 as alpha behind the ServiceInternalTrafficPolicy feature gate (off by default) and is on by default from 1.22 (https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates-removed/)`;
}

/**
 * New connections an affinity cell makes (per phase): the fewest N with which a Service that
 * spreads connections at random over `endpoints` endpoints still sends all N to one endpoint with
 * probability endpoints^(1-N) below 1e-4 (15 for 2 endpoints, as upstream's e2e; 10 for 3).
 */
export function affinityRequests(endpoints: number): number {
  if (endpoints < 2) throw new Error('affinity needs two endpoints to tell');
  let n = 1;
  // k^(n-1) > 1e4, in integers.
  for (let power = 1; power <= 10_000; power *= endpoints) n++;
  return n;
}
