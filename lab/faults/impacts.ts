/**
 * Derives the cells a fault breaks from the lab's nodes. Facts about the suite this relies on come
 * from the matrix (docs/suite.md): cells name their source and target nodes, NodePort cells probe a Service
 * load-balanced over the pods of the row's OS on every node, and names resolve through the
 * cluster DNS pod.
 */
import { outboundNat, windowsCniConfig } from '../cni/windows-cni-config.ts';
import type { LabPlan, NodeOs, PlannedNode } from '../plan/lab-plan.ts';
import { podDnsConfig } from '../cluster/dataplane/cluster-dns.ts';
import { controlPlane } from '../cluster/cluster-bootstrap.ts';
import { OSES, type RowKind } from '../contracts/cells.ts';
import type { CellSelector } from './cell-selector.ts';
import type { FaultImpact } from './fault-definition.ts';
import { editWindowsCni } from './windows-cni-edits.ts';
import { affinityImpact, internalLocalImpact, podNodePortImpact } from './feature-impacts.ts';

export function nodeNames(plan: LabPlan, os?: NodeOs): string[] {
  return plan.nodes.filter((n) => os === undefined || n.os === os).map((n) => n.name);
}

/** The node the cluster DNS pod runs on (the Linux control plane in emulated labs). */
export function dnsNode(plan: LabPlan): string {
  return controlPlane(plan).name;
}

/** Whether traffic from node `from` (or its pods) to a pod on node `to` is lost. */
export type PathBroken = (from: string, to: string) => boolean;

/**
 * NodePort cells (`kinds`, on nodes of `oses`): a NodePort cell sweeps until every backend
 * answered, so one backend cut off from the node whose port is probed fails it. A node's own
 * NodePort from itself is one of them, on Linux nodes only: Windows nodes never serve it (the
 * profiles expect its failure), so no fault can turn it red.
 */
export function nodePortImpact(
  plan: LabPlan,
  broken: PathBroken,
  kinds: readonly RowKind[] = NODEPORT_KINDS,
  oses: readonly NodeOs[] = OSES,
): CellSelector[] {
  return oses.flatMap((os) => {
    const backends = nodeNames(plan, os);
    return backends
      .filter((node) => backends.some((backend) => broken(node, backend)))
      .map((node): CellSelector => ({ kinds, toOs: os, toAll: [node] }));
  });
}

/** NodePort paths that break with Service endpoints lost from some nodes: from outside, a node itself, pods. */
function nodePortPathsImpact(plan: LabPlan, broken: PathBroken): CellSelector[] {
  return [
    ...nodePortImpact(plan, broken),
    ...nodePortImpact(plan, broken, ['host-network-to-own-nodeport'], ['linux']),
    ...podNodePortImpact(plan, broken),
  ];
}

/**
 * Whether `node`'s pods reach the lab network unSNATed (Windows l2bridge: the lab CIDR is in the
 * OutBoundNAT ExceptionList), so a node answers them at their pod IP; else flannel's masquerade
 * (Linux) or OutBoundNAT (Windows) make it the node's own address.
 */
function podsReachLabUnnated(plan: LabPlan, node: string): boolean {
  const planned = plan.nodes.find((n) => n.name === node);
  if (planned?.os !== 'windows') return false;
  return outboundNat(windowsCniConfig(plan, planned)).exceptions.includes(plan.network.cidr);
}

/**
 * The rows through a Service's ClusterIP from pods, every endpoint answering and seeing the pod:
 * TCP and UDP, one port number for both, and the churn row (TCP, after each change of its
 * endpoints); kube-proxy's rules and the faults here treat them alike. A churn cell names the
 * endpoints live after its step as its targets, none after `scaled-to-zero`.
 */
export const SERVICE_KINDS: readonly RowKind[] = [
  'pod-to-service',
  'pod-to-service-udp',
  'dual-protocol',
  'churn',
];
/** The NodePort rows, TCP and UDP, likewise. */
export const NODEPORT_KINDS: readonly RowKind[] = ['nodeport', 'nodeport-udp'];

