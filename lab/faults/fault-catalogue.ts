/** The fault catalogue (docs/faults.md): each fault, what it changes and the cells that must fail. */
import type { LabPlan } from '../plan/lab-plan.ts';
import { NODE_NIC, vxlanDevice } from '../cluster/dataplane/names.ts';
import { VXLAN_OVERHEAD, podMtu } from '../cluster/dataplane/pod-network.ts';
import { FaultError } from './fault-error.ts';
import type { FaultDefinition, FaultImpact } from './fault-definition.ts';
import {
  clusterIpPathsFrom,
  cutOffImpact,
  dnsImpact,
  endpointsLostImpact,
  nodeNames,
  searchListImpact,
  FORWARDING_UNDONE,
  SERVICE_KINDS,
  NODEPORT_KINDS,
  nodePortsOf,
  type PathBroken,
} from './impacts.ts';
import {
  clusterIpsRemoved,
  dnsOverTcpDropped,
  endpointsBlackholed,
  faultTable,
  hairpinMasqueradeMissing,
  icmpToPodsDropped,
  egressLossy,
  ingressMtu,
  masqueradeOff,
  newConnectionsDropped,
  nodePortsRemoved,
  udpToPodsDropped,
} from './nft-rulesets.ts';
import { OVER_TIME_FAULTS } from './over-time-faults.ts';
import {
  apiServerCutImpact,
  otherOsCutImpact,
  ownEndpointUnseenImpact,
} from './feature-impacts.ts';
import { FEATURE_FAULTS } from './feature-faults.ts';
import { exceptionListFault } from './exception-list-fault.ts';
import { names, only, others } from './fault-nodes.ts';

/** What a cell across a cut-off node shows: a drop, or an ICMP unreachable where a route is gone. */
const CUT_OUTCOMES = ['timeout', 'unreachable', ...FORWARDING_UNDONE];

/** Below pod MTU + VXLAN overhead (1500), above what small requests and answers need. */
const LOW_LINK_MTU = 1400;

/** The throttle `lab break link-throttled` puts on a node's lab link (docs/performance.md). */
export const LINK_THROTTLE = ['tbf', 'rate', '1mbit', 'burst', '32kbit', 'latency', '400ms'];
/**
 * link-lossy drops one packet in this many leaving the node's lab link. Not 10: a udp-stream sends
 * about 105 datagrams, and at 10 % loss the better of its two runs stays under the 5 % loss budget
 * one time in twelve (binomial: P(X <= 5) = 0.042 per run), a missed cell; at 20 % one in 60,000.
 */
export const LINK_LOSS_EVERY = 5;

/**
 * The perf cells a degraded lab link of `node` turns red: what the node sends crosses it, so its
 * outgoing streams (tcp-stream, udp-stream from it) and incoming reverse streams (tcp-stream-reverse
 * to it, which it sends) across nodes, over `networks`. Every other perf cell through the node may
 * go either way (a Service's backend may sit on the node, request rates are not judged by rate);
 * same-node paths never cross the link, and paths not through the node must stay green.
 */
function linkImpact(
  plan: LabPlan,
  node: string,
  networks: readonly ('pod' | 'host')[],
): FaultImpact {
  const others = plan.nodes.filter((n) => n.name !== node).map((n) => n.name);
  return {
    mustFail: [
      {
        kinds: ['perf'],
        networks,
        measures: ['tcp-stream', 'udp-stream'],
        from: [node],
        toAll: others,
      },
      { kinds: ['perf'], networks, measures: ['tcp-stream-reverse'], from: others, toAll: [node] },
    ],
    mayFail: [
      { kinds: ['perf'], from: [node], toAny: others },
      { kinds: ['perf'], from: others, toAny: [node] },
    ],
    // A stream the link holds back past its deadline ends in an error: failed, as the issue allows.
    outcomes: ['slow', 'flaky', 'timeout', 'error'],
  };
}

