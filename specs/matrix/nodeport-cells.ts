/** The NodePort rows: from outside via every node (Cluster and Local policy), and a node to its own. */
import { localEndpointNodes, type CellKey } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import { NOT_FORWARDED_MS, type CellPlan, type ProbeSpec } from '../model/cell-plan.ts';
import { hostNetworkSource, type SuiteNode } from '../model/lab-driver.ts';
import { backendPod, localServiceName, serviceName } from '../model/workload-names.ts';
import {
  OUTSIDE,
  REQUESTS_PER_ENDPOINT,
  everyEndpoint,
  hostEnd,
  ids,
  lacking,
  nodesOf,
  service,
} from './cell-parts.ts';
import type { MatrixRow } from './rows.ts';

export function nodePort(
  row: Extract<MatrixRow, { kind: 'nodeport' | 'nodeport-udp' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const targets = nodes.filter((n) => n.os === row.to);
  const key = (node?: string): CellKey => ({
    kind: row.kind,
    to: row.to,
    via: 'node-ip',
    ...(node === undefined ? {} : { node }),
  });
  if (targets.length === 0) {
    const meta = {
      ...ids(key()),
      title: `${row.kind} external-to-${row.to}-node via node-ip`,
      source: OUTSIDE,
      target: { os: row.to, node: '-', label: `${row.to} node` },
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.to} nodes` }];
  }
  return targets.map((node) => ({
    meta: {
      ...ids(key(node.name)),
      title: `${row.kind} external-to-${row.to}-node ${node.name} via node-ip`,
      source: OUTSIDE,
      target: { os: row.to, node: node.name, label: `${row.to} node` },
      placement: '',
    },
    // From outside, the backend sees the address the node masqueraded to: only who answered counts.
    probe: (w) => {
      const svc = service(w, row.to);
      const base =
        row.kind === 'nodeport-udp'
          ? `udp://${node.ip}:${svc.udpNodePort}`
          : `http://${node.ip}:${svc.nodePort}`;
      return everyEndpoint(w, row.to, 'outside', base);
    },
  }));
}

/**
 * externalTrafficPolicy Local from outside, via every node of `row.to` to its OS's Local Service:
 * `nodeport-local` via the nodes with a local endpoint (only that pod may answer, and it must see
 * the outside client's own address), `nodeport-local-none` via the others (nothing may answer:
 * kube-proxy does not forward it).
 */
export function nodePortLocal(
  row: Extract<MatrixRow, { kind: 'nodeport-local' | 'nodeport-local-none' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const withEndpoint = localEndpointNodes(nodes, row.to);
  const wanted = row.kind === 'nodeport-local';
  const targets = nodes.filter((n) => n.os === row.to && withEndpoint.includes(n.name) === wanted);
  const title = (node: string) =>
    `${row.kind} external-to-${row.to}-node ${node}${wanted ? ' with a local endpoint' : ' without a local endpoint'} via node-ip`;
  const key = (node?: string): CellKey => ({
    kind: row.kind,
    to: row.to,
    via: 'node-ip',
    ...(node === undefined ? {} : { node }),
  });
  const target = (node: string): Endpoint => ({
    os: row.to,
    node,
    name: localServiceName(row.to),
    label: `${row.to} node`,
  });
  if (targets.length === 0) {
    const need = wanted ? `a ${row.to} node` : `two ${row.to} nodes`;
    return [
      {
        meta: {
          ...ids(key()),
          title: title('-'),
          source: OUTSIDE,
          target: target('-'),
          placement: '',
        },
        skip: lacking(nodes, row.to, need),
      },
    ];
  }
  return targets.map((node) => ({
    meta: {
      ...ids(key(node.name)),
      title: title(node.name),
      source: OUTSIDE,
      target: target(node.name),
      placement: '',
    },
    probe: (w): ProbeSpec => {
      const svc = w.local.find((s) => s.os === row.to);
      if (svc === undefined)
        throw new Error(`service ${localServiceName(row.to)} was not deployed`);
      const base = `http://${node.ip}:${svc.nodePort}`;
      if (!wanted) {
        return {
          from: 'outside',
          request: { kind: 'http', url: `${base}/hostname` },
          check: { kind: 'not-forwarded' },
          timeoutMs: NOT_FORWARDED_MS,
        };
      }
      const own = backendPod(node.name);
      // Sweep until every backend anywhere answered: a correct node never lets a remote one
      // answer, so all requests are made and each must land on the node's own pod.
      const backends = withEndpoint.map(backendPod);
      return {
        from: 'outside',
        request: {
          kind: 'endpoints',
          base,
          service: svc.name,
          expect: backends,
          maxRequests: REQUESTS_PER_ENDPOINT,
        },
        check: { kind: 'every-endpoint', expect: [own], source: w.outsideAddress, only: true },
      };
    },
  }));
}

/** Every node's own network → its own address and its OS's NodePort; every endpoint must answer. */
export function hostNetworkToOwnNodePort(
  row: Extract<MatrixRow, { kind: 'host-network-to-own-nodeport' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const key = (node?: string): CellKey => ({
    kind: row.kind,
    from: row.from,
    via: 'node-ip',
    ...(node === undefined ? {} : { node }),
  });
  const target = (node: string): Endpoint => ({
    os: row.from,
    node,
    name: serviceName(row.from),
    label: `${row.from} node`,
  });
  if (sources.length === 0) {
    const meta = {
      ...ids(key()),
      title: `${row.kind} ${row.from} via node-ip`,
      source: hostEnd(row.from, '-'),
      target: target('-'),
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.from} nodes` }];
  }
  return sources.map((node) => ({
    meta: {
      ...ids(key(node.name)),
      title: `${row.kind} ${row.from} ${node.name} via node-ip`,
      source: hostEnd(row.from, node.name),
      target: target(node.name),
      placement: '',
    },
    probe: (w) => {
      const svc = service(w, row.from);
      const base = `http://${node.ip}:${svc.nodePort}`;
      return everyEndpoint(w, row.from, hostNetworkSource(node.name), base);
    },
  }));
}
