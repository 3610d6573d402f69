/** The shape of a catalogue entry: what a fault needs, what it changes, and which cells it breaks. */
import type { CniBackend, LabPlan, NodeOs, PlannedNode } from '../plan/lab-plan.ts';
import type { CellSelector } from './cell-selector.ts';
import type { KubeProxyQuirk } from '../cluster/control/cluster-state.ts';

/** Which nodes a fault acts on, and what `--node` may name. */
export type FaultScope =
  /** The lab as a whole; `--node` is refused. */
  | { kind: 'lab' }
  /** One node (of `os` when given); default: the first worker of `prefer` (else `os`, else any). */
  | { kind: 'node'; os?: NodeOs; prefer?: NodeOs }
  /** Every node of `os`, or only the one `--node` names. */
  | { kind: 'nodes'; os: NodeOs };

export interface FaultRequirements {
  /** Only labs with this flannel backend. */
  backend?: CniBackend;
  /** The lab must have nodes of each of these OSes. */
  os?: NodeOs[];
  /** Needs the emulated cluster API (Windows CNI configs, the DNS pod's process). */
  cluster?: boolean;
}

/** An edit of a Windows node's CNI config. */
export type CniEdit =
  /** Removes one CIDR from the OutBoundNAT ExceptionList. */
  | { kind: 'drop-exception'; cidr: string }
  /** Removes the DNS search list and the runtime's per-pod DNS (`capabilities.dns`). */
  | { kind: 'drop-dns-search' };

/** One change a fault makes; the engine records how to undo it before making it. */
export type FaultAction =
  /**
   * Adds an nftables table of our own on the node; kube-proxy's iptables-restore never touches it.
   * With `forgetFlowsFrom`, the node's conntrack entries of flows from that CIDR are deleted once
   * the table is in, so a rule on `ct state new` holds for every flow from then on, also for one
   * whose addresses and ports happen to match an entry from before (a DNS query from a recycled
   * source port).
   */
  | {
      kind: 'nft';
      node: string;
      table: string;
      family?: 'ip' | 'netdev' | 'inet';
      ruleset: string;
      forgetFlowsFrom?: string;
    }
  /** Puts a root queueing discipline on the node's `device` (tc qdisc add … root `qdisc`). */
  | { kind: 'qdisc'; node: string; device: string; qdisc: string[] }
  /** Sets a link's MTU on the node. */
  | { kind: 'mtu'; node: string; device: string; mtu: number }
  /** Deletes the node's route to `cidr`. */
  | { kind: 'route-del'; node: string; cidr: string }
  /** Deletes every forwarding entry of the node's VXLAN device. */
  | { kind: 'fdb-flush'; node: string; device: string }
  /** With `forgetFlowsFrom`, as for `nft`: flows from that CIDR are forgotten once it applies. */
  | { kind: 'windows-cni'; node: string; edit: CniEdit; forgetFlowsFrom?: string }
  /** Kills the cluster DNS pod's server process. */
  | { kind: 'dns-stop' }
  /** The node's kube-proxy stops programming the workload endpoints on `endpointsOn`. */
  | { kind: 'stale-proxy'; node: string; endpointsOn: string }
  /** The node's kube-proxy programs externalTrafficPolicy Local as Cluster. */
  | { kind: 'local-policy-ignored'; node: string }
  /** The node's kube-proxy keeps every endpoint it programmed, also once its pod is deleted. */
  | { kind: 'endpoints-kept'; node: string }
  /** Sets a kernel setting of the node's network namespace (`net.…`). */
  | { kind: 'sysctl'; node: string; key: string; value: string }
  /** The node's kube-proxy comes back from a restart without programming any Service. */
  | { kind: 'proxy-restart-broken'; node: string }
  /** The node's kube-proxy never deletes the conntrack entries of gone UDP endpoints. */
  | { kind: 'udp-flows-kept'; node: string }
  /** The node's cluster DNS stays pinned to the DNS endpoints of now, wherever the DNS pods go. */
  | { kind: 'dns-pinned'; node: string }
  /** The node's kube-proxy gets `quirk` wrong (on top of what it already gets wrong). */
  | { kind: 'proxy-quirk'; node: string; quirk: KubeProxyQuirk }
  /** The cluster DNS answers the node's pods with an ExternalName's CNAME alone. */
  | { kind: 'bare-cname'; node: string };

/** The cells that fail while the fault is applied. */
export interface FaultImpact {
  /** Every matching cell must fail. */
  mustFail: CellSelector[];
  /**
   * Matching cells may fail or pass: a Service spreads connections over endpoints of which only
   * some are cut off, so each probe's fate is a random pick.
   */
  mayFail: CellSelector[];
  /** The outcomes a failing must-fail cell may show (any failure when absent). */
  outcomes?: string[];
}

/** Which suite's cells can witness a fault (FaultDefinition.witness). */
export const WITNESSES = ['matrix', 'perf', 'over-time', 'disruptions'] as const;
export type Witness = (typeof WITNESSES)[number];

export interface FaultDefinition {
  /** Stable kebab-case id, as used by `lab break`. */
  id: string;
  /**
   * Which suite's cells witness the fault: the conformance matrix (default), the perf mode's
   * measures (SUITE=perf) for faults that make paths slow or lossy rather than broken, the
   * over-time rows (specs/engine/disruption), or those and the disruption phase on the fault's own node.
   */
  witness?: Witness;
  /** One line: what breaks and the symptom. */
  summary: string;
  scope: FaultScope;
  requires: FaultRequirements;
  /** The changes, for the nodes the fault acts on (pure). */
  actions(plan: LabPlan, targets: readonly PlannedNode[]): FaultAction[];
  /** The cells that must (and may) fail, derived from the lab's nodes (pure). */
  impact(plan: LabPlan, targets: readonly PlannedNode[]): FaultImpact;
}
