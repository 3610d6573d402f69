/**
 * The matrix's cell vocabulary and id grammar, shared by the suite (specs/matrix builds cells)
 * and the fault catalogue (lab/faults selects them): ids are built and parsed here only.
 */
import type { NodeOs } from '../plan/lab-plan.ts';

export type Os = NodeOs;
export const OSES: readonly Os[] = ['linux', 'windows'];

export const ROW_KINDS = [
  'pod-to-pod',
  'pod-to-pod-udp',
  'large-response',
  'pod-to-service',
  'pod-to-service-udp',
  'hairpin',
  'host-network-to-pod',
  'pod-to-host-network',
  'host-network-to-service',
  'host-network-to-own-nodeport',
  'nodeport',
  'nodeport-udp',
  'nodeport-local',
  'nodeport-local-none',
  'outbound-nat',
  'icmp',
  'icmp-outbound',
  'dns',
  'dns-tcp',
  'churn',
  'pod-to-nodeport',
  'affinity',
  'health-check-nodeport',
  'external-name',
  'dual-protocol',
  'pod-to-apiserver',
  'internal-local',
  'perf',
] as const;
export type RowKind = (typeof ROW_KINDS)[number];

/**
 * The perf mode's measures (docs/performance.md), named as netperf and iperf name them; what
 * lab/cluster/workload/perf-measures.mjs runs (its own list is checked against this one).
 */
export const PERF_MEASURES = [
  'tcp-rr',
  'tcp-crr',
  'tcp-stream',
  'tcp-stream-reverse',
  'udp-stream',
] as const;
export type PerfMeasure = (typeof PERF_MEASURES)[number];
/** Which network a perf path runs over: pod to pod, node to node (host network), pod to a Service. */
export const PERF_NETWORKS = ['pod', 'host', 'service'] as const;
export type PerfNetwork = (typeof PERF_NETWORKS)[number];

/**
 * What happens to a churn Service's endpoints, in this order: one backend is deleted; it is
 * created again (a new pod on the same node); every backend is deleted; every one is created again.
 */
export const CHURN_STEPS = [
  'backend-deleted',
  'backend-recreated',
  'scaled-to-zero',
  'scaled-back',
] as const;
export type ChurnStep = (typeof CHURN_STEPS)[number];

/** How a probe addresses its target. */
export type Via = 'ip' | 'dns' | 'cluster-ip' | 'node-ip';
export const VIAS: readonly Via[] = ['ip', 'dns', 'cluster-ip', 'node-ip'];
export type Placement = 'same-node' | 'cross-node';
export const PLACEMENTS: readonly Placement[] = ['same-node', 'cross-node'];
export type DnsLookup = 'short-name' | 'fqdn' | 'search-list';
export const DNS_LOOKUPS: readonly DnsLookup[] = ['short-name', 'fqdn', 'search-list'];

/**
 * What tells cells of one source apart within the Service-feature rows: an affinity cell before
 * (`sticky`) or across (`timeout`) the Service's timeoutSeconds; the protocol of a dual-protocol
 * cell; whether the source node has an endpoint of an internalTrafficPolicy Local Service among
 * others elsewhere (`has-endpoint`), as its only one (`only-endpoint`: Cluster policy would reach
 * it alone too), or none (`no-endpoint`).
 */
export const VARIANTS = {
  affinity: ['sticky', 'timeout'],
  'dual-protocol': ['tcp', 'udp'],
  'internal-local': ['has-endpoint', 'only-endpoint', 'no-endpoint'],
} as const;
export type VariantKind = keyof typeof VARIANTS;
export type Variant = (typeof VARIANTS)[VariantKind][number];

