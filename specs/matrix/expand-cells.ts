/** Expands matrix rows into cells over a lab's real nodes; a cell the lab cannot host is skipped with its reason. */
import type { SuiteNode, Workloads } from '../drivers/lab-driver.ts';
import type { Endpoint } from '../engine/results.ts';
import {
  LARGE_RESPONSE_BYTES,
  NETEXEC_HTTP_PORT,
  nodesOf,
  pod,
  podEnd,
  service,
  serviceName,
  type CellPlan,
  type ProbeSpec,
} from './cell-plan.ts';
import { rowId, type MatrixRow } from './rows.ts';

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
  const id = rowId(row);
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
        row: id,
        cell: `${id}/${placement}/${via}`,
        title: `${row.kind} ${row.from}-to-${row.to} ${placement} via ${via}`,
        source: podEnd(row.from, src?.name ?? '-'),
        target: podEnd(row.to, dst?.name ?? '-'),
        via,
        placement,
      };
      if (src === undefined || dst === undefined) {
        const need =
          row.from === row.to && placement === 'cross-node'
            ? `two ${row.to} nodes`
            : `a ${src === undefined ? row.from : row.to} node`;
        const has = nodesOf(nodes, row.to).length;
        return {
          meta,
          skip: `needs ${need}; the lab has ${has} ${row.to} node${has === 1 ? '' : 's'}`,
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
  const id = rowId(row);
  const src = nodesOf(nodes, row.from)[0];
  const backends = nodesOf(nodes, row.to);
  return row.vias.map((via): CellPlan => {
    const from = src === undefined ? undefined : `netexec-${src.name}-a`;
    const meta = {
      row: id,
      cell: `${id}/${via}`,
      title: `pod-to-service ${row.from}-to-${row.to} via ${via}`,
      source: podEnd(row.from, src?.name ?? '-', from),
      target: {
        os: row.to,
        node: backends.map((n) => n.name).join(',') || '-',
        name: serviceName(row.to),
        label: `${row.to} service`,
      },
      via,
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
  const id = rowId(row);
  const targets = nodes.filter((n) => n.os === row.to);
  const outside: Endpoint = { os: 'external', node: 'outside', label: 'external' };
  if (targets.length === 0) {
    const meta = {
      row: id,
      cell: `${id}/none/node-ip`,
      title: `nodeport external-to-${row.to}-node via node-ip`,
      source: outside,
      target: { os: row.to, node: '-', label: `${row.to} node` },
      via: 'node-ip',
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.to} nodes` }];
  }
  return targets.map((node) => ({
    meta: {
      row: id,
      cell: `${id}/${node.name}/node-ip`,
      title: `nodeport external-to-${row.to}-node ${node.name} via node-ip`,
      source: outside,
      target: { os: row.to, node: node.name, label: `${row.to} node` },
      via: 'node-ip',
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
  const id = rowId(row);
  const external: Endpoint = { os: 'external', node: 'outside', label: 'external' };
  const sources = nodes.filter((n) => n.os === row.from);
  if (sources.length === 0) {
    const meta = {
      row: id,
      cell: `${id}/none/ip`,
      title: `outbound-nat ${row.from} via ip`,
      source: podEnd(row.from, '-'),
      target: external,
      via: 'ip',
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.from} nodes` }];
  }
  return sources.map((node) => {
    const from = `netexec-${node.name}-a`;
    return {
      meta: {
        row: id,
        cell: `${id}/${node.name}/ip`,
        title: `outbound-nat ${row.from} ${node.name} via ip`,
        source: podEnd(row.from, node.name, from),
        target: external,
        via: 'ip',
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
  const id = rowId(row);
  const src = nodesOf(nodes, row.from)[0];
  const from = src === undefined ? undefined : `netexec-${src.name}-a`;
  const meta = {
    row: id,
    cell: `${id}/dns`,
    title: `dns ${row.lookup} from ${row.from} via dns`,
    source: podEnd(row.from, src?.name ?? '-', from),
    target: { os: 'linux' as const, node: '-', label: 'cluster DNS' },
    via: 'dns',
    placement: '',
  };
  if (from === undefined) return [{ meta, skip: `the lab has no ${row.from} nodes` }];
  return [
    {
      meta,
      probe: (w) => {
        const svc = service(w, 'linux');
        const [name, expect] =
          row.lookup === 'short-name'
            ? [svc.name, svc.clusterIP]
            : row.lookup === 'fqdn'
              ? [svc.fqdn, svc.clusterIP]
              : ['kubernetes.default', w.apiServiceIP];
        return { from, request: { kind: 'dns', name }, check: { kind: 'answer', expect } };
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
