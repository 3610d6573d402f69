/** The hybrid connectivity matrix (docs/suite.md) as data: one entry per row, no assertions here. */

import type {
  DnsLookup,
  Os,
  PerfMeasure,
  PerfNetwork,
  Placement,
} from '../../lab/contracts/cells.ts';

export type MatrixRow =
  | {
      /**
       * Perf mode: one measure (perf-measures.mjs) for a fixed time over one network: pod to pod
       * (same node and cross node), node to node (host network, cross node), or pod to the
       * Service backed by pods of `to`; judged against the run's own figures (perf-budget.ts).
       */
      kind: 'perf';
      measure: PerfMeasure;
      network: PerfNetwork;
      from: Os;
      to: Os;
    }
  | {
      /**
       * Pod → pod by pod IP or headless pod DNS name, over TCP (netexec's HTTP /clientip) or UDP
       * (its UDP `clientip` command); the target must see the source pod IP.
       */
      kind: 'pod-to-pod' | 'pod-to-pod-udp';
      from: Os;
      to: Os;
      placements: Placement[];
      vias: ('ip' | 'dns')[];
    }
  | {
      /**
       * Pod → pod on another node by pod IP, echoing an 8 KiB message: full-size packets both
       * ways, and the whole answer must arrive. Small probes pass a path whose MTU is too small;
       * this row does not.
       */
      kind: 'large-response';
      from: Os;
      to: Os;
    }
  | {
      /**
       * Pod → Service backed by pods of `to`, over TCP (HTTP /hostname then /clientip on one
       * connection) or UDP (the same two questions as datagrams from one socket); every endpoint
       * must answer and see the source pod IP.
       */
      kind: 'pod-to-service' | 'pod-to-service-udp';
      from: Os;
      to: Os;
      vias: ('cluster-ip' | 'dns')[];
    }
  | {
      /**
       * Hairpin: the source pod on every node of `from` → a Service whose only endpoint is that
       * same pod; the answer must come from the pod itself.
       */
      kind: 'hairpin';
      from: Os;
      vias: ('cluster-ip' | 'dns')[];
    }
  | {
      /**
       * Host network paths, every node a source and a target: a node's own network (its
       * host-network netexec; HostProcess on Windows) → a pod on the same node and on every other
       * node (`host-network-to-pod`), every node's pod → a node's own address
       * (`pod-to-host-network`); the right server must answer (its /hostname).
       */
      kind: 'host-network-to-pod' | 'pod-to-host-network';
      from: Os;
      to: Os;
      placements: Placement[];
    }
  | {
      /** A node's own network → the Service backed by pods of `to`, by ClusterIP; every endpoint must answer. */
      kind: 'host-network-to-service';
      from: Os;
      to: Os;
    }
  | {
      /**
       * A node's own network → its own address and the NodePort of its OS's Service; every
       * endpoint must answer (documented as unsupported on Windows).
       */
      kind: 'host-network-to-own-nodeport';
      from: Os;
    }
  | {
      /**
       * The outside world → NodePort on every node of `to`, over TCP or UDP (the Service's UDP
       * port); one cell per node, every endpoint must answer.
       */
      kind: 'nodeport' | 'nodeport-udp';
      to: Os;
    }
  | {
      /**
       * The outside world → the `to` Service with externalTrafficPolicy Local via every node of
       * `to`: via a node with a local endpoint (`nodeport-local`) only that pod answers and sees
       * the client's own address; via one without (`nodeport-local-none`) nothing answers.
       */
      kind: 'nodeport-local' | 'nodeport-local-none';
      to: Os;
    }
  | {
      /** Pod on every node of `from` → the external echo; it must see the node IP. */
      kind: 'outbound-nat';
      from: Os;
    }
  | {
      /** ICMP echo pod → pod by pod IP, every node and every ordered pair; the target must reply. */
      kind: 'icmp';
      from: Os;
      to: Os;
      placements: Placement[];
    }
  | {
      /** ICMP echo from a pod on every node of `from` → the external address; it must reply. */
      kind: 'icmp-outbound';
      from: Os;
    }
  | {
      /** Name resolution from a pod of `from`: what is looked up and what it must resolve to. */
      kind: 'dns';
      from: Os;
      lookup: DnsLookup;
    }
  | {
      /**
       * Endpoint churn: pods on every node of `from` → the churn Service of `to` by ClusterIP,
       * after each step of CHURN_STEPS (specs/model/churn.ts); exactly the live backends must
       * answer, every one seeing the source pod IP, and none after scaling to zero.
       */
      kind: 'churn';
      from: Os;
      to: Os;
    }
  | {
      /**
       * Name resolution over TCP from a pod on every node of `from`: the pod's own nameserver is
       * asked over one TCP connection for the linux Service's fully qualified name (no search
       * list); the answer must be its ClusterIP. The `dns` rows resolve over UDP, as resolvers do
       * first.
       */
      kind: 'dns-tcp';
      from: Os;
    }
  | {
      /**
       * A pod on every node of `from` → the NodePort of the Service backed by pods of `to`, via its
       * own node's address (same-node) and via every other node's (cross-node), every endpoint
       * answering; the backend sees the node that masqueraded, so only who answered counts.
       */
      kind: 'pod-to-nodeport';
      from: Os;
      to: Os;
    }
  | {
      /**
       * sessionAffinity ClientIP to the `to` pods from a pod on every node of `from`: N new
       * connections all reach one endpoint (`sticky`); with a short timeoutSeconds, N before and N
       * after it expired each reach one endpoint, which may differ (`timeout`).
       */
      kind: 'affinity';
      from: Os;
      to: Os;
    }
  | {
      /** One Service port number carrying TCP and UDP: each protocol from every node, every endpoint. */
      kind: 'dual-protocol';
      from: Os;
      to: Os;
    }
  | {
      /**
       * internalTrafficPolicy Local: from a node with an endpoint only that endpoint answers; from
       * a node without one nothing does.
       */
      kind: 'internal-local';
      from: Os;
      to: Os;
    }
  | {
      /**
       * The outside world → every node's health-check node port of the `to` Service (type
       * LoadBalancer, externalTrafficPolicy Local): 200 and the local endpoint count where the
       * node has one, 503 where it has none.
       */
      kind: 'health-check-nodeport';
      to: Os;
    }
  | {
      /**
       * A pod on every node of `from` → an ExternalName Service's name, a CNAME to a name the
       * cluster DNS answers with the external echo's address, and a connection there
       * (`external-name`); TCP and TLS to the API server through the kubernetes Service, whose
       * endpoint is a node's own address, and an HTTP answer (`pod-to-apiserver`).
       */
      kind: 'external-name' | 'pod-to-apiserver';
      from: Os;
    };

