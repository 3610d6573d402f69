/** What the suite needs from a lab, whatever provides it (netns namespaces or a real cluster). */
import type { CellMeta, RunInfo } from '../../lab/contracts/results-file.ts';
import type { ProbeSpec } from './cell-plan.ts';
import type { PathEvidence } from '../../lab/cluster/path-evidence.ts';
import type { ChurnStep, Os, PerfMeasure, PerfNetwork } from '../../lab/contracts/cells.ts';
import type { ProbeReply } from '../../lab/contracts/probe-reply.ts';
import type { OverTimeDriver } from './over-time-driver.ts';
import type { FeatureServices } from './service-features.ts';

export type { ProbeReply } from '../../lab/contracts/probe-reply.ts';

export interface SuiteNode {
  name: string;
  os: Os;
  role: 'control-plane' | 'worker';
  /** The address the node is reached at from outside the cluster (NodePort, SNAT source). */
  ip: string;
}

/**
 * A node of the cluster the run does not use (not chosen, not Ready, cordoned, a taint its pods
 * do not tolerate, …): the cells that need it are skipped with `why`, a phrase after its name.
 */
export interface LeftOut {
  node: SuiteNode;
  why: string;
}

export interface DeployedPod {
  name: string;
  node: string;
  os: Os;
  ip: string;
  /** `<hostname>.<subdomain>.<ns>.svc.<domain>` through the headless Service. */
  fqdn: string;
}

export interface DeployedService {
  name: string;
  /** OS of the pods backing it. */
  os: Os;
  clusterIP: string;
  /** The HTTP port (netexec's HTTP server behind it). */
  port: number;
  nodePort: number;
  /** The UDP port (netexec's UDP server behind it), and its node port. */
  udpPort: number;
  udpNodePort: number;
  fqdn: string;
}

/** A ClusterIP Service whose only endpoint is `pod` (hairpin cells probe it from that pod). */
export interface HairpinService {
  name: string;
  pod: string;
  clusterIP: string;
  port: number;
  fqdn: string;
}

/**
 * A NodePort Service with externalTrafficPolicy Local, backed by the `b` pods of `os` on the
 * nodes localEndpointNodes names.
 */
export interface LocalService {
  name: string;
  os: Os;
  nodePort: number;
}

/** A netexec on a node's own network (a host-network pod; HostProcess on Windows). */
export interface HostNetexec {
  node: string;
  /** The node's address. */
  address: string;
  /** Its HTTP port on the node. */
  port: number;
  /** What its /hostname answers: the node's hostname. */
  hostname: string;
}

export interface Workloads {
  namespace: string;
  pods: DeployedPod[];
  services: DeployedService[];
  /** One per node: the Service of that node's source pod alone. */
  hairpin: HairpinService[];
  /** One per node: probes from the node's own network start there, pods reach it at the node IP. */
  hostNetwork: HostNetexec[];
  /** One per OS with nodes: its externalTrafficPolicy Local Service. */
  local: LocalService[];
  /** One per OS with nodes: its churn Service (specs/model/churn.ts), by ClusterIP. */
  churn: { os: Os; name: string; clusterIP: string; port: number }[];
  /**
   * The Services of the Service-feature rows (specs/model/service-features.ts); absent where a
   * driver deployed none (their cells then fail, naming what is missing).
   */
  features?: FeatureServices;
  /**
   * The address probes from outside the cluster leave from: what a backend sees of them when
   * nothing on the way SNATs.
   */
  outsideAddress: string;
  /** The external echo: answers /clientip with the address it saw. */
  external: { address: string; port: number };
  /**
   * What the run found unusable before the matrix (clusters the harness did not make), by node
   * name, with why: `outside`, the outside cannot reach the node's address at all (not even its
   * kubelet port); `echo`, the node's own network gets no answer from the external echo. A cell
   * that needs such a path is skipped with the reason (unusable-paths.ts), never judged.
   */
  unreachable?: { outside: Record<string, string>; echo: Record<string, string> };
  apiServiceIP: string;
  dnsDomain: string;
}

