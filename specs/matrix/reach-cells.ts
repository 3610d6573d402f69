/**
 * The Service-feature rows that reach beyond a Service's pods (docs/service-features.md): kube-proxy's
 * health-check node port from outside, an ExternalName Service's CNAME to the external echo, and
 * the API server (a host-network endpoint) through the kubernetes Service.
 */
import { localEndpointNodes, type CellKey, type Via } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import type { SuiteNode } from '../model/lab-driver.ts';
import { EXTERNAL_NAME_SERVICE, healthCheckServiceName } from '../model/service-features.ts';
import { sourcePod } from '../model/workload-names.ts';
import { OUTSIDE, ids, lacking, nodesOf, podEnd } from './cell-parts.ts';
import { features } from './feature-cells.ts';
import type { MatrixRow } from './rows.ts';

/** The kubernetes Service's port (https). */
export const KUBERNETES_SERVICE_PORT = 443;

/**
 * GET /healthz from outside on every node's health-check node port of the `row.to` Service
 * (LoadBalancer, externalTrafficPolicy Local): 200 naming the Service with one local endpoint on
 * the nodes that have one (localEndpointNodes), 503 with none on every other node.
 */
export function healthCheckNodePort(
  row: Extract<MatrixRow, { kind: 'health-check-nodeport' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const local = localEndpointNodes(nodes, row.to);
  const key = (node?: string): CellKey => ({
    kind: row.kind,
    to: row.to,
    via: 'node-ip',
    ...(node === undefined ? {} : { node }),
  });
  const target = (node?: SuiteNode): Endpoint => ({
    os: node?.os ?? row.to,
    node: node?.name ?? '-',
    name: healthCheckServiceName(row.to),
    label: `${node?.os ?? row.to} node`,
  });
  if (nodesOf(nodes, row.to).length === 0) {
    const meta = {
      ...ids(key()),
      title: `health-check-nodeport external-to-${row.to}-service via node-ip`,
      source: OUTSIDE,
      target: target(),
      placement: '',
    };
    return [{ meta, skip: lacking(nodes, row.to) }];
  }
  return [...nodesOf(nodes, 'linux'), ...nodesOf(nodes, 'windows')].map((node) => {
    const has = local.includes(node.name);
    return {
      meta: {
        ...ids(key(node.name)),
        title: `health-check-nodeport external-to-${row.to}-service ${node.name} ${has ? 'with' : 'without'} a local endpoint via node-ip`,
        source: OUTSIDE,
        target: target(node),
        placement: '',
      },
      probe: (w): ProbeSpec => {
        const svc = features(w).healthCheck.find((s) => s.os === row.to);
        if (svc === undefined) throw new Error(`no health-check Service of ${row.to} was deployed`);
        return {
          from: 'outside',
          request: { kind: 'http', url: `http://${node.ip}:${svc.healthCheckNodePort}/healthz` },
          check: {
            kind: 'health-check',
            status: has ? 200 : 503,
            service: `${svc.namespace}/${svc.name}`,
            localEndpoints: has ? 1 : 0,
          },
        };
      },
    };
  });
}

/**
 * Pods of every node of `row.from`: the ExternalName Service's name (a CNAME to a name the cluster
 * DNS answers with the external echo's address, by way of ExternalName) and /hostname there
 * (`external-name`); or TCP and TLS to the API server through the kubernetes Service, by ClusterIP
 * and by name, and any HTTP answer (`pod-to-apiserver`).
 */
export function reachFromPods(
  row: Extract<MatrixRow, { kind: 'external-name' | 'pod-to-apiserver' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const apiServers = nodes.filter((n) => n.role === 'control-plane').map((n) => n.name);
  const target: Endpoint =
    row.kind === 'external-name'
      ? { ...OUTSIDE, name: EXTERNAL_NAME_SERVICE }
      : { os: 'linux', node: apiServers.join(',') || '-', name: 'kubernetes', label: 'API server' };
  const vias: Via[] = row.kind === 'external-name' ? ['dns'] : ['cluster-ip', 'dns'];
  const key = (via: Via, node?: string): CellKey => ({
    kind: row.kind,
    from: row.from,
    via,
    ...(node === undefined ? {} : { node }),
  });
  if (sources.length === 0) {
    return vias.map((via) => ({
      meta: {
        ...ids(key(via)),
        title: `${row.kind} ${row.from} via ${via}`,
        source: podEnd(row.from, '-'),
        target,
        placement: '',
      },
      skip: lacking(nodes, row.from),
    }));
  }
  return sources.flatMap((src) =>
    vias.map((via): CellPlan => {
      const from = sourcePod(src.name);
      return {
        meta: {
          ...ids(key(via, src.name)),
          title: `${row.kind} ${row.from} ${src.name}${row.kind === 'pod-to-apiserver' ? `-to-${apiServers.join('+')}` : ''} via ${via}`,
          source: podEnd(row.from, src.name, from),
          target,
          placement: '',
        },
        probe: (w): ProbeSpec => {
          if (row.kind === 'external-name') {
            const ext = features(w).externalName;
            return {
              from,
              request: { kind: 'http', url: `http://${ext.fqdn}:${ext.port}/hostname` },
              check: { kind: 'body', expect: ext.hostname, peer: ext.address },
            };
          }
          const host =
            via === 'cluster-ip' ? w.apiServiceIP : `kubernetes.default.svc.${w.dnsDomain}`;
          return {
            from,
            request: { kind: 'http', url: `https://${host}:${KUBERNETES_SERVICE_PORT}/version` },
            check: { kind: 'http-answer', peer: w.apiServiceIP },
          };
        },
      };
    }),
  );
}
