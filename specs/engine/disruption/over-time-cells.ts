/** Expands the over-time rows over a lab's nodes: held connections, stateful UDP, twin Services. */
import { type CellKey, type Os, type TwinStep, TWIN_STEPS } from '../../../lab/contracts/cells.ts';
import type { CellMeta, Endpoint } from '../../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../../model/cell-plan.ts';
import type { SuiteNode, Workloads } from '../../model/lab-driver.ts';
import type { HeldTarget, OverTimeWorkloads } from '../../model/over-time-driver.ts';
import {
  keptTwinName,
  changedTwinName,
  udpStateBackends,
  udpStateServiceName,
} from '../../model/over-time-names.ts';
import { NETEXEC_HTTP_PORT, serviceName, sourcePod } from '../../model/workload-names.ts';
import {
  OUTSIDE,
  endpointsOf,
  ids,
  lacking,
  nodesOf,
  pod,
  podEnd,
  service,
  serviceTarget,
  REQUESTS_PER_ENDPOINT,
} from '../../matrix/cell-parts.ts';
import type { OverTimeRow } from './over-time-rows.ts';

type Meta = Omit<CellMeta, 'expected' | 'reason'>;

/** A connection held from a pod: opened at the start of the rows, asked again at their end. */
export interface HeldCell {
  family: 'long-lived';
  meta: Meta;
  skip?: string;
  /** The source pod, and where it connects; `client` is the address the far end must see. */
  from?: string;
  target?: (w: Workloads) => { held: HeldTarget; client: string };
}

/** A UDP socket of one source port, through the swap of its Service's backend. */
export interface UdpStateCell {
  family: 'udp-conntrack';
  meta: Meta;
  skip?: string;
  /** The OS whose stateful UDP Service it sends to. */
  os: Os;
  from?: string;
  target?: (w: Workloads, o: OverTimeWorkloads) => HeldTarget;
}

/** A sweep of a twin Service after one step of its OS's twin steps. */
export interface TwinCell {
  family: 'twin-services';
  meta: Meta;
  skip?: string;
  os: Os;
  step: TwinStep;
  probe?: (w: Workloads, o: OverTimeWorkloads) => ProbeSpec;
}

export type OverTimeCell = HeldCell | UdpStateCell | TwinCell;

/** The node of `to` a long-lived connection from `src` goes to: the next one after it (another node). */
function peerOf(
  nodes: readonly SuiteNode[],
  src: SuiteNode,
  from: Os,
  to: Os,
): SuiteNode | undefined {
  const targets = nodesOf(nodes, to);
  if (from === to) {
    if (targets.length < 2) return undefined;
    return targets[(targets.indexOf(src) + 1) % targets.length];
  }
  return targets[nodesOf(nodes, from).indexOf(src) % Math.max(1, targets.length)];
}

function serviceEnd(nodes: readonly SuiteNode[], os: Os, name: string, label: string): Endpoint {
  return serviceTarget(
    os,
    nodesOf(nodes, os).map((n) => n.name),
    name,
    label,
  );
}

function blank(key: CellKey, title: string, source: Endpoint, target: Endpoint): Meta {
  return { ...ids(key), title, source, target, placement: '' };
}