/** A row of the matrix: the kind of path and the OSes at its ends. */
export type RowKey =
  | {
      kind:
        | 'pod-to-pod'
        | 'pod-to-pod-udp'
        | 'large-response'
        | 'pod-to-service'
        | 'pod-to-service-udp'
        | 'host-network-to-pod'
        | 'pod-to-host-network'
        | 'host-network-to-service'
        | 'icmp'
        | 'churn'
        | 'pod-to-nodeport'
        | 'affinity'
        | 'dual-protocol'
        | 'internal-local';
      from: Os;
      to: Os;
    }
  /** A node's host network → that node's own IP and NodePort (the Service of its OS). */
  | { kind: 'host-network-to-own-nodeport'; from: Os }
  /** A pod → a Service whose only endpoint is that pod: source and target are one pod of `from`. */
  | { kind: 'hairpin'; from: Os }
  /**
   * The outside world → a node of `to`'s port of the Service backed by pods of `to`: Cluster
   * policy (`nodeport`, `nodeport-udp`), or externalTrafficPolicy Local via a node with a local
   * endpoint (`nodeport-local`) or without one (`nodeport-local-none`).
   */
  | { kind: 'nodeport' | 'nodeport-udp' | 'nodeport-local' | 'nodeport-local-none'; to: Os }
  /** Pods of `from` → outside the cluster: TCP (`outbound-nat`) or an ICMP echo (`icmp-outbound`). */
  | { kind: 'outbound-nat' | 'icmp-outbound'; from: Os }
  | { kind: 'dns'; from: Os; lookup: DnsLookup }
  /** A pod's own nameserver asked over TCP for a Service's fully qualified name. */
  | { kind: 'dns-tcp'; from: Os }
  /** The outside world → every node's health-check node port of the `to` Service (LoadBalancer, Local). */
  | { kind: 'health-check-nodeport'; to: Os }
  /** Pods of `from` → an ExternalName Service's name (a CNAME) → the external echo; the API server. */
  | { kind: 'external-name' | 'pod-to-apiserver'; from: Os }
  /** One perf measure over one network from a node of `from` to a node (or the Service) of `to`. */
  | { kind: 'perf'; measure: PerfMeasure; network: PerfNetwork; from: Os; to: Os };

/**
 * One cell: its row, how it probes, and what tells it apart within the row: the placement of
 * pod-to-pod cells; `node`, where the probe starts (its pod's node; for NodePort cells the node
 * whose port is probed); `peer`, the target pod's node of cross-node cells. Nodes are undefined
 * where the lab has no node to name (the cell is skipped).
 */
export type CellKey = RowKey & {
  via: Via;
  placement?: Placement;
  node?: string;
  peer?: string;
  /** Churn cells: the step after which the cell probes. */
  step?: ChurnStep;
  /** Cells of a VARIANTS row: which of its variants. */
  variant?: Variant;
};

/** The id of a cell that is not a network path: the lab could not carry the suite. */
export const LAB_READY_CELL_ID = 'infrastructure/lab-ready';

/** Stable kebab-case row id, as in logs, JUnit classnames and --grep. */
export function rowId(row: RowKey): string {
  switch (row.kind) {
    case 'pod-to-pod':
    case 'pod-to-pod-udp':
    case 'large-response':
    case 'pod-to-service':
    case 'pod-to-service-udp':
    case 'host-network-to-pod':
    case 'pod-to-host-network':
    case 'host-network-to-service':
    case 'icmp':
    case 'churn':
    case 'pod-to-nodeport':
    case 'affinity':
    case 'dual-protocol':
    case 'internal-local':
      return `${row.kind}/${row.from}-to-${row.to}`;
    case 'health-check-nodeport':
      return `${row.kind}/external-to-${row.to}-service`;
    case 'nodeport':
    case 'nodeport-udp':
    case 'nodeport-local':
    case 'nodeport-local-none':
      return `${row.kind}/external-to-${row.to}-node`;
    case 'hairpin':
    case 'host-network-to-own-nodeport':
    case 'outbound-nat':
    case 'icmp-outbound':
    case 'dns-tcp':
    case 'external-name':
    case 'pod-to-apiserver':
      return `${row.kind}/${row.from}`;
    case 'dns':
      return `dns/${row.lookup}/${row.from}`;
    case 'perf':
      return `perf/${row.measure}/${row.network}/${row.from}-to-${row.to}`;
  }
}

/**
 * Stable cell id: the row id, then the placement and node(s), then via; e.g.
 * `pod-to-pod/windows-to-linux/cross-node/win2/lin1/ip`, `pod-to-service/linux-to-windows/lin1/dns`.
 */
