/** Expands matrix rows into cells over a lab's real nodes; a cell the lab cannot host is skipped with its reason. */
import type { CellKey } from '../../lab/contracts/cells.ts';
import type { CellPlan, Check, ProbeSpec } from '../model/cell-plan.ts';
import type { RunInfo } from '../../lab/contracts/results-file.ts';
import type { SuiteNode, Workloads } from '../model/lab-driver.ts';
import { sourcePod } from '../model/workload-names.ts';
import { OUTSIDE, ids, nodesOf, pod as podOf, podEnd, service } from './cell-parts.ts';
import { icmp, hostNetworkPods, podToPod } from './pair-cells.ts';
import { hairpin, hostNetworkToService, podToService } from './service-cells.ts';
import { hostNetworkToOwnNodePort, nodePort, nodePortLocal } from './nodeport-cells.ts';
import { churn } from './churn-cells.ts';
import { affinity, dualProtocol, internalLocal, podToNodePort } from './feature-cells.ts';
import { healthCheckNodePort, KUBERNETES_SERVICE_PORT, reachFromPods } from './reach-cells.ts';
import { internalTrafficPolicyGap } from '../model/service-features.ts';
import type { MatrixRow } from './rows.ts';
import { FULL_MESH, type Mesh } from './mesh.ts';
import { DEFAULT_PERF, perfCells, type PerfRow, type PerfSettings } from './perf-cells.ts';

/**
 * What the echo must see of an outbound-NAT cell's pod under OUTBOUND_NAT: its node's address
 * (`node`, the default on the project's labs), the pod's own (`preserve`), or either, named in the
 * detail (`report`).
 */
export function outboundSourceCheck(
  mode: LabFeatures['outboundNat'],
  w: Workloads,
  from: string,
  node: SuiteNode,
): Check {
  if (mode === 'report') return { kind: 'source-reported', pod: podOf(w, from).ip, node: node.ip };
  return { kind: 'source-ip', expect: mode === 'preserve' ? podOf(w, from).ip : node.ip };
}

function outboundNat(
  row: Extract<MatrixRow, { kind: 'outbound-nat' | 'icmp-outbound' }>,
  nodes: readonly SuiteNode[],
  mode: LabFeatures['outboundNat'],
): CellPlan[] {
  const sources = nodes.filter((n) => n.os === row.from);
  const key = (node?: string): CellKey => ({
    kind: row.kind,
    from: row.from,
    via: 'ip',
    ...(node === undefined ? {} : { node }),
  });
  if (sources.length === 0) {
    const meta = {
      ...ids(key()),
      title: `${row.kind} ${row.from} via ip`,
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
        title: `${row.kind} ${row.from} ${node.name} via ip`,
        source: podEnd(row.from, node.name, from),
        target: OUTSIDE,
        placement: '',
      },
      probe: (w: Workloads): ProbeSpec =>
        row.kind === 'icmp-outbound'
          ? {
              from,
              request: { kind: 'icmp', host: w.external.address },
              check: { kind: 'echo-reply', from: w.external.address },
            }
          : {
              from,
              request: {
                kind: 'http',
                url: `http://${w.external.address}:${w.external.port}/clientip`,
              },
              check: outboundSourceCheck(mode, w, from, node),
            },
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

/** What the lab says of itself that decides whether it can host a row at all. */
export interface LabFeatures {
  /** The cluster's Kubernetes version (`v1.20.2`, `1.30.4`); unknown: every feature is assumed. */
  kubernetesVersion?: string;
  /** What the outbound-NAT echo must see (OUTBOUND_NAT); absent: the node's address. */
  outboundNat?: RunInfo['outboundNat'];
}

/** Every cell of the matrix for this lab, in a stable order; cross-node pairs as `mesh` takes them. */
export function expandCells(
  rows: readonly MatrixRow[],
  nodes: readonly SuiteNode[],
  mesh: Mesh = FULL_MESH,
  perf: PerfSettings = DEFAULT_PERF,
  lab: LabFeatures = {},
): CellPlan[] {
  const perfRows = rows.filter((r): r is PerfRow => r.kind === 'perf');
  return rows.flatMap((row, i) => {
    switch (row.kind) {
      case 'perf':
        // Every perf row at once, where the first one is: a path's measures run one after another.
        return rows.findIndex((r) => r.kind === 'perf') === i
          ? perfCells(perfRows, nodes, mesh, perf)
          : [];
      case 'pod-to-pod':
      case 'pod-to-pod-udp':
      case 'large-response':
        return podToPod(row, nodes, mesh);
      case 'pod-to-service':
      case 'pod-to-service-udp':
        return podToService(row, nodes);
      case 'hairpin':
        return hairpin(row, nodes);
      case 'host-network-to-pod':
      case 'pod-to-host-network':
        return hostNetworkPods(row, nodes, mesh);
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
      case 'icmp-outbound':
        return outboundNat(row, nodes, lab.outboundNat);
      case 'icmp':
        return icmp(row, nodes, mesh);
      case 'dns':
        return dns(row, nodes);
      case 'dns-tcp':
        return dnsTcp(row, nodes);
      case 'churn':
        return churn(row, nodes);
      case 'pod-to-nodeport':
        return podToNodePort(row, nodes, mesh);
      case 'affinity':
        return affinity(row, nodes);
      case 'dual-protocol':
        return dualProtocol(row, nodes);
      case 'internal-local':
        return internalLocal(row, nodes, internalTrafficPolicyGap(lab.kubernetesVersion));
      case 'health-check-nodeport':
        return healthCheckNodePort(row, nodes);
      case 'external-name':
      case 'pod-to-apiserver':
        return reachFromPods(row, nodes);
    }
  });
}
