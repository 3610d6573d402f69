/**
 * The Service-feature rows through a Service from every node's pods (docs/service-features.md): session
 * affinity, one port number for TCP and UDP, internalTrafficPolicy Local, and a pod to the
 * NodePort of each OS's Service via its own node and every other node.
 */
import {
  localEndpointNodes,
  type CellKey,
  type Os,
  type Placement,
  type Variant,
} from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import { NOT_FORWARDED_MS, type CellPlan, type ProbeSpec } from '../model/cell-plan.ts';
import type { ProbeRequest, SuiteNode, Workloads } from '../model/lab-driver.ts';
import {
  affinityRequests,
  affinityServiceName,
  dualProtocolServiceName,
  internalLocalServiceName,
  type FeatureServices,
} from '../model/service-features.ts';
import { backendPod, serviceName, sourcePod } from '../model/workload-names.ts';
import {
  REQUESTS_PER_ENDPOINT,
  endpointsOf,
  everyEndpoint,
  ids,
  lacking,
  nodesOf,
  pod,
  podEnd,
  service,
  serviceTarget,
} from './cell-parts.ts';
import type { MatrixRow } from './rows.ts';
import { FULL_MESH, crossNodePairs, type Mesh } from './mesh.ts';

/** How long after an affinity timeout expired the second run starts: the kernel's clock ticks in ms. */
export const AFFINITY_EXPIRY_MARGIN_MS = 500;

type FeatureRow = Extract<
  MatrixRow,
  { kind: 'affinity' | 'dual-protocol' | 'internal-local' | 'pod-to-nodeport' }
>;

/** The feature Services a driver deployed; a cell of a driver that deployed none fails saying so. */
export function features(w: Workloads): FeatureServices {
  if (w.features === undefined) throw new Error('no Service-feature Services were deployed');
  return w.features;
}

/** The one Service of `os` in a list of feature Services. */
function ofOs<T extends { os: Os; name?: string }>(list: readonly T[], os: Os, what: string): T {
  const found = list.find((s) => s.os === os);
  if (found === undefined) throw new Error(`no ${what} Service of ${os} was deployed`);
  return found;
}

/**
 * A row's cells from every node of `row.from`, one per variant `variants` gives for the node (all
 * of them for the skipped cells: none of a source); `skip` says why none can run (an OS without
 * nodes, too few endpoints, a Kubernetes version without the feature).
 */
function perSource(
  row: FeatureRow,
  nodes: readonly SuiteNode[],
  variants: (src?: SuiteNode) => readonly Variant[],
  target: Endpoint,
  skip: string | undefined,
  cell: (src: SuiteNode, variant: Variant) => { title: string; probe: CellPlan['probe'] },
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const key = (variant: Variant, node?: string): CellKey => ({
    kind: row.kind,
    from: row.from,
    to: row.to,
    via: 'cluster-ip',
    variant,
    ...(node === undefined ? {} : { node }),
  });
  const why = sources.length === 0 ? lacking(nodes, row.from) : skip;
  if (why !== undefined) {
    return variants().map((variant) => ({
      meta: {
        ...ids(key(variant)),
        title: `${row.kind} ${row.from}-to-${row.to} ${variant} via cluster-ip`,
        source: podEnd(row.from, '-'),
        target,
        placement: '',
      },
      skip: why,
    }));
  }
  return sources.flatMap((src) =>
    variants(src).map((variant): CellPlan => {
      const { title, probe } = cell(src, variant);
      return {
        meta: {
          ...ids(key(variant, src.name)),
          title,
          source: podEnd(row.from, src.name, sourcePod(src.name)),
          target,
          placement: '',
        },
        probe,
      };
    }),
  );
}

/**
 * Session affinity: `sticky` makes affinityRequests(endpoints) new connections, all of which must
 * reach one endpoint; `timeout` makes one to a Service with a short timeoutSeconds (the client's
 * affinity), waits until it expired, and makes N more, which must reach one endpoint, the first
 * one's or another (whether the affinity expired is a coin flip, so it is reported, not judged).
 */
