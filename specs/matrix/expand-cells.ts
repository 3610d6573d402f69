/** Expands matrix rows into cells over a lab's real nodes; a cell the lab cannot host is skipped with its reason. */
import { cellId, rowId, type CellKey, type Os } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import type { DeployedPod, DeployedService, SuiteNode, Workloads } from '../model/lab-driver.ts';
import { LARGE_RESPONSE_BYTES, NETEXEC_HTTP_PORT, serviceName } from '../model/workload-names.ts';
import type { MatrixRow } from './rows.ts';

/** Nodes of an OS, workers first: pods on workers are the common case. */
function nodesOf(nodes: readonly SuiteNode[], os: Os): SuiteNode[] {
  const of = nodes.filter((n) => n.os === os);
  return [...of.filter((n) => n.role === 'worker'), ...of.filter((n) => n.role !== 'worker')];
}

/** A deployed pod by name. */
function pod(w: Workloads, name: string): DeployedPod {
  const found = w.pods.find((p) => p.name === name);
  if (found === undefined) throw new Error(`pod ${name} was not deployed`);
  return found;
}

/** The deployed Service backed by pods of `os`. */
function service(w: Workloads, os: Os): DeployedService {
  const found = w.services.find((s) => s.os === os);
  if (found === undefined) throw new Error(`service ${serviceName(os)} was not deployed`);
  return found;
}

/** A pod as a grid endpoint. */
function podEnd(os: Os, node: string, name?: string): Endpoint {
  return { os, node, label: `${os} pod`, ...(name === undefined ? {} : { name }) };
}

/** The `kubernetes` Service's port (https). */
const KUBERNETES_SERVICE_PORT = 443;

const OUTSIDE: Endpoint = { os: 'external', node: 'outside', label: 'external' };

/** The id fields every cell shares, from its key. */
function ids(key: CellKey): { row: string; cell: string; via: string } {
  return { row: rowId(key), cell: cellId(key), via: key.via };
}

/** What a pod-to-pod cell asks the far end (`host`) and how it judges the answer. */
function podRequest(
  row: Extract<MatrixRow, { kind: 'pod-to-pod' | 'large-response' }>,
  host: string,
  source: string,
  target: string,
): Pick<ProbeSpec, 'request' | 'check'> {
  const base = `http://${host}:${NETEXEC_HTTP_PORT}`;
  return row.kind === 'pod-to-pod'
    ? {
        request: { kind: 'http', url: `${base}/clientip` },
        // By name, the name must also have led to the target pod, not just to some pod.
        check: { kind: 'source-ip', expect: source, peer: target },
      }
    : {
        // netexec's /echo (agnhost's too) answers the message: a large answer without a custom endpoint.
        request: { kind: 'http', url: `${base}/echo?msg=${'x'.repeat(LARGE_RESPONSE_BYTES)}` },
        check: { kind: 'bytes', expect: LARGE_RESPONSE_BYTES },
      };
}

function podToPod(
  row: Extract<MatrixRow, { kind: 'pod-to-pod' | 'large-response' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const { placements, vias } =
    row.kind === 'pod-to-pod'
      ? row
      : { placements: ['cross-node' as const], vias: ['ip' as const] };
  return placements.flatMap((placement) =>
    vias.map((via): CellPlan => {
      const src = nodesOf(nodes, row.from)[0];
      const dst =
        placement === 'same-node' ? src : nodesOf(nodes, row.to).find((n) => n.name !== src?.name);
      const meta = {
        ...ids({ kind: row.kind, from: row.from, to: row.to, placement, via }),
        title: `${row.kind} ${row.from}-to-${row.to} ${placement} via ${via}`,
        source: podEnd(row.from, src?.name ?? '-'),
        target: podEnd(row.to, dst?.name ?? '-'),
        placement,
      };
      if (src === undefined || dst === undefined) {
        const lacking = src === undefined ? row.from : row.to;
        const need =
          row.from === row.to && placement === 'cross-node'
            ? `two ${row.to} nodes`
            : `a ${lacking} node`;
        const has = nodesOf(nodes, lacking).length;
        return {
          meta,
          skip: `needs ${need}; the lab has ${has} ${lacking} node${has === 1 ? '' : 's'}`,
        };
      }
      const from = `netexec-${src.name}-a`;
      const to = `netexec-${dst.name}-${placement === 'same-node' ? 'b' : 'a'}`;
      return {
        meta: {
          ...meta,
          source: podEnd(row.from, src.name, from),
          target: podEnd(row.to, dst.name, to),
        },
        probe: (w) => {
          const target = pod(w, to);
          const host = via === 'ip' ? target.ip : target.fqdn;
          return { from, ...podRequest(row, host, pod(w, from).ip, target.ip) };
        },
      };
    }),
  );
}

function podToService(
  row: Extract<MatrixRow, { kind: 'pod-to-service' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const src = nodesOf(nodes, row.from)[0];
  const backends = nodesOf(nodes, row.to);
  return row.vias.map((via): CellPlan => {
    const from = src === undefined ? undefined : `netexec-${src.name}-a`;
    const meta = {
      ...ids({ kind: row.kind, from: row.from, to: row.to, via }),
      title: `pod-to-service ${row.from}-to-${row.to} via ${via}`,
      source: podEnd(row.from, src?.name ?? '-', from),
      target: {
        os: row.to,
        node: backends.map((n) => n.name).join(',') || '-',
        name: serviceName(row.to),
        label: `${row.to} service`,
      },
      placement: '',
    };
    if (from === undefined || backends.length === 0) {
      return {
        meta,
        skip: `needs ${from === undefined ? row.from : row.to} nodes; the lab has none`,
      };
    }
    return {
      meta,
      probe: (w) => {
        const svc = service(w, row.to);
        const host = via === 'cluster-ip' ? svc.clusterIP : svc.fqdn;
        return {
          from,
          request: { kind: 'http', url: `http://${host}:${svc.port}/clientip` },
          check: { kind: 'source-ip', expect: pod(w, from).ip },
        };
      },
    };
  });
}

function nodePort(
  row: Extract<MatrixRow, { kind: 'nodeport' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const targets = nodes.filter((n) => n.os === row.to);
  const key = (node?: string): CellKey => ({
    kind: 'nodeport',
    to: row.to,
    via: 'node-ip',
    ...(node === undefined ? {} : { node }),
  });
  if (targets.length === 0) {
    const meta = {
      ...ids(key()),
      title: `nodeport external-to-${row.to}-node via node-ip`,
      source: OUTSIDE,
      target: { os: row.to, node: '-', label: `${row.to} node` },
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.to} nodes` }];
  }
  return targets.map((node) => ({
    meta: {
      ...ids(key(node.name)),
      title: `nodeport external-to-${row.to}-node ${node.name} via node-ip`,
      source: OUTSIDE,
      target: { os: row.to, node: node.name, label: `${row.to} node` },
      placement: '',
    },
    probe: (w) => ({
      from: 'outside',
      request: { kind: 'http', url: `http://${node.ip}:${service(w, row.to).nodePort}/hostname` },
      check: { kind: 'responds' },
    }),
  }));
}