function longLived(
  row: Extract<OverTimeRow, { kind: `long-lived-${string}` }>,
  nodes: readonly SuiteNode[],
): HeldCell[] {
  const sources = nodesOf(nodes, row.from);
  const word = row.kind.slice('long-lived-'.length);
  if (sources.length === 0) {
    const key: CellKey =
      row.kind === 'long-lived-outbound-nat'
        ? { kind: row.kind, from: row.from, via: 'ip' }
        : { kind: row.kind, from: row.from, to: row.to, via: 'ip' };
    const meta = blank(
      key,
      `long-lived ${word} ${row.from} via ip`,
      podEnd(row.from, '-'),
      OUTSIDE,
    );
    return [{ family: 'long-lived', meta, skip: lacking(nodes, row.from) }];
  }
  return sources.map((src): HeldCell => {
    const from = sourcePod(src.name);
    const source = podEnd(row.from, src.name, from);
    const client = (w: Workloads) => pod(w, from).ip;
    switch (row.kind) {
      case 'long-lived-outbound-nat':
        return {
          family: 'long-lived',
          meta: blank(
            { kind: row.kind, from: row.from, node: src.name, via: 'ip' },
            `long-lived outbound-nat ${row.from} ${src.name} via ip`,
            source,
            OUTSIDE,
          ),
          from,
          target: (w) => ({
            held: { kind: 'http', host: w.external.address, port: w.external.port },
            client: src.ip,
          }),
        };
      case 'long-lived-pod-to-service': {
        const target = serviceEnd(nodes, row.to, serviceName(row.to), `${row.to} service`);
        const key: CellKey = {
          kind: row.kind,
          from: row.from,
          to: row.to,
          node: src.name,
          via: 'cluster-ip',
        };
        if (nodesOf(nodes, row.to).length === 0)
          return {
            family: 'long-lived',
            meta: blank(
              key,
              `long-lived pod-to-service ${row.from}-to-${row.to} ${src.name} via cluster-ip`,
              source,
              target,
            ),
            skip: lacking(nodes, row.to),
          };
        return {
          family: 'long-lived',
          meta: blank(
            key,
            `long-lived pod-to-service ${row.from}-to-${row.to} ${src.name}-to-${target.node.replace(/,/g, '+')} via cluster-ip`,
            source,
            target,
          ),
          from,
          target: (w) => {
            const svc = service(w, row.to);
            return {
              held: { kind: 'http', host: svc.clusterIP, port: svc.port },
              client: client(w),
            };
          },
        };
      }
      case 'long-lived-pod-to-pod': {
        const peer = peerOf(nodes, src, row.from, row.to);
        const key: CellKey = {
          kind: row.kind,
          from: row.from,
          to: row.to,
          placement: 'cross-node',
          node: src.name,
          ...(peer === undefined ? {} : { peer: peer.name }),
          via: 'ip',
        };
        const to = peer === undefined ? undefined : sourcePod(peer.name);
        const title = `long-lived pod-to-pod ${row.from}-to-${row.to} ${src.name}-to-${peer?.name ?? 'none'} cross-node via ip`;
        const meta = {
          ...blank(key, title, source, podEnd(row.to, peer?.name ?? '-', to)),
          placement: 'cross-node',
        };
        if (to === undefined)
          return {
            family: 'long-lived',
            meta,
            skip: lacking(nodes, row.to, row.from === row.to ? `two ${row.to} nodes` : undefined),
          };
        return {
          family: 'long-lived',
          meta,
          from,
          target: (w) => ({
            held: { kind: 'http', host: pod(w, to).ip, port: NETEXEC_HTTP_PORT },
            client: client(w),
          }),
        };
      }
    }
  });
}

function udpConntrack(
  row: Extract<OverTimeRow, { kind: 'udp-conntrack' }>,
  nodes: readonly SuiteNode[],
): UdpStateCell[] {
  const backends = udpStateBackends(nodes, row.to);
  const sources = nodesOf(nodes, row.from);
  const name = udpStateServiceName(row.to);
  const serviceEndpoint = serviceTarget(
    row.to,
    [...new Set([backends?.first.node, backends?.second.node].filter((n) => n !== undefined))],
    name,
    `${row.to} udp-state service`,
  );
  const key = (node?: string): CellKey => ({
    kind: 'udp-conntrack',
    from: row.from,
    to: row.to,
    via: row.via,
    ...(node === undefined ? {} : { node }),
  });
  if (sources.length === 0 || backends === undefined) {
    const lacks = sources.length === 0 ? row.from : row.to;
    const meta = blank(
      key(),
      `udp-conntrack ${row.from}-to-${row.to} via ${row.via}`,
      podEnd(row.from, '-'),
      serviceEndpoint,
    );
    return [{ family: 'udp-conntrack', meta, os: row.to, skip: lacking(nodes, lacks) }];
  }
  const live = `${backends.first.node}+${backends.second.node}`;
  if (row.via === 'cluster-ip') {
    return sources.map((src) => {
      const from = sourcePod(src.name);
      return {
        family: 'udp-conntrack',
        meta: blank(
          key(src.name),
          `udp-conntrack ${row.from}-to-${row.to} ${src.name}-to-${live} via cluster-ip`,
          podEnd(row.from, src.name, from),
          serviceEndpoint,
        ),
        os: row.to,
        from,
        target: (_w, o) => {
          const svc = udpStateOf(o, row.to);
          return { kind: 'udp', host: svc.clusterIP, port: svc.port };
        },
      };
    });
  }
  // Via each node's NodePort; the client is a pod on another node where the OS has one.
  return nodesOf(nodes, row.to).map((via) => {
    const client = sources.find((n) => n.name !== via.name) ?? sources[0]!;
    const from = sourcePod(client.name);
    return {
      family: 'udp-conntrack',
      meta: blank(
        key(via.name),
        `udp-conntrack ${row.from}-to-${row.to} ${client.name}-via-${via.name} via node-ip`,
        podEnd(row.from, client.name, from),
        { os: row.to, node: via.name, label: `${row.to} node` },
      ),
      os: row.to,
      from,
      target: (_w, o) => ({ kind: 'udp', host: via.ip, port: udpStateOf(o, row.to).nodePort }),
    };
  });
}

