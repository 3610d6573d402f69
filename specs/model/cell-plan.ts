/** What a matrix cell is: its metadata, its probe and what must come back, or why the lab cannot host it. */
import type { ProbeRequest, Workloads } from './lab-driver.ts';
import type { CellMeta } from '../../lab/contracts/results-file.ts';
import type { ChurnStep, Os } from '../../lab/contracts/cells.ts';

/**
 * How long a probe that nothing may answer waits: a first SYN left unanswered for the second
 * before it would be sent again was dropped (a forwarded one is answered in milliseconds). Cells
 * the profile expects to time out wait as long: an answer, were there one, takes milliseconds.
 */
export const NOT_FORWARDED_MS = 1000;

/** What the far end must show for the cell to be Ok. */
export type Check =
  /** /clientip must show this address (the source pod, or the node after SNAT); with `peer`, the client must have connected to that address. */
  | { kind: 'source-ip'; expect: string; peer?: string }
  /**
   * Any /clientip answer will do; the detail names what the far end saw: the source pod's address,
   * its node's, or another (a cluster whose NAT the run does not assume: OUTBOUND_NAT=report).
   */
  | { kind: 'source-reported'; pod: string; node: string }
  /** The lookup must answer this address. */
  | { kind: 'answer'; expect: string }
  /** The echo reply must come from this address (the target itself). */
  | { kind: 'echo-reply'; from: string }
  /** The whole body must arrive: this many bytes. */
  | { kind: 'bytes'; expect: number }
  /** Any 2xx answer will do. */
  | { kind: 'responds' }
  /**
   * The answer's body must be exactly this (a /hostname: the right server answered); with `peer`,
   * the client must have connected to that address.
   */
  | { kind: 'body'; expect: string; peer?: string }
  /**
   * Any HTTP answer will do, a 401 or 403 too (the API server to a client without credentials);
   * with `peer`, the client must have connected to that address.
   */
  | { kind: 'http-answer'; peer?: string }
  /**
   * Session affinity: the sweep's answers, in consecutive runs of these lengths (one run, or two
   * around a pause), each came from one endpoint of `expect`; the runs may differ.
   */
  | { kind: 'same-endpoint'; expect: string[]; runs: number[] }
  /**
   * kube-proxy's health-check node port: this HTTP status, and its JSON naming `service`
   * (`namespace/name`) with this many local endpoints.
   */
  | { kind: 'health-check'; status: number; service: string; localEndpoints: number }
  /**
   * Every endpoint (pod hostname) in `expect` answered an `endpoints` sweep, every request of it
   * succeeded, and with `source` every endpoint saw that client address; with `only`, no other
   * endpoint answered.
   */
  | { kind: 'every-endpoint'; expect: string[]; source?: string; only?: boolean }
  /** Nothing may answer: the path must end in a drop (timeout) or a refusal, as documented. */
  | { kind: 'not-forwarded' }
  /** The connection must be refused (kube-proxy rejects a Service without endpoints); a drop fails. */
  | { kind: 'refused' }
  /** A perf measure must have measured something; how well is judged across the run. */
  | { kind: 'measured' };

export interface ProbeSpec {
  /** A pod name, `outside` for the world outside the cluster, or hostNetworkSource(node). */
  from: string;
  request: ProbeRequest;
  check: Check;
  /**
   * This probe's bound instead of the run's (PROBE_TIMEOUT_MS): where nothing may answer, a first
   * SYN left unanswered for a second is the drop the check looks for (an answer takes milliseconds).
   */
  timeoutMs?: number;
  /**
   * A second request (`request`, else the same once more), `afterMs` after the first one ended
   * (the runner does not hold a probe slot meanwhile); the check judges both replies' answers in
   * order.
   */
  again?: { afterMs: number; request?: ProbeRequest };
}

export interface CellPlan {
  meta: Omit<CellMeta, 'expected' | 'reason'>;
  /**
   * A churn cell: it probes after every cell without one, once the driver made `step` (and the
   * steps before it) on the churn Service of `os`.
   */
  churn?: { os: Os; step: ChurnStep };
  /** Why the lab cannot host this cell. */
  skip?: string;
  probe?: (workloads: Workloads) => ProbeSpec;
}