export function cellId(cell: CellKey): string {
  const row = rowId(cell);
  const node = cell.node ?? 'none';
  switch (cell.kind) {
    case 'pod-to-pod':
    case 'pod-to-pod-udp':
    case 'large-response':
    case 'host-network-to-pod':
    case 'pod-to-host-network':
    case 'icmp':
    case 'pod-to-nodeport': {
      const placement = cell.placement ?? 'cross-node';
      const nodes = placement === 'same-node' ? node : `${node}/${cell.peer ?? 'none'}`;
      return `${row}/${placement}/${nodes}/${cell.via}`;
    }
    case 'nodeport':
    case 'nodeport-udp':
    case 'nodeport-local':
    case 'nodeport-local-none':
    case 'hairpin':
    case 'host-network-to-own-nodeport':
    case 'outbound-nat':
    case 'icmp-outbound':
    case 'pod-to-service':
    case 'pod-to-service-udp':
    case 'host-network-to-service':
    case 'dns':
    case 'dns-tcp':
    case 'health-check-nodeport':
    case 'external-name':
    case 'pod-to-apiserver':
      return `${row}/${node}/${cell.via}`;
    case 'churn':
      return `${row}/${cell.step ?? 'none'}/${node}/${cell.via}`;
    case 'affinity':
    case 'dual-protocol':
    case 'internal-local':
      return `${row}/${cell.variant ?? 'none'}/${node}/${cell.via}`;
    case 'perf': {
      if (cell.network === 'service') return `${row}/${node}/${cell.via}`;
      const placement = cell.placement ?? 'cross-node';
      const nodes = placement === 'same-node' ? node : `${node}/${cell.peer ?? 'none'}`;
      return `${row}/${placement}/${nodes}/${cell.via}`;
    }
  }
}

type PodPairKind =
  | 'pod-to-pod'
  | 'pod-to-pod-udp'
  | 'large-response'
  | 'host-network-to-pod'
  | 'pod-to-host-network'
  | 'icmp'
  | 'pod-to-nodeport';
const PAIR_KINDS =
  '(pod-to-pod|pod-to-pod-udp|large-response|host-network-to-pod|pod-to-host-network|icmp|pod-to-nodeport)';
type NodePortKind = Exclude<
  Extract<RowKey, { to: Os; from?: never }>['kind'],
  'health-check-nodeport'
>;
type FromOnlyKind = Extract<RowKey, { from: Os; to?: never; lookup?: never }>['kind'];
const OS = '(linux|windows)';
const VIA = '(ip|dns|cluster-ip|node-ip)';
const NODE = '([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)';
const GRAMMAR: { pattern: RegExp; key: (m: RegExpExecArray) => CellKey }[] = [
  {
    pattern: new RegExp(`^${PAIR_KINDS}/${OS}-to-${OS}/same-node/${NODE}/${VIA}$`),
    key: (m) => ({
      kind: m[1] as PodPairKind,
      from: m[2] as Os,
      to: m[3] as Os,
      placement: 'same-node',
      ...nodePart('node', m[4]!),
      via: m[5] as Via,
    }),
  },
  {
    pattern: new RegExp(`^${PAIR_KINDS}/${OS}-to-${OS}/cross-node/${NODE}/${NODE}/${VIA}$`),
    key: (m) => ({
      kind: m[1] as PodPairKind,
      from: m[2] as Os,
      to: m[3] as Os,
      placement: 'cross-node',
      ...nodePart('node', m[4]!),
      ...nodePart('peer', m[5]!),
      via: m[6] as Via,
    }),
  },
  {
    pattern: new RegExp(
      `^(pod-to-service|pod-to-service-udp|host-network-to-service)/${OS}-to-${OS}/${NODE}/${VIA}$`,
    ),
    key: (m) => ({
      kind: m[1] as 'pod-to-service' | 'pod-to-service-udp' | 'host-network-to-service',
      from: m[2] as Os,
      to: m[3] as Os,
      ...nodePart('node', m[4]!),
      via: m[5] as Via,
    }),
  },
  {
    pattern: new RegExp(
      `^(nodeport|nodeport-udp|nodeport-local|nodeport-local-none)/external-to-${OS}-node/${NODE}/${VIA}$`,
    ),
    key: (m) => ({
      kind: m[1] as NodePortKind,
      to: m[2] as Os,
      ...nodePart('node', m[3]!),
      via: m[4] as Via,
    }),
  },
  {
    pattern: new RegExp(`^health-check-nodeport/external-to-${OS}-service/${NODE}/${VIA}$`),
    key: (m) => ({
      kind: 'health-check-nodeport',
      to: m[1] as Os,
      ...nodePart('node', m[2]!),
      via: m[3] as Via,
    }),
  },
  {
    pattern: new RegExp(
      `^(hairpin|host-network-to-own-nodeport|outbound-nat|icmp-outbound|dns-tcp|external-name|pod-to-apiserver)/${OS}/${NODE}/${VIA}$`,
    ),
    key: (m) => ({
      kind: m[1] as FromOnlyKind,
      from: m[2] as Os,
      ...nodePart('node', m[3]!),
      via: m[4] as Via,
    }),
  },
  ...(Object.entries(VARIANTS) as [VariantKind, readonly Variant[]][]).map(([kind, variants]) => ({
    pattern: new RegExp(`^${kind}/${OS}-to-${OS}/(${variants.join('|')})/${NODE}/${VIA}$`),
    key: (m: RegExpExecArray): CellKey => ({
      kind,
      from: m[1] as Os,
      to: m[2] as Os,
      variant: m[3] as Variant,
      ...nodePart('node', m[4]!),
      via: m[5] as Via,
    }),
  })),
  {
    pattern: new RegExp(`^churn/${OS}-to-${OS}/(${CHURN_STEPS.join('|')})/${NODE}/${VIA}$`),
    key: (m) => ({
      kind: 'churn',
      from: m[1] as Os,
      to: m[2] as Os,
      step: m[3] as ChurnStep,
      ...nodePart('node', m[4]!),
      via: m[5] as Via,
    }),
  },
  {
    pattern: new RegExp(
      `^perf/(${PERF_MEASURES.join('|')})/(pod|host)/${OS}-to-${OS}/(same-node|cross-node)/${NODE}(?:/${NODE})?/${VIA}$`,
    ),
    key: (m) => ({
      kind: 'perf',
      measure: m[1] as PerfMeasure,
      network: m[2] as PerfNetwork,
      from: m[3] as Os,
      to: m[4] as Os,
      placement: m[5] as Placement,
      ...nodePart('node', m[6]!),
      ...(m[7] === undefined ? {} : nodePart('peer', m[7])),
      via: m[8] as Via,
    }),
  },
  {
    pattern: new RegExp(
      `^perf/(${PERF_MEASURES.join('|')})/service/${OS}-to-${OS}/${NODE}/${VIA}$`,
    ),
    key: (m) => ({
      kind: 'perf',
      measure: m[1] as PerfMeasure,
      network: 'service',
      from: m[2] as Os,
      to: m[3] as Os,
      ...nodePart('node', m[4]!),
      via: m[5] as Via,
    }),
  },
  {
    pattern: new RegExp(`^dns/(short-name|fqdn|search-list)/${OS}/${NODE}/${VIA}$`),
    key: (m) => ({
      kind: 'dns',
      lookup: m[1] as DnsLookup,
      from: m[2] as Os,
      ...nodePart('node', m[3]!),
      via: m[4] as Via,
    }),
  },
];

