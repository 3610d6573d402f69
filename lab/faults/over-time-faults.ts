/**
 * The faults only time shows (docs/disruption.md): a kube-proxy whose restart rebuilds nothing, stale UDP
 * conntrack entries, an idle timeout that cuts long-lived connections, and cluster DNS pinned to
 * where its pods were. The matrix stays green under each; the over-time rows (and the disruption
 * phase on the fault's own node, as the self-test runs it) must turn exactly their cells red.
 */
import { NODE_ACTIONS } from '../contracts/disruptions.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import type { CellSelector } from './cell-selector.ts';
import type { FaultDefinition } from './fault-definition.ts';
import { FaultError } from './fault-error.ts';
import { clusterIpPathsFrom, nodePortsOf } from './impacts.ts';
import { faultTable, invalidDropped } from './nft-rulesets.ts';

const only = (targets: readonly PlannedNode[]): PlannedNode => {
  const [first] = targets;
  if (first === undefined || targets.length !== 1)
    throw new FaultError('expected exactly one node');
  return first;
};

/** How long an idle established connection lives on the faulty node: well below LONG_LIVED_IDLE_MS. */
export const IDLE_CUT_SECONDS = 10;

/**
 * The cells that go through `node`'s kube-proxy: every path through its ClusterIP rules and its
 * NodePorts (as the two catalogue faults that each remove one of them; a Windows node's own
 * NodePort from itself is dropped as expected, kube-proxy or not), and its health check node port.
 */
function throughProxyOf(plan: LabPlan, node: PlannedNode): CellSelector[] {
  return [
    ...clusterIpPathsFrom(plan, node),
    ...nodePortsOf(node.name, node.os === 'linux'),
    { kinds: ['health-check-nodeport'], toAll: [node.name] },
  ];
}

/** Each selector for the cells of a disruption on `subjects` by `actions`. */
function after(
  selectors: readonly CellSelector[],
  disruption: NonNullable<CellSelector['disruption']>,
): CellSelector[] {
  return selectors.map((s) => ({ ...s, disruption }));
}

const LONG_LIVED = [
  'long-lived-pod-to-pod',
  'long-lived-pod-to-service',
  'long-lived-outbound-nat',
] as const;

export const OVER_TIME_FAULTS: readonly FaultDefinition[] = [
  {
    id: 'kube-proxy-not-rebuilt',
    summary:
      "one node's kube-proxy comes back from a restart without programming any Service: from that restart on, its pods' Services, lookups and NodePorts fail; the matrix before it passes",
    witness: 'disruptions',
    scope: { kind: 'node' },
    requires: { cluster: true },
    actions: (_plan, targets) => [{ kind: 'proxy-restart-broken', node: only(targets).name }],
    impact: (plan, targets) => {
      const node = only(targets);
      return {
        // The phase restarts it first and reboots it later (a boot starts it again): every action
        // on the node, and the lookups from it after the DNS pods moved.
        mustFail: [
          ...after(throughProxyOf(plan, node), { actions: NODE_ACTIONS, subjects: [node.name] }),
          { via: 'dns', from: [node.name], disruption: { actions: ['dns-pods-moved'] } },
          // Connections held through a later action are opened after the restart: through nothing.
          {
            kinds: ['long-lived-pod-to-service'],
            from: [node.name],
            disruption: { actions: ['cni-restart', 'runtime-restart'], subjects: [node.name] },
          },
        ],
        mayFail: [],
      };
    },
  },
  {
    id: 'udp-conntrack-kept',
    summary:
      "one node's kube-proxy never deletes the conntrack entries of gone UDP endpoints: a socket that keeps sending there stays on its deleted backend",
    witness: 'over-time',
    scope: { kind: 'node' },
    requires: { cluster: true },
    actions: (_plan, targets) => [{ kind: 'udp-flows-kept', node: only(targets).name }],
    impact: (_plan, targets) => {
      const node = only(targets).name;
      return {
        // By ClusterIP the entry is on the client's node; by NodePort, on the node whose port it is.
        mustFail: [
          { kinds: ['udp-conntrack'], via: 'cluster-ip', from: [node] },
          { kinds: ['udp-conntrack'], via: 'node-ip', toAll: [node] },
        ],
        mayFail: [],
      };
    },
  },
  {
    id: 'conntrack-idle-cut',
    summary: `one node forgets an established connection after ${IDLE_CUT_SECONDS} s idle and drops what comes after: long-lived connections through it go silent`,
    witness: 'over-time',
    scope: { kind: 'node' },
    requires: {},
    actions: (_plan, targets) => {
      const node = only(targets).name;
      const table = faultTable('conntrack-idle-cut');
      return [
        {
          kind: 'sysctl',
          node,
          key: 'net.netfilter.nf_conntrack_tcp_timeout_established',
          value: String(IDLE_CUT_SECONDS),
        },
        { kind: 'sysctl', node, key: 'net.netfilter.nf_conntrack_tcp_loose', value: '0' },
        { kind: 'nft', node, table, ruleset: invalidDropped(table) },
      ];
    },
    impact: (_plan, targets) => {
      const node = only(targets).name;
      return {
        mustFail: [
          { kinds: LONG_LIVED, from: [node] },
          { kinds: ['long-lived-pod-to-pod'], toAll: [node] },
        ],
        // A Service connection lands on one endpoint at random: through this node's or not.
        mayFail: [{ kinds: ['long-lived-pod-to-service'], toAny: [node] }],
        outcomes: ['timeout'],
      };
    },
  },
  {
    id: 'dns-pinned-after-move',
    summary:
      "one node's cluster DNS stays pinned to where the DNS pods were (a stale load-balancer endpoint): after they move, its pods' lookups go nowhere",
    witness: 'disruptions',
    scope: { kind: 'node' },
    requires: { cluster: true },
    actions: (_plan, targets) => [{ kind: 'dns-pinned', node: only(targets).name }],
    impact: (_plan: LabPlan, targets) => ({
      mustFail: [
        { via: 'dns', from: [only(targets).name], disruption: { actions: ['dns-pods-moved'] } },
      ],
      mayFail: [],
    }),
  },
];
