/** The Service-feature rows' objects on a real cluster, rendered from manifests/suite. */
import { join } from 'node:path';
import {
  V1ClientIPConfig,
  V1SessionAffinityConfig,
  type V1Endpoints,
  type V1Service,
} from '@kubernetes/client-node';
import { OSES, type Os } from '../../../lab/contracts/cells.ts';
import {
  EXTERNAL_ECHO_SERVICE,
  affinityServiceName,
  dualProtocolServiceName,
  healthCheckServiceName,
  internalLocalServiceName,
  loadBalancerClassGap,
  NO_LOAD_BALANCER_CLASS,
} from '../../model/service-features.ts';
import { SERVICE_SLOT } from '../../model/workload-names.ts';
import { MANIFEST_DIR, commonVars, renderTemplate, type RenderInput } from './suite-manifests.ts';

export interface FeatureRenderInput extends Pick<RenderInput, 'runId' | 'lab'> {
  namespace: string;
  dnsDomain: string;
  /** OSes that get the per-OS feature Services. */
  oses: readonly Os[];
  /** Whether to make the internalTrafficPolicy Local Services (the cluster has the field). */
  internalLocal: boolean;
  /** sessionAffinityConfig.clientIP.timeoutSeconds of the affinity-timeout Services. */
  affinityTimeoutSeconds: number;
  /**
   * spec.loadBalancerClass of the health-check Services (type LoadBalancer): one no controller
   * implements, where the cluster has the field; absent, a cloud controller builds a load balancer.
   */
  loadBalancerClass?: string;
  /** The external echo, which external-echo's Endpoints name. */
  echo: { address: string; port: number };
}

export interface FeatureManifests {
  /** Services whose pods the endpoints controller finds (deploy waits for their Endpoints). */
  selected: V1Service[];
  /** external-echo (headless, no selector) and external-name (ExternalName). */
  unselected: V1Service[];
  /** external-echo's Endpoints. */
  endpoints: V1Endpoints;
}

/**
 * The health-check Services' load balancer class on a cluster at `version`: one no controller
 * implements where the cluster has the field. Below that they are plain LoadBalancer Services:
 * nothing builds a load balancer on the labs the harness makes (no cloud controller there), but on
 * a cluster it did not make (`existing`) a cloud may, which `note` warns of.
 */
export function healthCheckLoadBalancer(
  version: string | undefined,
  existing: boolean,
): { loadBalancerClass?: string; note?: { text: string; warn: boolean } } {
  const gap = loadBalancerClassGap(version);
  if (gap === undefined) return { loadBalancerClass: NO_LOAD_BALANCER_CLASS };
  const services = OSES.map(healthCheckServiceName).join(' and ');
  if (!existing)
    return {
      note: {
        text: `${gap}: ${services} are plain type LoadBalancer Services; no cloud controller runs on this lab to build a load balancer`,
        warn: false,
      },
    };
  return {
    note: {
      text: `${gap}: ${services} are plain type LoadBalancer Services, for which a cloud controller on this cluster may build a load balancer (often reachable from the internet) that lasts as long as the run`,
      warn: true,
    },
  };
}

/** Every feature object deploy() creates, from the templates in `dir`. */
export function renderFeatureManifests(
  input: FeatureRenderInput,
  dir = MANIFEST_DIR,
): FeatureManifests {
  const common = commonVars(input);
  const at = (file: string) => join(dir, file);
  const service = (file: string, vars: Record<string, string>) =>
    renderTemplate(at(file), { ...common, ...vars }) as V1Service;
  const healthCheck = (os: Os) => {
    const health = service('health-check-service.yaml', { os, name: healthCheckServiceName(os) });
    if (input.loadBalancerClass !== undefined)
      health.spec!.loadBalancerClass = input.loadBalancerClass;
    return health;
  };
  const selected = input.oses.flatMap((os) => {
    const perOs = { os, slot: SERVICE_SLOT };
    const timeout = service('affinity-service.yaml', {
      ...perOs,
      name: affinityServiceName(os, true),
    });
    const clientIP = new V1ClientIPConfig();
    clientIP.timeoutSeconds = input.affinityTimeoutSeconds;
    timeout.spec!.sessionAffinityConfig = Object.assign(new V1SessionAffinityConfig(), {
      clientIP,
    });
    return [
      service('affinity-service.yaml', { ...perOs, name: affinityServiceName(os) }),
      timeout,
      service('dual-protocol-service.yaml', { ...perOs, name: dualProtocolServiceName(os) }),
      ...(input.internalLocal
        ? [service('internal-local-service.yaml', { os, name: internalLocalServiceName(os) })]
        : []),
      healthCheck(os),
    ];
  });
  const echo = service('external-echo-service.yaml', {});
  echo.spec!.ports![0]!.port = input.echo.port;
  const endpoints = renderTemplate(at('external-echo-endpoints.yaml'), {
    ...common,
    address: input.echo.address,
  }) as V1Endpoints;
  endpoints.subsets![0]!.ports![0]!.port = input.echo.port;
  const target = `${EXTERNAL_ECHO_SERVICE}.${input.namespace}.svc.${input.dnsDomain}`;
  return {
    selected,
    unselected: [echo, service('external-name-service.yaml', { target })],
    endpoints,
  };
}
