/**
 * Before the matrix on a cluster the harness did not make: can the outside reach each node at all,
 * and does each node's own network get answers from the external echo? Neither question touches
 * the Service data plane: the outside is asked for a TCP connection to the node's kubelet port (the
 * kubelet listens on the node itself, no kube-proxy rule in between), the echo is asked from the
 * node's host-network netexec. A "no" makes the cells that need that path skipped with the reason
 * (unusable-paths.ts): from a laptop, node addresses are often private and pods cannot reach the
 * laptop, which says nothing of the network under test. A NodePort broken on a node the outside
 * reaches still fails its cells.
 */
import type { ProbeReply } from '../../../lab/contracts/probe-reply.ts';
import type { ProbeRequest, Workloads } from '../../model/lab-driver.ts';

/** The kubelet's port where the node does not say (its status.daemonEndpoints). */
export const KUBELET_PORT = 10250;
/** A connect or an echo answer on a path that works takes milliseconds; an unreachable one times out. */
export const REACHABILITY_TIMEOUT_MS = 5000;

export interface ReachabilityProbes {
  fromOutside(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply>;
  fromNode(node: string, request: ProbeRequest, timeoutMs: number): Promise<ProbeReply>;
}

const failure = (reply: ProbeReply): string =>
  `${reply.result}${reply.error === undefined ? '' : `: ${reply.error}`}`;

/** Asks both questions of every node at once; a probe that throws counts as a no, with its error. */
export async function checkReachability(
  workloads: Pick<Workloads, 'hostNetwork' | 'external'>,
  kubeletPorts: Readonly<Record<string, number>>,
  probes: ReachabilityProbes,
  timeoutMs = REACHABILITY_TIMEOUT_MS,
): Promise<NonNullable<Workloads['unreachable']>> {
  const ask = (probe: () => Promise<ProbeReply>): Promise<string | undefined> =>
    probe().then(
      (reply) => (reply.result === 'ok' ? undefined : failure(reply)),
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
  const { address, port } = workloads.external;
  const answers = await Promise.all(
    workloads.hostNetwork.map(async (host) => {
      const kubelet = kubeletPorts[host.node] ?? KUBELET_PORT;
      const [outside, echo] = await Promise.all([
        ask(() =>
          probes.fromOutside({ kind: 'tcp', host: host.address, port: kubelet }, timeoutMs),
        ),
        ask(() =>
          probes.fromNode(
            host.node,
            { kind: 'http', url: `http://${address}:${port}/clientip` },
            timeoutMs,
          ),
        ),
      ]);
      return { node: host.node, kubelet, outside, echo };
    }),
  );
  const unreachable: NonNullable<Workloads['unreachable']> = { outside: {}, echo: {} };
  for (const { node, kubelet, outside, echo } of answers) {
    if (outside !== undefined)
      unreachable.outside[node] = `not even its kubelet port ${kubelet} answers (${outside})`;
    if (echo !== undefined)
      unreachable.echo[node] = `the node itself gets no answer either (${echo})`;
  }
  return unreachable;
}
