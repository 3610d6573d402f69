/**
 * The faults of the Service-feature rows (docs/service-features.md): each breaks one feature on one node, as a
 * kube-proxy, a resolver path or a node firewall gets it wrong there, and names the cells that
 * must fail.
 */
import { controlPlane } from '../cluster/cluster-bootstrap.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import type { FaultDefinition } from './fault-definition.ts';
import { only } from './fault-nodes.ts';
import { healthCountsAllImpact } from './feature-impacts.ts';
import {
  apiServerFromPodsDropped,
  faultTable,
  ownNodePortsFromPodsDropped,
} from './nft-rulesets.ts';

export const FEATURE_FAULTS: readonly FaultDefinition[] = [
  {
    id: 'pods-own-nodeport-dropped',
    summary:
      "one node drops its own pods' connections to its own address's NodePorts (the hairpin to its own node HNS has been seen to lose): through that node its pods time out; through other nodes, and other nodes' pods through it, it works",
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (plan, targets) => {
      const node = only(targets);
      const table = faultTable('pods-own-nodeport-dropped');
      const ruleset = ownNodePortsFromPodsDropped(plan, node, table);
      return [{ kind: 'nft', node: node.name, table, ruleset, forgetFlowsFrom: node.podCIDR }];
    },
    impact: (_plan, targets) => {
      const node = only(targets).name;
      return {
        mustFail: [{ kinds: ['pod-to-nodeport'], from: [node], toAll: [node] }],
        mayFail: [],
        outcomes: ['timeout'],
      };
    },
  },
  {
    id: 'affinity-ignored',
    summary:
      "one node's kube-proxy programs sessionAffinity ClientIP as None: its pods' new connections spread over every endpoint (an escape has probability below 1e-4), everything else works",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => [
      { kind: 'proxy-quirk', node: only(targets).name, quirk: 'ignores-affinity' },
    ],
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['affinity'], from: [only(targets).name] }],
      mayFail: [],
      outcomes: ['wrong-answer'],
    }),
  },
  {
    id: 'health-check-wrong',
    summary:
      "one node's kube-proxy counts every endpoint of a LoadBalancer Service as its own in its health check: it answers 200 (and the wrong count) where it has no local endpoint, so a load balancer would send it traffic it drops",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => [
      { kind: 'proxy-quirk', node: only(targets).name, quirk: 'counts-all-endpoints' },
    ],
    impact: (plan, targets) => ({
      mustFail: healthCountsAllImpact(plan, only(targets).name),
      mayFail: [],
      outcomes: ['wrong-answer'],
    }),
  },
  {
    id: 'cname-unanswered',
    summary:
      "the cluster DNS answers one node's pods with an ExternalName Service's CNAME alone, not the address it leads to (a resolver path that does not follow it): the name does not resolve there, every other lookup works",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => [{ kind: 'bare-cname', node: only(targets).name }],
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['external-name'], from: [only(targets).name] }],
      mayFail: [],
      outcomes: ['nxdomain'],
    }),
  },
  {
    id: 'port-protocol-collision',
    summary:
      "one node's kube-proxy keys a Service's ports by number alone: the second protocol on a number (UDP of the dual-protocol Services, TCP of kube-dns's 53) is never programmed there, so its pods' UDP to those Services and DNS over TCP time out",
    scope: { kind: 'node', prefer: 'windows' },
    requires: { cluster: true },
    actions: (_plan, targets) => [
      { kind: 'proxy-quirk', node: only(targets).name, quirk: 'ports-by-number' },
    ],
    impact: (_plan, targets) => {
      const node = only(targets).name;
      return {
        mustFail: [
          { kinds: ['dual-protocol'], from: [node], variants: ['udp'] },
          { kinds: ['dns-tcp'], from: [node] },
        ],
        mayFail: [],
        outcomes: ['timeout', 'unreachable', 'refused'],
      };
    },
  },
  {
    id: 'apiserver-unreachable-from-pods',
    summary:
      "one node drops its pods' connections to the API server's endpoint (a node firewall that keeps pods off the control plane's address): the kubernetes Service from its pods times out, its DNS name still resolves",
    scope: { kind: 'node', prefer: 'windows' },
    requires: {},
    actions: (plan: LabPlan, targets) => {
      const node = only(targets);
      const table = faultTable('apiserver-unreachable-from-pods');
      const { apiServerPort } = plan.kubernetes;
      const ruleset = apiServerFromPodsDropped(
        node.podCIDR,
        controlPlane(plan).ip,
        apiServerPort,
        table,
      );
      return [{ kind: 'nft', node: node.name, table, ruleset, forgetFlowsFrom: node.podCIDR }];
    },
    impact: (_plan, targets) => ({
      mustFail: [{ kinds: ['pod-to-apiserver'], from: [only(targets).name] }],
      mayFail: [],
      outcomes: ['timeout'],
    }),
  },
  {
    id: 'internal-traffic-policy-ignored',
    summary:
      "one Linux node's kube-proxy programs internalTrafficPolicy Local as Cluster (as Windows kube-proxy does): its pods reach the Service's endpoints on other nodes, also where it has none of its own",
    scope: { kind: 'node', os: 'linux' },
    requires: { cluster: true },
    actions: (_plan, targets) => [
      { kind: 'proxy-quirk', node: only(targets).name, quirk: 'ignores-internal-policy' },
    ],
    impact: (_plan, targets) => ({
      // Where its endpoint is the Service's only one, Cluster policy reaches it alone too.
      mustFail: [
        {
          kinds: ['internal-local'],
          from: [only(targets).name],
          variants: ['has-endpoint', 'no-endpoint'],
        },
      ],
      mayFail: [],
      outcomes: ['wrong-answer'],
    }),
  },
];