/** `none` in an id stands for "no node": the field is left out of the key. */
function nodePart<K extends 'node' | 'peer'>(field: K, node: string): Partial<Record<K, string>> {
  return node === 'none' ? {} : ({ [field]: node } as Partial<Record<K, string>>);
}

/** The key of a matrix cell id; undefined for anything else (the infrastructure cell, a typo). */
export function parseCellId(id: string): CellKey | undefined {
  for (const { pattern, key } of GRAMMAR) {
    const match = pattern.exec(id);
    if (match !== null) return key(match);
  }
  return undefined;
}

/** The OS the cell's probe starts from, or `external` for probes from outside the cluster. */
export function sourceOs(cell: CellKey): Os | 'external' {
  return 'from' in cell ? cell.from : 'external';
}

/** The OS the cell's probe goes to, or `external` (the echo outside) / `cluster-dns`. */
export function targetOs(cell: CellKey): Os | 'external' | 'cluster-dns' {
  if ('to' in cell) return cell.to;
  if (cell.kind === 'hairpin' || cell.kind === 'host-network-to-own-nodeport') return cell.from;
  // The API server runs on the Linux control plane.
  if (cell.kind === 'pod-to-apiserver') return 'linux';
  return cell.kind === 'outbound-nat' ||
    cell.kind === 'icmp-outbound' ||
    cell.kind === 'external-name'
    ? 'external'
    : 'cluster-dns';
}

/**
 * The nodes of `os` that host an endpoint of the `os` Service with externalTrafficPolicy Local:
 * every one but the last in `nodes`' order, so that a node of each OS with two or more has none;
 * the only one when there is one. The suite places the endpoints by this, the fault catalogue
 * predicts from it.
 */
export function localEndpointNodes(nodes: readonly { name: string; os: Os }[], os: Os): string[] {
  const of = nodes.filter((n) => n.os === os).map((n) => n.name);
  return of.length > 1 ? of.slice(0, -1) : of;
}
