/**
 * What the over-time rows and the disruption phase (specs/engine/disruption) need from a lab, beyond
 * LabDriver: connections held open in pods, Services changed step by step, and disruptions.
 */
import type { Os } from '../../lab/contracts/cells.ts';
import type { DisruptionAction } from '../../lab/contracts/disruptions.ts';
import type { DeployedPod, ProbeReply, Workloads } from './lab-driver.ts';

/** Where a held connection goes: one keep-alive HTTP connection, or one connected UDP socket. */
export interface HeldTarget {
  kind: 'http' | 'udp';
  host: string;
  port: number;
}

/** Connections a pod keeps open between probes (long-lived rows, stateful UDP). */
export interface HeldConnections {
  /** Why `pod` cannot hold a connection here; undefined when it can. */
  unsupported(pod: DeployedPod): string | undefined;
  /** Opens one from `pod`; resolves with its id, or with the reply saying why it could not. */
  open(
    pod: DeployedPod,
    target: HeldTarget,
    timeoutMs: number,
  ): Promise<{ id: string } | { failed: ProbeReply }>;
  /**
   * One request on it: GET `question` (a path) on the HTTP connection, or `question` as one
   * datagram from the UDP socket; the answer is the reply's body. A reset reads as `refused`, no
   * answer as `timeout`.
   */
  ask(id: string, question: string, timeoutMs: number): Promise<ProbeReply>;
  /** Closes it and removes what held it; idempotent, a connection that died already is fine. */
  close(id: string): Promise<void>;
}

/** A ClusterIP Service the over-time rows deployed. */
export interface OverTimeService {
  name: string;
  clusterIP: string;
  port: number;
  fqdn: string;
}

export interface OverTimeWorkloads {
  /** Per OS: two Services on its `b` pods; `changed` is deleted and made again. */
  twin: { os: Os; kept: OverTimeService; changed: OverTimeService | undefined }[];
  /** Per OS: a UDP NodePort Service whose one backend is swapped for another. */
  udpState: {
    os: Os;
    service: OverTimeService & { nodePort: number };
    first: { name: string; node: string };
    second: { name: string; node: string };
  }[];
}

/** `deployed` with `os`'s changed twin Service deleted (undefined) or made again. */
export function withChangedTwin(
  deployed: OverTimeWorkloads,
  os: Os,
  changed: OverTimeService | undefined,
): OverTimeWorkloads {
  return { ...deployed, twin: deployed.twin.map((t) => (t.os === os ? { ...t, changed } : t)) };
}

/**
 * The changes the over-time rows make, per OS: the UDP Service's backend swapped (the second
 * created, then the first deleted), one twin Service deleted, and made again.
 */
export const OVER_TIME_STEPS = ['udp-backend-switched', 'twin-deleted', 'twin-recreated'] as const;
export type OverTimeStep = (typeof OVER_TIME_STEPS)[number];

/** A disruption the lab has made; `settled` resolves once the disrupted part is back. */
export interface MadeDisruption {
  settled: Promise<void>;
}

export interface Disruptor {
  /**
   * Why this lab cannot make `action` on `subject` (a node, or `cluster`); undefined when it can.
   * `named`: the run named the action (DISRUPTIONS=kube-proxy-restart,…), as a cluster the
   * harness did not make needs before it is touched.
   */
  unsupported(action: DisruptionAction, subject: string, named: boolean): string | undefined;
  /** Makes it; resolves once it is made, so the cells may be probed again from then on. */
  disrupt(action: DisruptionAction, subject: string): Promise<MadeDisruption>;
  /** Puts back what the phase moved that later runs rely on (the emulated DNS pod's node). */
  restore(): Promise<void>;
  /**
   * The data plane is back when disrupt() returns (emulated labs, whose actions are made whole):
   * a cell is probed as any other, with its retries. Otherwise the profile's bound applies.
   */
  readonly backOnReturn: boolean;
}

export interface OverTimeDriver {
  readonly held: HeldConnections;
  /** Deploys the twin Services and the stateful UDP Services with their first backends. */
  deploy(workloads: Workloads): Promise<OverTimeWorkloads>;
  /** Makes `step` on the Services of `os`; resolves with what is deployed after it. */
  step(os: Os, step: OverTimeStep): Promise<OverTimeWorkloads>;
  /** How long after a step every node has to converge (0: converged when step() returns). */
  readonly settleMs: number;
  /** Absent where the lab cannot be disrupted at all. */
  readonly disruptor?: Disruptor;
  /** The run's workloads as they are now: a pod brought back by a reboot has a new address. */
  refresh(): Promise<Workloads>;
}