const BOTH = ['ip', 'dns'] as const;

/** The four OS pairs of a pairwise row, same-node where both ends share an OS. */
function osPairs(kind: 'host-network-to-pod' | 'pod-to-host-network' | 'icmp'): MatrixRow[] {
  return [
    { kind, from: 'windows', to: 'windows', placements: ['same-node', 'cross-node'] },
    { kind, from: 'windows', to: 'linux', placements: ['cross-node'] },
    { kind, from: 'linux', to: 'windows', placements: ['cross-node'] },
    { kind, from: 'linux', to: 'linux', placements: ['same-node', 'cross-node'] },
  ];
}
const SERVICE_VIAS = ['cluster-ip', 'dns'] as const;

/** The Service-feature rows (docs/service-features.md), from every OS to each OS's Service where there is one. */
function serviceFeatures(): MatrixRow[] {
  const pairs = (kind: 'pod-to-nodeport' | 'affinity' | 'dual-protocol' | 'internal-local') =>
    (['linux', 'windows'] as const).flatMap((from) =>
      (['linux', 'windows'] as const).map((to): MatrixRow => ({ kind, from, to })),
    );
  return [
    ...pairs('pod-to-nodeport'),
    ...pairs('affinity'),
    { kind: 'health-check-nodeport', to: 'linux' },
    { kind: 'health-check-nodeport', to: 'windows' },
    { kind: 'external-name', from: 'linux' },
    { kind: 'external-name', from: 'windows' },
    ...pairs('dual-protocol'),
    { kind: 'pod-to-apiserver', from: 'linux' },
    { kind: 'pod-to-apiserver', from: 'windows' },
    ...pairs('internal-local'),
  ];
}