export const FAULT_CATALOGUE: readonly FaultDefinition[] = [
  {
    id: 'pod-route-removed',
    summary:
      "the route to one node's pod CIDR is removed on every other node: its pods are cut off (timeouts)",
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (plan, targets) => {
      const cut = only(targets);
      return others(plan, cut).map((n) => ({ kind: 'route-del', node: n.name, cidr: cut.podCIDR }));
    },
    impact: (plan, targets) => {
      const cut = only(targets);
      const impact = cutOffImpact(plan, cut.name, plan.cni.backend === 'vxlan');
      const api = apiServerCutImpact(plan, cut, 'route');
      return { ...impact, mustFail: [...impact.mustFail, ...api], outcomes: CUT_OUTCOMES };
    },
  },
  {
    id: 'vxlan-fdb-flushed',
    summary:
      "one node's VXLAN forwarding database is flushed: it cannot encapsulate to any other node (timeouts)",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { backend: 'vxlan' },
    actions: (plan, targets) => [
      { kind: 'fdb-flush', node: only(targets).name, device: vxlanDevice(plan) },
    ],
    impact: (plan, targets) => {
      const cut = only(targets);
      const impact = cutOffImpact(plan, cut.name, true);
      const api = apiServerCutImpact(plan, cut, 'encapsulation');
      return { ...impact, mustFail: [...impact.mustFail, ...api], outcomes: CUT_OUTCOMES };
    },
  },
  {
    id: 'dns-stopped',
    summary: 'the cluster DNS server process is killed: every lookup fails, IP paths still work',
    scope: { kind: 'lab' },
    requires: { cluster: true },
    actions: () => [{ kind: 'dns-stop' }],
    impact: () => ({ mustFail: [{ via: 'dns' }], mayFail: [] }),
  },
  {
    id: 'windows-dns-search-list-missing',
    summary:
      'Windows pods get no DNS search list (capabilities.dns off, dns.Search empty): relative names fail, FQDNs resolve',
    scope: { kind: 'nodes', os: 'windows' },
    requires: { os: ['windows'], cluster: true },
    actions: (_plan, targets) =>
      targets.map((n) => ({
        kind: 'windows-cni',
        node: n.name,
        edit: { kind: 'drop-dns-search' },
      })),
    impact: searchListImpact,
  },
  {
    id: 'nodeport-rules-removed',
    summary: "kube-proxy's NodePort rules are gone on one node: NodePorts there refuse connections",
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (plan, targets) => {
      const table = faultTable('nodeport-rules-removed');
      const node = only(targets);
      return [
        { kind: 'nft', node: node.name, table, ruleset: nodePortsRemoved(plan, node, table) },
      ];
    },
    impact: (_plan, targets) => ({
      // Refused, the node's own NodePort from itself too (on Windows also, which drops it otherwise).
      mustFail: nodePortsOf(only(targets).name, true),
      mayFail: [],
      outcomes: ['refused'],
    }),
  },
  {
    id: 'clusterip-rules-removed',
    summary:
      'kube-proxy is down on one node: ClusterIPs (Services and cluster DNS) are unreachable from its pods',
    scope: { kind: 'node', prefer: 'linux' },
    requires: {},
    actions: (plan, targets) => {
      const table = faultTable('clusterip-rules-removed');
      return [
        { kind: 'nft', node: only(targets).name, table, ruleset: clusterIpsRemoved(plan, table) },
      ];
    },
    impact: (plan, targets) => ({
      mustFail: clusterIpPathsFrom(plan, only(targets)),
      mayFail: [],
      outcomes: ['timeout', ...FORWARDING_UNDONE],
    }),
  },
  {
    id: 'masquerade-off',
    summary:
      "flannel's outbound masquerade is off on Linux nodes: pod traffic leaves with the pod IP and no reply returns",
    scope: { kind: 'nodes', os: 'linux' },
    requires: {},
    actions: (plan, targets) => {
      const table = faultTable('masquerade-off');
      return targets.map((n) => ({
        kind: 'nft',
        node: n.name,
        table,
        ruleset: masqueradeOff(plan, n, table),
      }));
    },
    impact: (_plan, targets) => ({
      mustFail: [
        { kinds: ['outbound-nat', 'icmp-outbound', 'external-name'], from: names(targets) },
      ],
      mayFail: [],
      outcomes: ['timeout'],
    }),
  },
  exceptionListFault(
    'exception-list-no-cluster-cidr',
    'the cluster (pod) CIDR is dropped from the Windows OutBoundNAT ExceptionList: pod-to-pod arrives from the node IP',
    (plan) => plan.kubernetes.podCIDR,
    // NATed ICMP gets no reply on Windows: pings to pods time out.
    ['pod-to-pod', 'pod-to-pod-udp', 'icmp'],
    ['wrong-source-ip', 'timeout'],
  ),
  exceptionListFault(
    'exception-list-no-service-cidr',
    'the service CIDR is dropped from the Windows OutBoundNAT ExceptionList: Services see the node IP, not the pod',
    (plan) => plan.kubernetes.serviceCIDR,
    SERVICE_KINDS,
  ),
  {
    id: 'windows-endpoints-blackholed',
    summary:
      'the endpoints of the Service backed by Windows pods are blackholed: Service traffic to them times out, direct pod traffic works',
    scope: { kind: 'lab' },
    requires: { os: ['windows'] },
    actions: (plan) => {
      const table = faultTable('windows-endpoints-blackholed');
      const cidrs = plan.nodes.filter((n) => n.os === 'windows').map((n) => n.podCIDR);
      const ruleset = endpointsBlackholed(cidrs, table);
      return plan.nodes.map((n) => ({ kind: 'nft', node: n.name, table, ruleset }));
    },
    impact: (plan) => endpointsLostImpact(plan, nodeNames(plan, 'windows')),
  },
  {
    id: 'node-endpoint-blackholed',
    summary:
      'Service traffic to the endpoint on one node is dropped (a stale load-balancer rule): Services and NodePorts backed by it time out on some requests, the pod itself answers directly',
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (plan, targets) => {
      const table = faultTable('node-endpoint-blackholed');
      const ruleset = endpointsBlackholed([only(targets).podCIDR], table);
      return plan.nodes.map((n) => ({ kind: 'nft', node: n.name, table, ruleset }));
    },
    impact: (plan, targets) => endpointsLostImpact(plan, [only(targets).name]),
  },
  {
    id: 'local-endpoint-missing',
    summary:
      "one node's kube-proxy never programs the Service endpoint on that node (a stale view): from its pods and via its NodePort that endpoint never answers, everything else works",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => {
      const node = only(targets).name;
      return [{ kind: 'stale-proxy', node, endpointsOn: node }];
    },
    impact: (plan, targets) => {
      const node = only(targets);
      return {
        mustFail: [
          // Where its endpoint is one of the Service's (churn deletes it for a while).
          {
            kinds: [...SERVICE_KINDS, 'host-network-to-service'],
            from: [node.name],
            toOs: node.os,
            toAny: [node.name],
          },
          // Its own NodePort from itself, where the node serves it at all (Linux).
          ...(node.os === 'linux'
            ? [{ kinds: ['host-network-to-own-nodeport'] as const, toAll: [node.name] }]
            : []),
          // Its pods' own Services have their one endpoint there: none left, kube-proxy rejects.
          { kinds: ['hairpin'], from: [node.name] },
          // Its Local Service's endpoint there is not local to it any more: dropped (or rejected
          // when the Service has no other endpoint).
          { kinds: [...NODEPORT_KINDS, 'nodeport-local'], toAll: [node.name] },
          ...ownEndpointUnseenImpact(plan, node),
        ],
        mayFail: [],
        // With other endpoints left, they answer and this one never does; with none, kube-proxy
        // rejects; its health check reports none.
        outcomes: ['missing-endpoint', 'refused', 'timeout', 'wrong-answer'],
      };
    },
  },
  {
    id: 'hairpin-masquerade-missing',
    summary:
      'one node does not masquerade hairpin traffic: a pod reaching its own Service answers itself directly and the reply never returns (timeouts); every other path works',
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (_plan, targets) => {
      const node = only(targets);
      const table = faultTable('hairpin-masquerade-missing');
      const ruleset = hairpinMasqueradeMissing(node.podCIDR, table);
      return [{ kind: 'nft', node: node.name, table, ruleset }];
    },
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['hairpin'], from: [only(targets).name] }],
      mayFail: [],
      outcomes: ['timeout'],
    }),
  },
  {
    id: 'local-traffic-policy-ignored',
    summary:
      "one node's kube-proxy programs externalTrafficPolicy Local as Cluster: via its node port the client is SNATed and any endpoint answers, also where the node has none",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => [{ kind: 'local-policy-ignored', node: only(targets).name }],
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['nodeport-local', 'nodeport-local-none'], toAll: [only(targets).name] }],
      mayFail: [],
      outcomes: ['wrong-source-ip', 'wrong-answer'],
    }),
  },
  {
    id: 'stale-endpoint-kept',
    summary:
      "one node's kube-proxy never removes an endpoint it programmed: once a backend is deleted, some requests from its pods still go to the dead pod's address (timeouts); a Service scaled to zero is not refused there",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => [{ kind: 'endpoints-kept', node: only(targets).name }],
    impact: (_plan, targets) => {
      const node = only(targets);
      return {
        // The emulated IPAM hands a recreated pod its predecessor's address (the lowest free
        // one), so the kept rule reaches the new pod after backend-recreated and scaled-back.
        // With no endpoint left, a Linux node should refuse; a Windows node need only not answer.
        mustFail: [
          {
            kinds: ['churn'],
            from: [node.name],
            steps:
              node.os === 'linux' ? ['backend-deleted', 'scaled-to-zero'] : ['backend-deleted'],
          },
        ],
        mayFail: [],
        outcomes: ['timeout'],
      };
    },
  },
  {
    id: 'pods-cut-from-other-os',
    summary:
      "one node's pods cannot open connections to pods of the other OS (one direction: connections towards its pods still work)",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { os: ['linux', 'windows'] },
    actions: (plan, targets) => {
      const node = only(targets);
      const table = faultTable('pods-cut-from-other-os');
      const far = plan.nodes.filter((n) => n.os !== node.os).map((n) => n.podCIDR);
      return [
        {
          kind: 'nft',
          node: node.name,
          table,
          ruleset: newConnectionsDropped(node.podCIDR, far, table),
          // Lookups reuse source ports: an entry from before the fault would let one through.
          forgetFlowsFrom: node.podCIDR,
        },
      ];
    },
    impact: (plan, targets) => {
      const node = only(targets);
      const os = new Map(plan.nodes.map((n) => [n.name, n.os]));
      const otherOs = node.os === 'windows' ? 'linux' : 'windows';
      const broken: PathBroken = (from, to) => from === node.name && os.get(to) !== node.os;
      return {
        mustFail: [
          {
            kinds: [
              'pod-to-pod',
              'pod-to-pod-udp',
              'large-response',
              'icmp',
              'affinity',
              ...SERVICE_KINDS,
            ],
            from: [node.name],
            toOs: otherOs,
            // A Service without endpoints (churn's scaled-to-zero) is refused on the node itself.
            toAny: nodeNames(plan, otherOs),
          },
          ...otherOsCutImpact(plan, node, otherOs),
          ...dnsImpact(plan, broken),
        ],
        mayFail: [],
        outcomes: ['timeout', ...FORWARDING_UNDONE],
      };
    },
  },
  {
    id: 'udp-to-pods-dropped',
    summary:
      'one node drops UDP to its pods (DNS excepted): requests to them and answers to them are lost, so every UDP cell to or from that node fails; TCP still works',
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (_plan, targets) => {
      const node = only(targets);
      const table = faultTable('udp-to-pods-dropped');
      return [
        { kind: 'nft', node: node.name, table, ruleset: udpToPodsDropped(node.podCIDR, table) },
      ];
    },
    impact: (_plan, targets) => ({
      mustFail: [
        { kinds: ['pod-to-pod-udp'], toAll: [only(targets).name] },
        { kinds: ['pod-to-pod-udp', 'pod-to-service-udp'], from: [only(targets).name] },
        // A sweep asks until every endpoint answered: one behind that node fails it.
        { kinds: ['pod-to-service-udp'], toAny: [only(targets).name] },
        { kinds: ['nodeport-udp'], toOs: only(targets).os },
        { kinds: ['dual-protocol'], from: [only(targets).name], variants: ['udp'] },
        { kinds: ['dual-protocol'], toAny: [only(targets).name], variants: ['udp'] },
      ],
      mayFail: [],
      outcomes: ['timeout'],
    }),
  },
  {
    id: 'icmp-to-pods-dropped',
    summary:
      'one node drops ICMP echo requests to its pods (a firewall that lets only TCP and UDP through): pings to them time out, every other path works',
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (_plan, targets) => {
      const node = only(targets);
      const table = faultTable('icmp-to-pods-dropped');
      return [
        { kind: 'nft', node: node.name, table, ruleset: icmpToPodsDropped(node.podCIDR, table) },
      ];
    },
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['icmp'], toAll: [only(targets).name] }],
      mayFail: [],
      outcomes: ['timeout'],
    }),
  },
  {
    id: 'dns-tcp-dropped',
    summary:
      "one node drops its pods' DNS over TCP (a firewall that lets only UDP 53 through): lookups over TCP from there time out, over UDP they answer",
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (_plan, targets) => {
      const node = only(targets);
      const table = faultTable('dns-tcp-dropped');
      return [
        { kind: 'nft', node: node.name, table, ruleset: dnsOverTcpDropped(node.podCIDR, table) },
      ];
    },
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['dns-tcp'], from: [only(targets).name] }],
      mayFail: [],
      outcomes: ['timeout'],
    }),
  },
  {
    id: 'link-mtu-too-small',
    summary: `one node's lab link MTU is ${LOW_LINK_MTU}, below pod MTU + VXLAN overhead: full-size packets into its pods are lost, small ones pass`,
    scope: { kind: 'node', prefer: 'windows' },
    requires: { backend: 'vxlan' },
    actions: (plan, targets) => {
      const node = only(targets).name;
      const table = faultTable('link-mtu-too-small');
      if (podMtu(plan) + VXLAN_OVERHEAD <= LOW_LINK_MTU)
        throw new FaultError('the lab link MTU is already small');
      return [
        { kind: 'mtu', node, device: NODE_NIC, mtu: LOW_LINK_MTU },
        {
          kind: 'nft',
          node,
          table,
          family: 'netdev',
          ruleset: ingressMtu(NODE_NIC, LOW_LINK_MTU, table),
        },
      ];
    },
    // Only the large-response rows see it: their 8 KiB message crosses the path both ways, so a
    // cell starting or ending on the node gets full-size packets into it.
    impact: (plan, targets) => {
      const node = only(targets).name;
      return {
        mustFail: [
          { kinds: ['large-response'], from: [node] },
          { kinds: ['large-response'], toAny: [node] },
        ],
        mayFail: [],
        outcomes: ['timeout'],
      };
    },
  },
  ...FEATURE_FAULTS,
  {
    id: 'link-throttled',
    summary:
      "one node's lab link sends at most 1 Mbit/s (tc tbf): small probes still pass, but in perf mode every stream out of the node is far below its peers",
    scope: { kind: 'node', prefer: 'linux' },
    requires: {},
    witness: 'perf',
    actions: (_plan, targets) => [
      { kind: 'qdisc', node: only(targets).name, device: NODE_NIC, qdisc: LINK_THROTTLE },
    ],
    impact: (plan, targets) => linkImpact(plan, only(targets).name, ['pod', 'host']),
  },
  {
    id: 'link-lossy',
    summary: `one node's lab link loses 1 in ${LINK_LOSS_EVERY} outgoing packets (nftables numgen random): TCP retransmits and the matrix passes, but in perf mode its streams lose segments and datagrams`,
    scope: { kind: 'node', prefer: 'linux' },
    requires: {},
    witness: 'perf',
    actions: (_plan, targets) => {
      const table = faultTable('link-lossy');
      const ruleset = egressLossy(NODE_NIC, LINK_LOSS_EVERY, table);
      return [{ kind: 'nft', node: only(targets).name, table, family: 'inet', ruleset }];
    },
    // Over the host network the node's own streams lost few segments in the runs here (large
    // GSO packets, each one drop); its pods' streams lost about one packet in LINK_LOSS_EVERY.
    impact: (plan, targets) => linkImpact(plan, only(targets).name, ['pod']),
  },
  ...OVER_TIME_FAULTS,
];

/** The catalogue entry, or a FaultError listing every id. */
export function findFault(id: string): FaultDefinition {
  const fault = FAULT_CATALOGUE.find((f) => f.id === id);
  if (fault === undefined) {
    throw new FaultError(`no fault "${id}" in the catalogue`, {
      hint: `faults: ${FAULT_CATALOGUE.map((f) => f.id).join(', ')} (\`lab faults\` describes them)`,
    });
  }
  return fault;
}