export function affinity(
  row: Extract<MatrixRow, { kind: 'affinity' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const backends = nodesOf(nodes, row.to);
  const names = backends.map((n) => n.name);
  const target = serviceTarget(row.to, names, affinityServiceName(row.to), `${row.to} service`);
  const skip =
    backends.length === 0
      ? lacking(nodes, row.to)
      : backends.length < 2
        ? `needs two ${row.to} endpoints to tell a sticky Service from one that is not; the lab has ${backends.length} ${row.to} node`
        : undefined;
  const variants = () => ['sticky', 'timeout'] as const;
  return perSource(row, nodes, variants, target, skip, (src, variant) => {
    const timeout = variant === 'timeout';
    return {
      title: `affinity ${row.from}-to-${row.to} ${src.name}-to-${names.join('+')} ${timeout ? 'across the timeout' : 'sticky'} via cluster-ip`,
      probe: (w): ProbeSpec => {
        const f = features(w);
        const svc = timeout
          ? ofOs(f.affinityTimeout, row.to, 'affinity timeout')
          : { ...ofOs(f.affinity, row.to, 'affinity'), timeoutSeconds: undefined };
        const expect = endpointsOf(w, row.to);
        const requests = affinityRequests(expect.length);
        const sweep = (n: number): ProbeRequest => ({
          kind: 'endpoints',
          base: `http://${svc.clusterIP}:${svc.port}`,
          service: svc.name,
          expect,
          maxRequests: n,
          minRequests: n,
        });
        if (svc.timeoutSeconds === undefined) {
          return {
            from: sourcePod(src.name),
            request: sweep(requests),
            check: { kind: 'same-endpoint', expect, runs: [requests] },
          };
        }
        // One connection makes the client's affinity; once it expired, N must stick again.
        return {
          from: sourcePod(src.name),
          request: sweep(1),
          check: { kind: 'same-endpoint', expect, runs: [1, requests] },
          again: {
            afterMs: svc.timeoutSeconds * 1000 + AFFINITY_EXPIRY_MARGIN_MS,
            request: sweep(requests),
          },
        };
      },
    };
  });
}

/** One Service port number for TCP and UDP: each protocol from every node, every endpoint seeing the pod. */
export function dualProtocol(
  row: Extract<MatrixRow, { kind: 'dual-protocol' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const backends = nodesOf(nodes, row.to).map((n) => n.name);
  const target = serviceTarget(
    row.to,
    backends,
    dualProtocolServiceName(row.to),
    `${row.to} service`,
  );
  const skip = backends.length === 0 ? lacking(nodes, row.to) : undefined;
  const variants = () => ['tcp', 'udp'] as const;
  return perSource(row, nodes, variants, target, skip, (src, variant) => ({
    title: `dual-protocol ${row.from}-to-${row.to} ${src.name}-to-${backends.join('+')} ${variant} via cluster-ip`,
    probe: (w) => {
      const svc = ofOs(features(w).dualProtocol, row.to, 'dual-protocol');
      const from = sourcePod(src.name);
      const base = `${variant === 'udp' ? 'udp' : 'http'}://${svc.clusterIP}:${svc.port}`;
      return everyEndpoint(w, row.to, from, base, pod(w, from).ip);
    },
  }));
}

/**
 * internalTrafficPolicy Local: from a node with an endpoint of the Service, only that endpoint may
 * answer (20 new connections; it tells the policy apart only where the Service has others too);
 * from a node without one, nothing may (a drop or a refusal). `versionGap` says why the cluster
 * has no such policy.
 */
export function internalLocal(
  row: Extract<MatrixRow, { kind: 'internal-local' }>,
  nodes: readonly SuiteNode[],
  versionGap?: string,
): CellPlan[] {
  const local = localEndpointNodes(nodes, row.to);
  const name = internalLocalServiceName(row.to);
  const target = serviceTarget(row.to, local, name, `${row.to} service`);
  const skip = nodesOf(nodes, row.to).length === 0 ? lacking(nodes, row.to) : versionGap;
  // A source has the one variant its node says; a skipped row shows them all.
  const variants = (src?: SuiteNode): Variant[] =>
    src === undefined
      ? ['has-endpoint', 'only-endpoint', 'no-endpoint']
      : !local.includes(src.name)
        ? ['no-endpoint']
        : local.length > 1
          ? ['has-endpoint']
          : ['only-endpoint'];
  return perSource(row, nodes, variants, target, skip, (src, variant) => {
    const has = variant !== 'no-endpoint';
    const where =
      variant === 'no-endpoint'
        ? 'without a local endpoint'
        : variant === 'only-endpoint'
          ? "with the Service's only endpoint"
          : 'with a local endpoint';
    return {
      title: `internal-local ${row.from}-to-${row.to} ${src.name}-to-${local.join('+')} ${where} via cluster-ip`,
      probe: (w): ProbeSpec => {
        const svc = ofOs(features(w).internalLocal, row.to, 'internalTrafficPolicy Local');
        const base = `http://${svc.clusterIP}:${svc.port}`;
        const from = sourcePod(src.name);
        if (!has) {
          return {
            from,
            request: { kind: 'http', url: `${base}/hostname` },
            check: { kind: 'not-forwarded' },
            timeoutMs: NOT_FORWARDED_MS,
          };
        }
        // Sweep until every local backend anywhere answered: a correct node lets none but its own.
        return {
          from,
          request: {
            kind: 'endpoints',
            base,
            service: svc.name,
            expect: local.map(backendPod),
            maxRequests: REQUESTS_PER_ENDPOINT,
          },
          check: { kind: 'every-endpoint', expect: [backendPod(src.name)], only: true },
        };
      },
    };
  });
}

/**
 * A pod on every node → the NodePort of each OS's Service via its own node's address (same-node)
 * and every other node's that `mesh` pairs it with (cross-node); every endpoint must answer. The
 * node masquerades, so only who answered counts.
 */
export function podToNodePort(
  row: Extract<MatrixRow, { kind: 'pod-to-nodeport' }>,
  nodes: readonly SuiteNode[],
  mesh: Mesh = FULL_MESH,
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const backends = nodesOf(nodes, row.to).map((n) => n.name);
  const vias = [...nodesOf(nodes, 'linux'), ...nodesOf(nodes, 'windows')];
  const key = (placement: Placement, src?: SuiteNode, via?: SuiteNode): CellKey => ({
    kind: row.kind,
    from: row.from,
    to: row.to,
    placement,
    via: 'node-ip',
    ...(src === undefined ? {} : { node: src.name }),
    ...(via === undefined || placement === 'same-node' ? {} : { peer: via.name }),
  });
  const viaEnd = (node: SuiteNode | undefined): Endpoint => ({
    os: node?.os ?? row.to,
    node: node?.name ?? '-',
    name: serviceName(row.to),
    label: `${node?.os ?? row.to} node`,
  });
  if (sources.length === 0 || backends.length === 0) {
    const why = lacking(nodes, sources.length === 0 ? row.from : row.to);
    return (['same-node', 'cross-node'] as const).map((placement) => ({
      meta: {
        ...ids(key(placement)),
        title: `pod-to-nodeport ${row.from}-to-${row.to} ${placement} via node-ip`,
        source: podEnd(row.from, '-'),
        target: viaEnd(undefined),
        placement,
      },
      skip: why,
    }));
  }
  const paired = new Set(
    (['linux', 'windows'] as const).flatMap((os) =>
      crossNodePairs({ from: row.from, to: os }, nodes, mesh).map(
        ([s, d]) => `${s.name}>${d.name}`,
      ),
    ),
  );
  return sources.flatMap((src) =>
    vias
      .filter((via) => via.name === src.name || paired.has(`${src.name}>${via.name}`))
      .map((via): CellPlan => {
        const placement: Placement = via.name === src.name ? 'same-node' : 'cross-node';
        const from = sourcePod(src.name);
        return {
          meta: {
            ...ids(key(placement, src, via)),
            title: `pod-to-nodeport ${row.from}-to-${row.to} ${src.name}-to-${via.name} ${placement} via node-ip`,
            source: podEnd(row.from, src.name, from),
            target: viaEnd(via),
            placement,
          },
          probe: (w) =>
            everyEndpoint(w, row.to, from, `http://${via.ip}:${service(w, row.to).nodePort}`),
        };
      }),
  );
}