/** One request a probe makes; the same on every driver. */
export type ProbeRequest =
  /** GET URL (`http://` or `https://`; TLS without checking the server's certificate). */
  | { kind: 'http'; url: string }
  /** `port`: where the looked-up Service answers (drivers that look up with an HTTP client connect there); default 80. */
  | { kind: 'dns'; name: string; port?: number }
  /** NAME's A records asked of the pod's own nameserver over TCP: one query, no search list. */
  | { kind: 'dns-tcp'; name: string }
  | { kind: 'tcp'; host: string; port: number }
  /** One ICMP echo request to HOST; `peer` is where the echo reply came from. */
  | { kind: 'icmp'; host: string }
  /** One datagram to HOST:PORT (a name is looked up first); the reply datagram is the body. */
  | { kind: 'udp'; host: string; port: number; message: string }
  /**
   * Opens up to `maxRequests` new TCP connections to `base` (`http://HOST:PORT`, no path); on each one
   * GET /hostname then GET /clientip over the same (keep-alive) connection, so both answers come from
   * the same backend. With `udp://HOST:PORT`, a new UDP socket per request instead, sending the
   * datagrams `hostname` then `clientip` from it (one source port: one conntrack entry, one backend). Stops once every name in `expect` has answered, at the first request that fails,
   * or after maxRequests requests; with `minRequests`, not before that many (a kept endpoint that
   * should be gone shows only when a request lands on it).
   */
  | {
      kind: 'endpoints';
      base: string;
      /** The Service at `base`, by name: an error about the sweep names it. */
      service: string;
      /** Never empty: a sweep that expects no endpoint would pass without a request. */
      expect: string[];
      maxRequests: number;
      minRequests?: number;
    }
  /**
   * One perf measure for `durationMs` against netexec at `base` (`http://HOST:PORT`;
   * `udp://HOST:PORT` for udp-stream, at `rateMbps`); its timeout comes on top of the duration.
   */
  | { kind: 'perf'; measure: PerfMeasure; base: string; durationMs: number; rateMbps?: number };

/** Facts for results and JUnit properties (no run id/profile yet). */
export type LabInfo = Omit<RunInfo, 'runId' | 'profile' | 'startedAt'>;

