/** Expands matrix rows into cells over a lab's real nodes; a cell the lab cannot host is skipped with its reason. */
import {
  cellId,
  localEndpointNodes,
  rowId,
  type CellKey,
  type Os,
  type Placement,
} from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan, ProbeSpec } from '../model/cell-plan.ts';
import {
  hostNetworkSource,
  type DeployedPod,
  type DeployedService,
  type HostNetexec,
  type SuiteNode,
  type Workloads,
} from '../model/lab-driver.ts';
import {
  LARGE_RESPONSE_BYTES,
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
  SERVICE_SLOT,
  backendPod,
  hairpinServiceName,
  localServiceName,
  serviceName,
  slotOf,
  sourcePod,
} from '../model/workload-names.ts';
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
  row: Extract<MatrixRow, { kind: 'pod-to-pod' | 'pod-to-pod-udp' | 'large-response' }>,
  host: string,
  source: string,
  target: string,
): Pick<ProbeSpec, 'request' | 'check'> {
  const base = `http://${host}:${NETEXEC_HTTP_PORT}`;
  // By name, the name must also have led to the target pod, not just to some pod.
  const sourceSeen = { kind: 'source-ip' as const, expect: source, peer: target };
  switch (row.kind) {
    case 'pod-to-pod':
      return { request: { kind: 'http', url: `${base}/clientip` }, check: sourceSeen };
    case 'pod-to-pod-udp':
      return {
        request: { kind: 'udp', host, port: NETEXEC_UDP_PORT, message: 'clientip' },
        check: sourceSeen,
      };
    case 'large-response':
      return {
        // netexec's /echo (agnhost's too) answers the message: a large answer without a custom endpoint.
        request: { kind: 'http', url: `${base}/echo?msg=${'x'.repeat(LARGE_RESPONSE_BYTES)}` },
        check: { kind: 'bytes', expect: LARGE_RESPONSE_BYTES },
      };
  }
}

/** Why a lab without `need` cannot host a cell. */
function lacking(nodes: readonly SuiteNode[], os: Os, need = `a ${os} node`): string {
  const has = nodesOf(nodes, os).length;
  return `needs ${need}; the lab has ${has} ${os} node${has === 1 ? '' : 's'}`;
}

/** The node pairs of a pod-to-pod row: every node (same-node), or every ordered pair (cross-node). */
function nodePairs(
  row: { from: Os; to: Os },
  placement: Placement,
  nodes: readonly SuiteNode[],
): [SuiteNode, SuiteNode][] {
  const sources = nodesOf(nodes, row.from);
  if (placement === 'same-node') return sources.map((n) => [n, n]);
  return sources.flatMap((src) =>
    nodesOf(nodes, row.to)
      .filter((dst) => dst.name !== src.name)
      .map((dst): [SuiteNode, SuiteNode] => [src, dst]),
  );
}

