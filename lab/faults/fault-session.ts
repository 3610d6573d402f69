/** What fault injection needs from a lab that is up; built by openFaultSession, or by tests. */
import type { KubeProxyQuirk } from '../cluster/control/cluster-state.ts';
import type { Logger } from '../log/logger.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import type { NodeShell } from '../remote/node-shell.ts';
import type { FaultRecords } from './fault-records.ts';

/** The parts of the emulated cluster API faults use. */
export interface FaultCluster {
  windowsCniConfig(node: string): unknown;
  setWindowsCniConfig(node: string, config: unknown): Promise<void>;
  /** The nodes whose workload endpoints `node`'s kube-proxy leaves out of its rules. */
  staleProxyView(node: string): string[];
  setStaleProxyView(node: string, ignored: readonly string[]): Promise<void>;
  /** Whether `node`'s kube-proxy programs externalTrafficPolicy Local as Cluster. */
  ignoresLocalPolicy(node: string): boolean;
  setIgnoresLocalPolicy(node: string, ignored: boolean): Promise<void>;
  /** Whether `node`'s kube-proxy keeps every endpoint it programmed, also once deleted. */
  keepsEndpoints(node: string): boolean;
  setKeepsEndpoints(node: string, keeps: boolean): Promise<void>;
  /** What `node`'s kube-proxy gets wrong (session affinity, internal policy, health checks, ports). */
  proxyQuirks(node: string): KubeProxyQuirk[];
  setProxyQuirks(node: string, quirks: readonly KubeProxyQuirk[]): Promise<void>;
  /** Whether the cluster DNS answers `node`'s pods with an ExternalName's CNAME alone. */
  bareCname(node: string): boolean;
  setBareCname(node: string, bare: boolean): Promise<void>;
}

/** The cluster DNS pod's server process. */
export interface DnsProcess {
  running(): Promise<boolean>;
  /** Kills the server; the pod stays (as a crashed container the API has not noticed yet). */
  stop(): Promise<void>;
  /** Starts the server again when it is not running and waits until it answers. */
  start(): Promise<void>;
}

export interface FaultSession {
  readonly plan: LabPlan;
  shell(node: string): NodeShell;
  /** Absent when the provider offers no emulated cluster API. */
  readonly cluster?: FaultCluster;
  readonly dns?: DnsProcess;
  readonly records: FaultRecords;
  /** Waits until pods removed by a previous suite run have left no links behind. */
  settle?(): Promise<void>;
  readonly log: Logger;
}
