/** The Service-feature rows' Services on an emulated cluster: their specs, and what deploy() reports of them. */
import type { CreatedService } from '../../lab/cluster/emulated-cluster.ts';
import type { ServiceSpec } from '../../lab/cluster/control/cluster-state.ts';
import type { Os } from '../../lab/contracts/cells.ts';
import { LOCAL_BACKEND_LABEL, SLOT_LABEL } from '../../lab/contracts/kubernetes-names.ts';
import {
  DUAL_PROTOCOL_PORT,
  EXTERNAL_ECHO_SERVICE,
  EXTERNAL_NAME_SERVICE,
  FEATURE_SERVICE_PORT,
  affinityServiceName,
  dualProtocolServiceName,
  healthCheckServiceName,
  internalLocalServiceName,
  internalTrafficPolicyGap,
  type FeatureServices,
} from '../model/service-features.ts';
import { NETEXEC_HTTP_PORT, NETEXEC_UDP_PORT, SERVICE_SLOT } from '../model/workload-names.ts';

/**
 * The affinity timeout on emulated labs: a sweep's connections follow each other within
 * milliseconds, so a second is far above their gaps (a real cluster's exec round trips need more).
 */
export const EMULATED_AFFINITY_TIMEOUT_SECONDS = 1;

export interface FeatureDeployment {
  namespace: string;
  domain: string;
  oses: readonly Os[];
  kubernetesVersion: string;
  /** Where the external echo listens, and what its /hostname answers. */
  echo: { address: string; port: number; hostname: string };
}

const http = {
  name: 'http',
  port: FEATURE_SERVICE_PORT,
  targetPort: NETEXEC_HTTP_PORT,
  protocol: 'TCP' as const,
};

/** The specs of every feature Service, by name. */
export function featureServiceSpecs(d: FeatureDeployment): ServiceSpec[] {
  const { namespace } = d;
  const backends = (os: Os) => ({ app: 'netexec', os, [SLOT_LABEL]: SERVICE_SLOT });
  const local = (os: Os) => ({ app: 'netexec', os, [LOCAL_BACKEND_LABEL]: 'true' });
  const clusterIP = { namespace, type: 'ClusterIP' as const };
  return [
    ...d.oses.flatMap((os): ServiceSpec[] => [
      {
        ...clusterIP,
        name: affinityServiceName(os),
        selector: backends(os),
        ports: [http],
        sessionAffinity: 'ClientIP',
      },
      {
        ...clusterIP,
        name: affinityServiceName(os, true),
        selector: backends(os),
        ports: [http],
        sessionAffinity: 'ClientIP',
        affinityTimeoutSeconds: EMULATED_AFFINITY_TIMEOUT_SECONDS,
      },
      {
        ...clusterIP,
        name: dualProtocolServiceName(os),
        selector: backends(os),
        // TCP first: a kube-proxy that keys ports by number keeps it and loses the UDP one.
        ports: [
          { name: 'tcp', port: DUAL_PROTOCOL_PORT, targetPort: NETEXEC_HTTP_PORT, protocol: 'TCP' },
          { name: 'udp', port: DUAL_PROTOCOL_PORT, targetPort: NETEXEC_UDP_PORT, protocol: 'UDP' },
        ],
      },
      ...(internalTrafficPolicyGap(d.kubernetesVersion) === undefined
        ? [
            {
              ...clusterIP,
              name: internalLocalServiceName(os),
              selector: local(os),
              ports: [http],
              internalTrafficPolicy: 'Local' as const,
            },
          ]
        : []),
      {
        namespace,
        type: 'LoadBalancer',
        name: healthCheckServiceName(os),
        selector: local(os),
        ports: [http],
        externalTrafficPolicy: 'Local',
      },
    ]),
    {
      namespace,
      type: 'Headless',
      name: EXTERNAL_ECHO_SERVICE,
      selector: {},
      endpoints: [d.echo.address],
      ports: [{ name: 'http', port: d.echo.port, targetPort: d.echo.port, protocol: 'TCP' }],
    },
    {
      namespace,
      type: 'ExternalName',
      name: EXTERNAL_NAME_SERVICE,
      selector: {},
      ports: [],
      externalName: `${EXTERNAL_ECHO_SERVICE}.${namespace}.svc.${d.domain}`,
    },
  ];
}

/** What deploy() reports of the feature Services, from what createServices() made of featureServiceSpecs(). */
export function deployedFeatures(
  d: FeatureDeployment,
  specs: readonly ServiceSpec[],
  created: readonly CreatedService[],
): FeatureServices {
  const byName = new Map(specs.map((spec, i) => [spec.name, { spec, made: created[i]! }]));
  const clusterIP = (name: string) => byName.get(name)?.made.clusterIP ?? '';
  const of = (name: (os: Os) => string, port = FEATURE_SERVICE_PORT) =>
    d.oses
      .filter((os) => byName.has(name(os)))
      .map((os) => ({ os, name: name(os), clusterIP: clusterIP(name(os)), port }));
  return {
    affinity: of(affinityServiceName),
    affinityTimeout: of((os) => affinityServiceName(os, true)).map((s) => ({
      ...s,
      timeoutSeconds: EMULATED_AFFINITY_TIMEOUT_SECONDS,
    })),
    dualProtocol: of(dualProtocolServiceName, DUAL_PROTOCOL_PORT),
    internalLocal: of(internalLocalServiceName),
    healthCheck: d.oses.map((os) => ({
      os,
      name: healthCheckServiceName(os),
      namespace: d.namespace,
      healthCheckNodePort: byName.get(healthCheckServiceName(os))?.made.healthCheckNodePort ?? 0,
    })),
    externalName: {
      fqdn: `${EXTERNAL_NAME_SERVICE}.${d.namespace}.svc.${d.domain}`,
      target: `${EXTERNAL_ECHO_SERVICE}.${d.namespace}.svc.${d.domain}`,
      ...d.echo,
    },
  };
}
