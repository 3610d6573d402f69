/** The Service rows: pods and nodes to each OS's Service, and a pod to its own (hairpin). */
import type { CellKey, Os } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan } from '../model/cell-plan.ts';
import { hostNetworkSource, type SuiteNode } from '../model/lab-driver.ts';
import { hairpinServiceName, serviceName, sourcePod } from '../model/workload-names.ts';
import {
  REQUESTS_PER_ENDPOINT,
  everyEndpoint,
  hostEnd,
  ids,
  lacking,
  nodesOf,
  pod,
  podEnd,
  service,
  serviceTarget,
} from './cell-parts.ts';
import type { MatrixRow } from './rows.ts';

/** The cell end of the Service backed by pods of `os`: its backend nodes, or `-` without any. */
function serviceEnd(os: Os, backends: readonly SuiteNode[]): Endpoint {
  return serviceTarget(
    os,
    backends.map((n) => n.name),
    serviceName(os),
    `${os} service`,
  );
}

export function podToService(
  row: Extract<MatrixRow, { kind: 'pod-to-service' | 'pod-to-service-udp' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const backends = nodesOf(nodes, row.to);
  const target = serviceEnd(row.to, backends);
  if (sources.length === 0 || backends.length === 0) {
    const lacks = sources.length === 0 ? row.from : row.to;
    return row.vias.map((via) => ({
      meta: {
        ...ids({ kind: row.kind, from: row.from, to: row.to, via }),
        title: `${row.kind} ${row.from}-to-${row.to} via ${via}`,
        source: podEnd(row.from, '-'),
        target,
        placement: '',
      },
      skip: lacking(nodes, lacks),
    }));
  }
  return sources.flatMap((src) =>
    row.vias.map((via): CellPlan => {
      const from = sourcePod(src.name);
      return {
        meta: {
          ...ids({ kind: row.kind, from: row.from, to: row.to, node: src.name, via }),
          title: `${row.kind} ${row.from}-to-${row.to} ${src.name}-to-${backends.map((n) => n.name).join('+')} via ${via}`,
          source: podEnd(row.from, src.name, from),
          target,
          placement: '',
        },
        probe: (w) => {
          const svc = service(w, row.to);
          const host = via === 'cluster-ip' ? svc.clusterIP : svc.fqdn;
          const base =
            row.kind === 'pod-to-service-udp'
              ? `udp://${host}:${svc.udpPort}`
              : `http://${host}:${svc.port}`;
          return everyEndpoint(w, row.to, from, base, pod(w, from).ip);
        },
      };
    }),
  );
}

/**
 * Every node's source pod → the Service whose only endpoint is that pod. The answer must come from
 * the pod itself; its source address is not checked, because kube-proxy masquerades hairpin
 * traffic (to the node's bridge address on Linux) precisely so that the reply finds its way back.
 */
export function hairpin(
  row: Extract<MatrixRow, { kind: 'hairpin' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const target = (node: string, name?: string): Endpoint => ({
    os: row.from,
    node,
    label: `${row.from} pod's own service`,
    ...(name === undefined ? {} : { name }),
  });
  if (sources.length === 0) {
    return row.vias.map((via) => ({
      meta: {
        ...ids({ kind: 'hairpin', from: row.from, via }),
        title: `hairpin ${row.from} via ${via}`,
        source: podEnd(row.from, '-'),
        target: target('-'),
        placement: '',
      },
      skip: lacking(nodes, row.from),
    }));
  }
  return sources.flatMap((src) =>
    row.vias.map((via): CellPlan => {
      const from = sourcePod(src.name);
      return {
        meta: {
          ...ids({ kind: 'hairpin', from: row.from, node: src.name, via }),
          title: `hairpin ${row.from} ${src.name} via ${via}`,
          source: podEnd(row.from, src.name, from),
          target: target(src.name, hairpinServiceName(src.name)),
          placement: '',
        },
        probe: (w) => {
          const svc = w.hairpin.find((s) => s.pod === from);
          if (svc === undefined) throw new Error(`no hairpin service for ${from} was deployed`);
          const host = via === 'cluster-ip' ? svc.clusterIP : svc.fqdn;
          const base = `http://${host}:${svc.port}`;
          return {
            from,
            request: {
              kind: 'endpoints',
              base,
              service: svc.name,
              expect: [from],
              maxRequests: REQUESTS_PER_ENDPOINT,
            },
            check: { kind: 'every-endpoint', expect: [from] },
          };
        },
      };
    }),
  );
}

/** Every node's own network → the Service of `row.to` by ClusterIP; every endpoint must answer. */
export function hostNetworkToService(
  row: Extract<MatrixRow, { kind: 'host-network-to-service' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const backends = nodesOf(nodes, row.to);
  const target = serviceEnd(row.to, backends);
  const key = (node?: string): CellKey => ({
    kind: row.kind,
    from: row.from,
    to: row.to,
    via: 'cluster-ip',
    ...(node === undefined ? {} : { node }),
  });
  if (sources.length === 0 || backends.length === 0) {
    const lacks = sources.length === 0 ? row.from : row.to;
    const meta = {
      ...ids(key()),
      title: `${row.kind} ${row.from}-to-${row.to} via cluster-ip`,
      source: hostEnd(row.from, '-'),
      target,
      placement: '',
    };
    return [{ meta, skip: lacking(nodes, lacks) }];
  }
  return sources.map((src) => ({
    meta: {
      ...ids(key(src.name)),
      title: `${row.kind} ${row.from}-to-${row.to} ${src.name}-to-${backends.map((n) => n.name).join('+')} via cluster-ip`,
      source: hostEnd(row.from, src.name),
      target,
      placement: '',
    },
    probe: (w) => {
      const svc = service(w, row.to);
      return everyEndpoint(
        w,
        row.to,
        hostNetworkSource(src.name),
        `http://${svc.clusterIP}:${svc.port}`,
      );
    },
  }));
}