export interface LabDriver extends AsyncDisposable {
  readonly info: LabInfo;
  /** The lab's nodes, known before anything is deployed (cells expand from them). */
  readonly nodes: readonly SuiteNode[];
  /** Nodes the run leaves out; their cells are skipped naming them. None when absent. */
  readonly leftOut?: readonly LeftOut[];
  /** Throws InfrastructureError when the lab cannot carry the suite. */
  checkReady(): Promise<void>;
  /** Deploys the suite's workloads in a per-run namespace and waits until they are ready. */
  deploy(runId: string, podNames: { node: string; name: string }[]): Promise<Workloads>;
  /**
   * How long deploy() may wait for the workloads' images before the deploy's own bound
   * (DEPLOY_TIMEOUT_MS) applies: a first pull of a Windows image takes minutes. Absent: the
   * images are where they run already.
   */
  readonly imagePullTimeoutMs?: number;
  /** Runs a probe inside a pod; `timeoutMs` bounds the connect and the whole probe. */
  probeFromPod(pod: DeployedPod, request: ProbeRequest, timeoutMs: number): Promise<ProbeReply>;
  /** Runs a probe from outside the cluster (the hypervisor host / outside namespace). */
  probeFromOutside(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply>;
  /** Runs a probe on a node's own network (where its host-network netexec runs). */
  probeFromNode(node: string, request: ProbeRequest, timeoutMs: number): Promise<ProbeReply>;
  /**
   * Evidence of one cell's path, where the driver can look at the nodes: their state, and one
   * retry of the probe traced through them. Drivers without node access leave it out.
   */
  pathEvidence?(cell: CellMeta, spec: ProbeSpec, timeoutMs: number): Promise<PathEvidence>;
  /**
   * Why path evidence is collected here only when the run asks for it (EVIDENCE set), or undefined
   * where failing cells get it by default: on a cluster the harness did not make, collecting it
   * changes the user's nodes (privileged pods, nftables trace rules, pktmon captures).
   */
  readonly evidenceOptIn?: string;
  /**
   * Makes `step` (CHURN_STEPS, in order) on the churn Service of `os`: deletes and creates its
   * pods as churnChange() says and returns once the pods it created run; the dataplane's
   * convergence is what the churn cells check.
   */
  churn?(os: Os, step: ChurnStep): Promise<void>;
  /**
   * How long after churn() returned every node's data plane has to converge: a churn cell that
   * has not passed by then fails. 0: converged when churn() returns, probed like any other cell.
   */
  readonly churnSettleMs?: number;
  /** Held connections, stepped Services and disruptions (specs/engine/disruption); absent: those cells are skipped. */
  readonly overTime?: OverTimeDriver;
  /**
   * Why this driver cannot run the perf cell's measure on its path, or undefined when it can:
   * those cells are skipped with the reason.
   */
  perfUnsupported?(cell: PerfCell): string | undefined;
  /** Removes what deploy() created. Idempotent. */
  cleanup(): Promise<void>;
  /** What cleanup() has not removed yet, for a warning when it cannot be waited for. */
  pending(): string[];
}

/** A perf cell's row: what a driver needs to say whether it can measure it. */
export interface PerfCell {
  from: Os;
  to: Os;
  network: PerfNetwork;
  measure: PerfMeasure;
}

const HOST_NETWORK_SOURCE = 'host-network:';

/** ProbeSpec.from for a probe on `node`'s own network (pod names never hold a colon). */
export function hostNetworkSource(node: string): string {
  return `${HOST_NETWORK_SOURCE}${node}`;
}

/** The node a probe starts on: a deployed pod's, or the node of hostNetworkSource(node). */
export function sourceNode(workloads: Workloads, from: string): string | undefined {
  if (from.startsWith(HOST_NETWORK_SOURCE)) return from.slice(HOST_NETWORK_SOURCE.length);
  return workloads.pods.find((p) => p.name === from)?.node;
}

/** Sends a cell's request through `driver`: from the deployed pod it names, a node, or outside. */
export function sendProbe(
  driver: Pick<LabDriver, 'probeFromPod' | 'probeFromOutside' | 'probeFromNode'>,
  workloads: Workloads,
  spec: ProbeSpec,
  timeoutMs: number,
): Promise<ProbeReply> {
  if (spec.from === 'outside') return driver.probeFromOutside(spec.request, timeoutMs);
  if (spec.from.startsWith(HOST_NETWORK_SOURCE)) {
    return driver.probeFromNode(
      spec.from.slice(HOST_NETWORK_SOURCE.length),
      spec.request,
      timeoutMs,
    );
  }
  const pod = workloads.pods.find((p) => p.name === spec.from);
  if (pod === undefined) throw new Error(`pod ${spec.from} is not deployed`);
  return driver.probeFromPod(pod, spec.request, timeoutMs);
}

/**
 * A cell's probe as the matrix makes it: once, and with `again`, a second time after its pause
 * (`pause` waits it out), the answers of both in one reply.
 */
export async function sendProbeTwice(
  driver: Pick<LabDriver, 'probeFromPod' | 'probeFromOutside' | 'probeFromNode'>,
  workloads: Workloads,
  spec: ProbeSpec,
  timeoutMs: number,
  pause: (ms: number) => Promise<void>,
): Promise<ProbeReply> {
  const first = await sendProbe(driver, workloads, spec, timeoutMs);
  if (spec.again === undefined || first.result !== 'ok') return first;
  await pause(spec.again.afterMs);
  const again = { ...spec, request: spec.again.request ?? spec.request };
  const second = await sendProbe(driver, workloads, again, timeoutMs);
  const error = second.error === undefined ? {} : { error: `after the pause: ${second.error}` };
  return { ...second, ...error, answers: [...(first.answers ?? []), ...(second.answers ?? [])] };
}