function outboundNat(
  row: Extract<MatrixRow, { kind: 'outbound-nat' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodes.filter((n) => n.os === row.from);
  const key = (node?: string): CellKey => ({
    kind: 'outbound-nat',
    from: row.from,
    via: 'ip',
    ...(node === undefined ? {} : { node }),
  });
  if (sources.length === 0) {
    const meta = {
      ...ids(key()),
      title: `outbound-nat ${row.from} via ip`,
      source: podEnd(row.from, '-'),
      target: OUTSIDE,
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.from} nodes` }];
  }
  return sources.map((node) => {
    const from = `netexec-${node.name}-a`;
    return {
      meta: {
        ...ids(key(node.name)),
        title: `outbound-nat ${row.from} ${node.name} via ip`,
        source: podEnd(row.from, node.name, from),
        target: OUTSIDE,
        placement: '',
      },
      probe: (w: Workloads): ProbeSpec => ({
        from,
        request: { kind: 'http', url: `http://${w.external.address}:${w.external.port}/clientip` },
        check: { kind: 'source-ip', expect: node.ip },
      }),
    };
  });
}

function dns(row: Extract<MatrixRow, { kind: 'dns' }>, nodes: readonly SuiteNode[]): CellPlan[] {
  const src = nodesOf(nodes, row.from)[0];
  const from = src === undefined ? undefined : `netexec-${src.name}-a`;
  const meta = {
    ...ids({ kind: 'dns', from: row.from, lookup: row.lookup, via: 'dns' }),
    title: `dns ${row.lookup} from ${row.from} via dns`,
    source: podEnd(row.from, src?.name ?? '-', from),
    target: { os: 'linux' as const, node: '-', label: 'cluster DNS' },
    placement: '',
  };
  if (from === undefined) return [{ meta, skip: `the lab has no ${row.from} nodes` }];
  return [
    {
      meta,
      probe: (w) => {
        const svc = service(w, 'linux');
        const [name, expect, port] =
          row.lookup === 'short-name'
            ? [svc.name, svc.clusterIP, svc.port]
            : row.lookup === 'fqdn'
              ? [svc.fqdn, svc.clusterIP, svc.port]
              : ['kubernetes.default', w.apiServiceIP, KUBERNETES_SERVICE_PORT];
        return { from, request: { kind: 'dns', name, port }, check: { kind: 'answer', expect } };
      },
    },
  ];
}

/** Every cell of the matrix for this lab, in a stable order. */
export function expandCells(rows: readonly MatrixRow[], nodes: readonly SuiteNode[]): CellPlan[] {
  return rows.flatMap((row) => {
    switch (row.kind) {
      case 'pod-to-pod':
      case 'large-response':
        return podToPod(row, nodes);
      case 'pod-to-service':
        return podToService(row, nodes);
      case 'nodeport':
        return nodePort(row, nodes);
      case 'outbound-nat':
        return outboundNat(row, nodes);
      case 'dns':
        return dns(row, nodes);
    }
  });
}