function podToPod(
  row: Extract<MatrixRow, { kind: 'pod-to-pod' | 'pod-to-pod-udp' | 'large-response' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const { placements, vias } =
    row.kind !== 'large-response'
      ? row
      : { placements: ['cross-node' as const], vias: ['ip' as const] };
  return placements.flatMap((placement) => {
    const pairs = nodePairs(row, placement, nodes);
    if (pairs.length === 0) {
      return vias.map((via): CellPlan => {
        const lacks = nodesOf(nodes, row.from).length === 0 ? row.from : row.to;
        const need =
          row.from === row.to && placement === 'cross-node' ? `two ${row.to} nodes` : undefined;
        return {
          meta: {
            ...ids({ kind: row.kind, from: row.from, to: row.to, placement, via }),
            title: `${row.kind} ${row.from}-to-${row.to} ${placement} via ${via}`,
            source: podEnd(row.from, '-'),
            target: podEnd(row.to, '-'),
            placement,
          },
          skip: lacking(nodes, lacks, need),
        };
      });
    }
    return pairs.flatMap(([src, dst]) =>
      vias.map((via): CellPlan => {
        const from = sourcePod(src.name);
        const to = `netexec-${dst.name}-${placement === 'same-node' ? 'b' : 'a'}`;
        const where = placement === 'same-node' ? src.name : `${src.name}-to-${dst.name}`;
        const key: CellKey = {
          kind: row.kind,
          from: row.from,
          to: row.to,
          placement,
          node: src.name,
          ...(placement === 'cross-node' ? { peer: dst.name } : {}),
          via,
        };
        return {
          meta: {
            ...ids(key),
            title: `${row.kind} ${row.from}-to-${row.to} ${where} ${placement} via ${via}`,
            source: podEnd(row.from, src.name, from),
            target: podEnd(row.to, dst.name, to),
            placement,
          },
          probe: (w) => {
            const target = pod(w, to);
            const host = via === 'ip' ? target.ip : target.fqdn;
            return { from, ...podRequest(row, host, pod(w, from).ip, target.ip) };
          },
        };
      }),
    );
  });
}

/** Requests a Service sweep may make per endpoint before it calls one missing. */
export const REQUESTS_PER_ENDPOINT = 20;

/** The pods behind a Service (its endpoints), as `deploy` created them. */
function endpointsOf(w: Workloads, os: Os): string[] {
  return w.pods.filter((p) => p.os === os && slotOf(p.name) === SERVICE_SLOT).map((p) => p.name);
}

/** A sweep of `base` until every endpoint of the `os` Service answered (with `source`, seeing it). */
function everyEndpoint(
  w: Workloads,
  os: Os,
  from: string,
  base: string,
  source?: string,
): ProbeSpec {
  const expect = endpointsOf(w, os);
  return {
    from,
    request: {
      kind: 'endpoints',
      base,
      expect,
      maxRequests: REQUESTS_PER_ENDPOINT * expect.length,
    },
    check: { kind: 'every-endpoint', expect, ...(source === undefined ? {} : { source }) },
  };
}

function podToService(
  row: Extract<MatrixRow, { kind: 'pod-to-service' | 'pod-to-service-udp' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const backends = nodesOf(nodes, row.to);
  const target = {
    os: row.to,
    node: backends.map((n) => n.name).join(',') || '-',
    name: serviceName(row.to),
    label: `${row.to} service`,
  };
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
function hairpin(
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

/** A node's own network as a grid endpoint. */
function hostEnd(os: Os, node: string): Endpoint {
  return { os, node, name: 'host-network', label: `${os} node` };
}

/** The netexec on `node`'s own network, as deployed. */
function hostNetexec(w: Workloads, node: string): HostNetexec {
  const found = w.hostNetwork.find((h) => h.node === node);
  if (found === undefined) throw new Error(`no host-network netexec was deployed on ${node}`);
  return found;
}

/**
 * Host network ↔ pod, every node (same-node) and every ordered pair (cross-node), by address: a
 * node's own network → a pod (`host-network-to-pod`), or a pod → a node's own address
 * (`pod-to-host-network`). The answer must come from the target (its /hostname).
 */
function hostNetworkPods(
  row: Extract<MatrixRow, { kind: 'host-network-to-pod' | 'pod-to-host-network' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const toHost = row.kind === 'pod-to-host-network';
  return row.placements.flatMap((placement) => {
    const pairs = nodePairs(row, placement, nodes);
    const key = (src?: SuiteNode, dst?: SuiteNode): CellKey => ({
      kind: row.kind,
      from: row.from,
      to: row.to,
      placement,
      via: 'ip',
      ...(src === undefined ? {} : { node: src.name }),
      ...(dst === undefined || placement === 'same-node' ? {} : { peer: dst.name }),
    });
    if (pairs.length === 0) {
      const lacks = nodesOf(nodes, row.from).length === 0 ? row.from : row.to;
      const need =
        row.from === row.to && placement === 'cross-node' ? `two ${row.to} nodes` : undefined;
      return [
        {
          meta: {
            ...ids(key()),
            title: `${row.kind} ${row.from}-to-${row.to} ${placement} via ip`,
            source: toHost ? podEnd(row.from, '-') : hostEnd(row.from, '-'),
            target: toHost ? hostEnd(row.to, '-') : podEnd(row.to, '-'),
            placement,
          },
          skip: lacking(nodes, lacks, need),
        },
      ];
    }
    return pairs.map(([src, dst]): CellPlan => {
      const where = placement === 'same-node' ? src.name : `${src.name}-to-${dst.name}`;
      const podName = toHost
        ? sourcePod(src.name)
        : placement === 'same-node'
          ? backendPod(dst.name)
          : sourcePod(dst.name);
      return {
        meta: {
          ...ids(key(src, dst)),
          title: `${row.kind} ${row.from}-to-${row.to} ${where} ${placement} via ip`,
          source: toHost ? podEnd(row.from, src.name, podName) : hostEnd(row.from, src.name),
          target: toHost ? hostEnd(row.to, dst.name) : podEnd(row.to, dst.name, podName),
          placement,
        },
        probe: (w): ProbeSpec => {
          if (toHost) {
            const host = hostNetexec(w, dst.name);
            return {
              from: podName,
              request: { kind: 'http', url: `http://${host.address}:${host.port}/hostname` },
              check: { kind: 'body', expect: host.hostname },
            };
          }
          return {
            from: hostNetworkSource(src.name),
            request: {
              kind: 'http',
              url: `http://${pod(w, podName).ip}:${NETEXEC_HTTP_PORT}/hostname`,
            },
            check: { kind: 'body', expect: podName },
          };
        },
      };
    });
  });
}

/** Every node's own network → the Service of `row.to` by ClusterIP; every endpoint must answer. */
function hostNetworkToService(
  row: Extract<MatrixRow, { kind: 'host-network-to-service' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const backends = nodesOf(nodes, row.to);
  const target = {
    os: row.to,
    node: backends.map((n) => n.name).join(',') || '-',
    name: serviceName(row.to),
    label: `${row.to} service`,
  };
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

/** Every node's own network → its own address and its OS's NodePort; every endpoint must answer. */
function hostNetworkToOwnNodePort(
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

function nodePort(
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
function nodePortLocal(
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
          expect: backends,
          maxRequests: REQUESTS_PER_ENDPOINT,
        },
        check: { kind: 'every-endpoint', expect: [own], source: w.outsideAddress, only: true },
      };
    },
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
    const from = sourcePod(node.name);
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

/** A cell per node of `row.from`, asking the cluster DNS; `title` names the lookup. */
function dnsCells(
  row: Extract<MatrixRow, { kind: 'dns' | 'dns-tcp' }>,
  title: string,
  nodes: readonly SuiteNode[],
  probe: (w: Workloads, from: string) => ProbeSpec,
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const target = { os: 'linux' as const, node: '-', label: 'cluster DNS' };
  if (sources.length === 0) {
    const meta = {
      ...ids({ ...row, via: 'dns' }),
      title: `${title} from ${row.from} via dns`,
      source: podEnd(row.from, '-'),
      target,
      placement: '',
    };
    return [{ meta, skip: `the lab has no ${row.from} nodes` }];
  }
  return sources.map((src): CellPlan => {
    const from = sourcePod(src.name);
    return {
      meta: {
        ...ids({ ...row, node: src.name, via: 'dns' }),
        title: `${title} from ${row.from} ${src.name} via dns`,
        source: podEnd(row.from, src.name, from),
        target,
        placement: '',
      },
      probe: (w) => probe(w, from),
    };
  });
}

function dns(row: Extract<MatrixRow, { kind: 'dns' }>, nodes: readonly SuiteNode[]): CellPlan[] {
  return dnsCells(row, `dns ${row.lookup}`, nodes, (w, from) => {
    const svc = service(w, 'linux');
    const [name, expect, port] =
      row.lookup === 'short-name'
        ? [svc.name, svc.clusterIP, svc.port]
        : row.lookup === 'fqdn'
          ? [svc.fqdn, svc.clusterIP, svc.port]
          : ['kubernetes.default', w.apiServiceIP, KUBERNETES_SERVICE_PORT];
    return { from, request: { kind: 'dns', name, port }, check: { kind: 'answer', expect } };
  });
}

function dnsTcp(
  row: Extract<MatrixRow, { kind: 'dns-tcp' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  return dnsCells(row, 'dns over tcp', nodes, (w, from) => {
    const svc = service(w, 'linux');
    return {
      from,
      request: { kind: 'dns-tcp', name: svc.fqdn },
      check: { kind: 'answer', expect: svc.clusterIP },
    };
  });
}

/** Every cell of the matrix for this lab, in a stable order. */
export function expandCells(rows: readonly MatrixRow[], nodes: readonly SuiteNode[]): CellPlan[] {
  return rows.flatMap((row) => {
    switch (row.kind) {
      case 'pod-to-pod':
      case 'pod-to-pod-udp':
      case 'large-response':
        return podToPod(row, nodes);
      case 'pod-to-service':
      case 'pod-to-service-udp':
        return podToService(row, nodes);
      case 'hairpin':
        return hairpin(row, nodes);
      case 'host-network-to-pod':
      case 'pod-to-host-network':
        return hostNetworkPods(row, nodes);
      case 'host-network-to-service':
        return hostNetworkToService(row, nodes);
      case 'host-network-to-own-nodeport':
        return hostNetworkToOwnNodePort(row, nodes);
      case 'nodeport':
      case 'nodeport-udp':
        return nodePort(row, nodes);
      case 'nodeport-local':
      case 'nodeport-local-none':
        return nodePortLocal(row, nodes);
      case 'outbound-nat':
        return outboundNat(row, nodes);
      case 'dns':
        return dns(row, nodes);
      case 'dns-tcp':
        return dnsTcp(row, nodes);
    }
  });
}
