/** What deploy() reports of the Service-feature rows' objects on a real cluster, from what the API made of them. */
import type { V1Service } from '@kubernetes/client-node';
import type { Os } from '../../../lab/contracts/cells.ts';
import {
  EXTERNAL_ECHO_SERVICE,
  EXTERNAL_NAME_SERVICE,
  affinityServiceName,
  dualProtocolServiceName,
  healthCheckServiceName,
  internalLocalServiceName,
  type FeatureService,
  type FeatureServices,
} from '../../model/service-features.ts';
import type { FeatureRenderInput } from './feature-manifests.ts';

/**
 * The feature Services as the cells need them, from the Services the API server created (their
 * ClusterIPs and health-check node ports); `echoHostname` is what the external echo's /hostname answers.
 */
export function deployedFeatures(
  input: FeatureRenderInput,
  created: readonly V1Service[],
  echoHostname: string,
): FeatureServices {
  const byName = new Map(created.map((s) => [s.metadata?.name ?? '', s]));
  const of = (name: (os: Os) => string): FeatureService[] =>
    input.oses.flatMap((os) => {
      const svc = byName.get(name(os));
      if (svc === undefined) return [];
      return [
        {
          os,
          name: name(os),
          clusterIP: svc.spec?.clusterIP ?? '',
          port: svc.spec?.ports?.[0]?.port ?? 0,
        },
      ];
    });
  const domain = input.dnsDomain;
  return {
    affinity: of(affinityServiceName),
    affinityTimeout: of((os) => affinityServiceName(os, true)).map((s) => ({
      ...s,
      timeoutSeconds:
        byName.get(s.name)?.spec?.sessionAffinityConfig?.clientIP?.timeoutSeconds ??
        input.affinityTimeoutSeconds,
    })),
    dualProtocol: of(dualProtocolServiceName),
    internalLocal: of(internalLocalServiceName),
    healthCheck: input.oses.map((os) => ({
      os,
      name: healthCheckServiceName(os),
      namespace: input.namespace,
      healthCheckNodePort: byName.get(healthCheckServiceName(os))?.spec?.healthCheckNodePort ?? 0,
    })),
    externalName: {
      fqdn: `${EXTERNAL_NAME_SERVICE}.${input.namespace}.svc.${domain}`,
      target: `${EXTERNAL_ECHO_SERVICE}.${input.namespace}.svc.${domain}`,
      address: input.echo.address,
      port: input.echo.port,
      hostname: echoHostname,
    },
  };
}