export const MATRIX: readonly MatrixRow[] = [
  {
    kind: 'pod-to-pod',
    from: 'windows',
    to: 'windows',
    placements: ['same-node', 'cross-node'],
    vias: [...BOTH],
  },
  { kind: 'pod-to-pod', from: 'windows', to: 'linux', placements: ['cross-node'], vias: [...BOTH] },
  { kind: 'pod-to-pod', from: 'linux', to: 'windows', placements: ['cross-node'], vias: [...BOTH] },
  {
    kind: 'pod-to-pod',
    from: 'linux',
    to: 'linux',
    placements: ['same-node', 'cross-node'],
    vias: [...BOTH],
  },
  {
    kind: 'pod-to-pod-udp',
    from: 'windows',
    to: 'windows',
    placements: ['same-node', 'cross-node'],
    vias: [...BOTH],
  },
  {
    kind: 'pod-to-pod-udp',
    from: 'windows',
    to: 'linux',
    placements: ['cross-node'],
    vias: [...BOTH],
  },
  {
    kind: 'pod-to-pod-udp',
    from: 'linux',
    to: 'windows',
    placements: ['cross-node'],
    vias: [...BOTH],
  },
  {
    kind: 'pod-to-pod-udp',
    from: 'linux',
    to: 'linux',
    placements: ['same-node', 'cross-node'],
    vias: [...BOTH],
  },
  { kind: 'large-response', from: 'windows', to: 'windows' },
  { kind: 'large-response', from: 'windows', to: 'linux' },
  { kind: 'large-response', from: 'linux', to: 'windows' },
  { kind: 'large-response', from: 'linux', to: 'linux' },
  { kind: 'pod-to-service', from: 'linux', to: 'windows', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service', from: 'windows', to: 'linux', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service', from: 'linux', to: 'linux', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service', from: 'windows', to: 'windows', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service-udp', from: 'linux', to: 'windows', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service-udp', from: 'windows', to: 'linux', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service-udp', from: 'linux', to: 'linux', vias: [...SERVICE_VIAS] },
  { kind: 'pod-to-service-udp', from: 'windows', to: 'windows', vias: [...SERVICE_VIAS] },
  { kind: 'hairpin', from: 'linux', vias: [...SERVICE_VIAS] },
  { kind: 'hairpin', from: 'windows', vias: [...SERVICE_VIAS] },
  ...osPairs('host-network-to-pod'),
  ...osPairs('pod-to-host-network'),
  { kind: 'host-network-to-service', from: 'linux', to: 'windows' },
  { kind: 'host-network-to-service', from: 'windows', to: 'linux' },
  { kind: 'host-network-to-service', from: 'linux', to: 'linux' },
  { kind: 'host-network-to-service', from: 'windows', to: 'windows' },
  { kind: 'host-network-to-own-nodeport', from: 'linux' },
  { kind: 'host-network-to-own-nodeport', from: 'windows' },
  { kind: 'nodeport', to: 'windows' },
  { kind: 'nodeport', to: 'linux' },
  { kind: 'nodeport-udp', to: 'windows' },
  { kind: 'nodeport-udp', to: 'linux' },
  { kind: 'nodeport-local', to: 'windows' },
  { kind: 'nodeport-local', to: 'linux' },
  { kind: 'nodeport-local-none', to: 'windows' },
  { kind: 'nodeport-local-none', to: 'linux' },
  { kind: 'outbound-nat', from: 'linux' },
  { kind: 'outbound-nat', from: 'windows' },
  ...osPairs('icmp'),
  { kind: 'icmp-outbound', from: 'linux' },
  { kind: 'icmp-outbound', from: 'windows' },
  { kind: 'dns', from: 'linux', lookup: 'short-name' },
  { kind: 'dns', from: 'linux', lookup: 'fqdn' },
  { kind: 'dns', from: 'linux', lookup: 'search-list' },
  { kind: 'dns', from: 'windows', lookup: 'short-name' },
  { kind: 'dns', from: 'windows', lookup: 'fqdn' },
  { kind: 'dns', from: 'windows', lookup: 'search-list' },
  { kind: 'dns-tcp', from: 'linux' },
  { kind: 'dns-tcp', from: 'windows' },
  ...serviceFeatures(),
  { kind: 'churn', from: 'linux', to: 'linux' },
  { kind: 'churn', from: 'windows', to: 'linux' },
  { kind: 'churn', from: 'linux', to: 'windows' },
  { kind: 'churn', from: 'windows', to: 'windows' },
];
