/** What a matrix cell is (metadata, probe, skip reason) and the workload names every driver deploys. */
import type { DeployedPod, ProbeRequest, SuiteNode, Workloads } from '../drivers/lab-driver.ts';
import type { CellMeta, Endpoint } from '../engine/results.ts';
import type { Os } from './rows.ts';

/** What the far end must show for the cell to be Ok. */
export type Check =
  /** /clientip must show this address (the source pod, or the node after SNAT); with `peer`, the client must have connected to that address. */
  | { kind: 'source-ip'; expect: string; peer?: string }
  /** The lookup must answer this address. */
  | { kind: 'answer'; expect: string }
  /** The whole body must arrive: this many bytes. */
  | { kind: 'bytes'; expect: number }
  /** Any 2xx answer will do. */
  | { kind: 'responds' };

export interface ProbeSpec {
  /** A pod name, or `outside` for the world outside the cluster. */
  from: string;
  request: ProbeRequest;
  check: Check;
}

export interface CellPlan {
  meta: Omit<CellMeta, 'expected' | 'reason'>;
  /** Why the lab cannot host this cell. */
  skip?: string;
  probe?: (workloads: Workloads) => ProbeSpec;
}

export const NETEXEC_HTTP_PORT = 8080;
/** Body size of large-response cells: several full-size packets at any pod MTU. */
export const LARGE_RESPONSE_BYTES = 8192;
export const HEADLESS_SERVICE = 'netexec';

/** The pods every driver deploys: two per node, `a` and `b`, so same-node cells have a pair. */
export function podNames(nodes: readonly SuiteNode[]): { node: string; name: string }[] {
  return nodes.flatMap((n) =>
    ['a', 'b'].map((s) => ({ node: n.name, name: `netexec-${n.name}-${s}` })),
  );
}

/** Pod label naming the pod's slot (`a` or `b`). */
export const SLOT_LABEL = 'hybrid-lab/slot';

/**
 * Services select only `b` pods. Probes start in `a` pods, so a Service probe never lands on
 * its own source pod (hairpin is a different path, and a random one makes cells flaky).
 */
export const SERVICE_SLOT = 'b';

/** The slot of a pod named by podNames(). */
export function slotOf(podName: string): string {
  return podName.endsWith('-b') ? 'b' : 'a';
}

/** The Service backed by the pods of one OS. */
export function serviceName(os: Os): string {
  return `web-${os}`;
}

/** Nodes of an OS, workers first: pods on workers are the common case. */
export function nodesOf(nodes: readonly SuiteNode[], os: Os): SuiteNode[] {
  const of = nodes.filter((n) => n.os === os);
  return [...of.filter((n) => n.role === 'worker'), ...of.filter((n) => n.role !== 'worker')];
}

/** A deployed pod by name. */
export function pod(w: Workloads, name: string): DeployedPod {
  const found = w.pods.find((p) => p.name === name);
  if (found === undefined) throw new Error(`pod ${name} was not deployed`);
  return found;
}

/** The deployed Service backed by pods of `os`. */
export function service(w: Workloads, os: Os) {
  const found = w.services.find((s) => s.os === os);
  if (found === undefined) throw new Error(`service ${serviceName(os)} was not deployed`);
  return found;
}

/** A pod as a grid endpoint. */
export const podEnd = (os: Os, node: string, name?: string): Endpoint => ({
  os,
  node,
  label: `${os} pod`,
  ...(name === undefined ? {} : { name }),
});