function udpStateOf(o: OverTimeWorkloads, os: Os) {
  const found = o.udpState.find((u) => u.os === os)?.service;
  if (found === undefined) throw new Error(`${udpStateServiceName(os)} was not deployed`);
  return found;
}

function twinServices(
  row: Extract<OverTimeRow, { kind: 'twin-services' }>,
  nodes: readonly SuiteNode[],
): TwinCell[] {
  const sources = nodesOf(nodes, row.from);
  return TWIN_STEPS.flatMap((step): TwinCell[] => {
    const kept = step === 'twin-deleted';
    const name = kept ? keptTwinName(row.to) : changedTwinName(row.to);
    const target = serviceEnd(nodes, row.to, name, `${row.to} twin service`);
    const vias = kept ? (['cluster-ip'] as const) : (['cluster-ip', 'dns'] as const);
    const key = (via: 'cluster-ip' | 'dns', node?: string): CellKey => ({
      kind: 'twin-services',
      from: row.from,
      to: row.to,
      twinStep: step,
      via,
      ...(node === undefined ? {} : { node }),
    });
    if (sources.length === 0 || nodesOf(nodes, row.to).length === 0) {
      const lacks = sources.length === 0 ? row.from : row.to;
      return vias.map((via) => ({
        family: 'twin-services',
        meta: blank(
          key(via),
          `twin-services ${row.from}-to-${row.to} ${step} via ${via}`,
          podEnd(row.from, '-'),
          target,
        ),
        os: row.to,
        step,
        skip: lacking(nodes, lacks),
      }));
    }
    return sources.flatMap((src) =>
      vias.map((via): TwinCell => {
        const from = sourcePod(src.name);
        return {
          family: 'twin-services',
          meta: blank(
            key(via, src.name),
            `twin-services ${row.from}-to-${row.to} ${step} ${src.name}-to-${target.node.replace(/,/g, '+')} via ${via}`,
            podEnd(row.from, src.name, from),
            target,
          ),
          os: row.to,
          step,
          probe: (w, o) => {
            const twin = o.twin.find((t) => t.os === row.to);
            const svc = kept ? twin?.kept : twin?.changed;
            if (svc === undefined) throw new Error(`${name} is not deployed`);
            const expect = endpointsOf(w, row.to);
            const host = via === 'dns' ? svc.fqdn : svc.clusterIP;
            return {
              from,
              request: {
                kind: 'endpoints',
                base: `http://${host}:${svc.port}`,
                service: svc.name,
                expect,
                maxRequests: REQUESTS_PER_ENDPOINT * expect.length,
              },
              check: { kind: 'every-endpoint', expect, source: pod(w, from).ip },
            };
          },
        };
      }),
    );
  });
}

/** Every over-time cell of the rows for this lab, in a stable order. */
export function expandOverTimeCells(
  rows: readonly OverTimeRow[],
  nodes: readonly SuiteNode[],
): OverTimeCell[] {
  return rows.flatMap((row): OverTimeCell[] => {
    switch (row.kind) {
      case 'long-lived-pod-to-pod':
      case 'long-lived-pod-to-service':
      case 'long-lived-outbound-nat':
        return longLived(row, nodes);
      case 'udp-conntrack':
        return udpConntrack(row, nodes);
      case 'twin-services':
        return twinServices(row, nodes);
    }
  });
}