/**
 * The cells through one node's ClusterIP rules: the Services its pods and its own network reach
 * by ClusterIP and by name (the cluster DNS is a Service too), the API server's, and internal-local
 * (a Windows node's forwarding, the expected failure, cut: an unexpected pass). A Service without
 * endpoints (churn's scaled-to-zero) is refused by a Linux node's rules, which are gone; from a
 * Windows node nothing may answer it anyway.
 */
export function clusterIpPathsFrom(plan: LabPlan, node: PlannedNode): CellSelector[] {
  const from = [node.name];
  return [
    {
      kinds: [
        ...SERVICE_KINDS,
        'hairpin',
        'host-network-to-service',
        'affinity',
        'pod-to-apiserver',
      ],
      from,
      ...(node.os === 'windows' ? { toAny: nodeNames(plan) } : {}),
    },
    { via: 'dns', from },
    ...internalLocalImpact(plan, (source) => source === node.name).mustFail,
  ];
}

/**
 * The cells through one node's NodePorts (via a node without a local endpoint,
 * externalTrafficPolicy Local answers nothing anyway), and with `own` its own NodePort from
 * itself, which a Windows node drops as expected unless a fault makes it refuse.
 */
export function nodePortsOf(node: string, own: boolean): CellSelector[] {
  const kinds: RowKind[] = [
    ...NODEPORT_KINDS,
    'nodeport-local',
    'host-network-to-own-nodeport',
    'pod-to-nodeport',
  ];
  return [
    { kinds: kinds.filter((k) => own || k !== 'host-network-to-own-nodeport'), toAll: [node] },
  ];
}

/** Cells whose DNS lookups fail because the path from their node to the DNS pod is broken. */
export function dnsImpact(plan: LabPlan, broken: PathBroken): CellSelector[] {
  const from = nodeNames(plan).filter((node) => broken(node, dnsNode(plan)));
  return from.length === 0 ? [] : [{ via: 'dns', from }];
}

/**
 * `cut`'s pods cannot exchange packets with other nodes. Pod traffic breaks both ways (replies
 * go to pod IPs); node traffic (NodePort, SNATed to the node) breaks both ways when
 * `nodeTrafficBothWays` (VXLAN: the node speaks from its VTEP address in the pod CIDR), else
 * only towards `cut`'s pods (host-gw: the node speaks from its lab address).
 */
export function cutOffImpact(
  plan: LabPlan,
  cut: string,
  nodeTrafficBothWays: boolean,
): FaultImpact {
  const others = nodeNames(plan).filter((n) => n !== cut);
  const podPath: PathBroken = (from, to) => from !== to && (from === cut || to === cut);
  const nodePath: PathBroken = nodeTrafficBothWays
    ? podPath
    : (from, to) => from !== to && to === cut;
  const both = (kind: RowKind, key: 'toAll' | 'toAny'): CellSelector[] => [
    { kinds: [kind], from: [cut], [key]: others },
    { kinds: [kind], from: others, [key]: [cut] },
  ];
  // A node's own traffic: towards the cut pods it has no route; from the cut node, back to its
  // VXLAN address (in its pod CIDR) no reply finds the way.
  const fromNodes = (kind: RowKind, key: 'toAll' | 'toAny'): CellSelector[] =>
    nodeTrafficBothWays ? both(kind, key) : [{ kinds: [kind], from: others, [key]: [cut] }];
  return {
    mustFail: [
      ...both('pod-to-pod', 'toAll'),
      ...both('pod-to-pod-udp', 'toAll'),
      ...both('large-response', 'toAll'),
      ...both('icmp', 'toAll'),
      // A Service cell sweeps until every endpoint answered: one endpoint across the cut fails it.
      ...SERVICE_KINDS.flatMap((kind) => both(kind, 'toAny')),
      ...fromNodes('host-network-to-pod', 'toAll'),
      ...fromNodes('host-network-to-service', 'toAny'),
      // Pods answered at their own address (not their node's) lose the reply across the cut.
      ...(podsReachLabUnnated(plan, cut)
        ? [
            {
              kinds: ['pod-to-host-network', 'pod-to-nodeport'] as const,
              from: [cut],
              toAll: others,
            },
          ]
        : []),
      ...dnsImpact(plan, podPath),
      ...nodePortPathsImpact(plan, nodePath),
      // A sticky endpoint across the cut fails the cell, one on the same side does not.
      ...affinityImpact(others, [cut]).mustFail,
      ...affinityImpact([cut], others).mustFail,
      ...internalLocalImpact(plan, podPath).mustFail,
    ],
    mayFail: [
      ...affinityImpact(others, [cut]).mayFail,
      ...affinityImpact([cut], others).mayFail,
      ...internalLocalImpact(plan, podPath).mayFail,
    ],
  };
}

