/** Workloads as a driver would report them, for tests that need deployed pods and Services without a lab. */
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import { podNames } from '../model/workload-names.ts';
import { DUAL_PROTOCOL_PORT } from '../model/service-features.ts';

const OSES = ['linux', 'windows'] as const;

/**
 * Pod IPs 10.244.<node>.<10+slot>, Services web-linux 10.96.0.20 and web-windows 10.96.0.21, hairpin-<node> 10.96.1.<10+node>, local-<os> node ports 30280/30281, churn-linux 10.96.2.20 and churn-windows 10.96.2.21, outside 192.168.200.1, host netexec at each node's IP:8085;
 * feature Services affinity-<os> 10.96.3.2x, affinity-timeout-<os> 10.96.3.3x (2 s), dual-<os>
 * 10.96.3.4x, internal-local-<os> 10.96.3.5x, health-<os> node ports 30380/30381, external-name.
 */
export function fakeWorkloads(nodes: readonly SuiteNode[], namespace = 'ns'): Workloads {
  return {
    namespace,
    pods: podNames(nodes).map((p, i) => ({
      ...p,
      os: nodes.find((n) => n.name === p.node)!.os,
      ip: `10.244.${i >> 1}.${10 + (i & 1)}`,
      fqdn: `${p.name}.netexec.${namespace}.svc.cluster.local`,
    })),
    services: (['linux', 'windows'] as const).map((os, i) => ({
      name: `web-${os}`,
      os,
      clusterIP: `10.96.0.${20 + i}`,
      port: 80,
      nodePort: 30080 + i,
      udpPort: 8081,
      udpNodePort: 30180 + i,
      fqdn: `web-${os}.${namespace}.svc.cluster.local`,
    })),
    churn: (['linux', 'windows'] as const).map((os, i) => ({
      os,
      name: `churn-${os}`,
      clusterIP: `10.96.2.${20 + i}`,
      port: 80,
    })),
    hairpin: nodes.map((n, i) => ({
      name: `hairpin-${n.name}`,
      pod: `netexec-${n.name}-a`,
      clusterIP: `10.96.1.${10 + i}`,
      port: 80,
      fqdn: `hairpin-${n.name}.${namespace}.svc.cluster.local`,
    })),
    hostNetwork: nodes.map((n) => ({ node: n.name, address: n.ip, port: 8085, hostname: n.name })),
    local: (['linux', 'windows'] as const).map((os, i) => ({
      name: `local-${os}`,
      os,
      nodePort: 30280 + i,
    })),
    features: {
      affinity: OSES.map((os, i) => ({
        os,
        name: `affinity-${os}`,
        clusterIP: `10.96.3.${20 + i}`,
        port: 80,
      })),
      affinityTimeout: OSES.map((os, i) => ({
        os,
        name: `affinity-timeout-${os}`,
        clusterIP: `10.96.3.${30 + i}`,
        port: 80,
        timeoutSeconds: 2,
      })),
      dualProtocol: OSES.map((os, i) => ({
        os,
        name: `dual-${os}`,
        clusterIP: `10.96.3.${40 + i}`,
        port: DUAL_PROTOCOL_PORT,
      })),
      internalLocal: OSES.map((os, i) => ({
        os,
        name: `internal-local-${os}`,
        clusterIP: `10.96.3.${50 + i}`,
        port: 80,
      })),
      healthCheck: OSES.map((os, i) => ({
        os,
        name: `health-${os}`,
        namespace,
        healthCheckNodePort: 30380 + i,
      })),
      externalName: {
        fqdn: `external-name.${namespace}.svc.cluster.local`,
        target: `external-echo.${namespace}.svc.cluster.local`,
        address: '198.51.100.1',
        port: 8080,
        hostname: 'external',
      },
    },
    outsideAddress: '192.168.200.1',
    external: { address: '198.51.100.1', port: 8080 },
    apiServiceIP: '10.96.0.1',
    dnsDomain: 'cluster.local',
  };
}