/**
 * Service traffic to the endpoints on `nodes` is lost: every Service cell backed by one of them
 * and every NodePort of their OS fails (sweeps ask until every endpoint answered), and so does
 * hairpin traffic there (a pod's own Service has one endpoint, the pod) and Local traffic policy
 * via them (only their own endpoint may answer). The cluster DNS
 * Service's one endpoint is a pod too: on one of `nodes`, every lookup fails.
 */
export function endpointsLostImpact(plan: LabPlan, nodes: readonly string[]): FaultImpact {
  const affinity = affinityImpact(nodes);
  const internal = internalLocalImpact(plan, (_from, to) => nodes.includes(to));
  return {
    mustFail: [
      { kinds: [...SERVICE_KINDS, 'host-network-to-service'], toAny: nodes },
      { kinds: ['hairpin'], from: nodes },
      // A Local Service via a node sends only to the endpoint on that node.
      { kinds: ['nodeport-local'], toAll: nodes },
      ...nodePortPathsImpact(plan, (_from, to) => nodes.includes(to)),
      ...(nodes.includes(dnsNode(plan)) ? [{ via: 'dns' as const }] : []),
      ...affinity.mustFail,
      ...internal.mustFail,
    ],
    mayFail: [...affinity.mayFail, ...internal.mayFail],
    outcomes: ['timeout', ...FORWARDING_UNDONE],
  };
}

/**
 * An outcome of cells expected to fail on Windows nodes that a fault makes pass: their
 * internal-local cells without an endpoint, whose forwarding (the expected failure) is cut.
 */
export const FORWARDING_UNDONE = ['ok'];

/** A namespace name no suite run uses: stands for "the pod's own namespace" in search lists. */
const SOME_NAMESPACE = 'fault-probe';

/** Which DNS rows break when Windows pods lose their search list (as the pods would get it). */
export function searchListImpact(plan: LabPlan, targets: readonly PlannedNode[]): FaultImpact {
  const domain = plan.kubernetes.dnsDomain;
  const lacks = (suffix: string): string[] =>
    targets
      .filter((node) => {
        const config = editWindowsCni(
          windowsCniConfig(plan, node),
          { kind: 'drop-dns-search' },
          node.name,
        );
        return !podDnsConfig(plan, node, SOME_NAMESPACE, config).search.includes(suffix);
      })
      .map((node) => node.name);
  const ownNamespace = lacks(`${SOME_NAMESPACE}.svc.${domain}`);
  const svc = lacks(`svc.${domain}`);
  return {
    mustFail: [
      // A Service's short name needs `<own namespace>.svc.<domain>`; `kubernetes.default` needs `svc.<domain>`.
      ...(ownNamespace.length > 0
        ? [{ kinds: ['dns'] as const, lookup: 'short-name' as const, from: ownNamespace }]
        : []),
      ...(svc.length > 0
        ? [{ kinds: ['dns'] as const, lookup: 'search-list' as const, from: svc }]
        : []),
    ],
    mayFail: [],
    outcomes: ['nxdomain'],
  };
}
