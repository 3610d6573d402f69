/** The workloads every driver deploys and the names cells and drivers agree on. */
import { localEndpointNodes, type Os } from '../../lab/contracts/cells.ts';
import type { SuiteNode } from './lab-driver.ts';

export { NETEXEC_HTTP_PORT, NETEXEC_UDP_PORT } from '../../lab/contracts/workload-ports.ts';
/** The port of the suite's own Services (the web, hairpin, local and churn ones) in front of netexec. */
export const SUITE_SERVICE_PORT = 80;
/** Body size of large-response cells: several full-size packets at any pod MTU. */
export const LARGE_RESPONSE_BYTES = 8192;
export const HEADLESS_SERVICE = 'netexec';

/** The pods every driver deploys: two per node, `a` and `b`, so same-node cells have a pair. */
export function podNames(nodes: readonly SuiteNode[]): { node: string; name: string }[] {
  return nodes.flatMap((n) => ['a', 'b'].map((s) => ({ node: n.name, name: podName(n.name, s) })));
}

/**
 * Services select only `b` pods. Probes start in `a` pods, so a Service probe never lands on
 * its own source pod (hairpin is a different path, and a random one makes cells flaky).
 */
export const SERVICE_SLOT = 'b';

/** The slot of a pod named by podNames(). */
export function slotOf(podName: string): string {
  return /-([a-z])$/.exec(podName)?.[1] ?? 'a';
}

function podName(node: string, slot: string): string {
  return `netexec-${node}-${slot}`;
}

/** The pod that probes from `node`, and the only endpoint of its hairpin Service. */
export function sourcePod(node: string): string {
  return podName(node, 'a');
}

/** `node`'s pod that Services select (the `b` slot). */
export function backendPod(node: string): string {
  return podName(node, SERVICE_SLOT);
}

/** `text` as one DNS label: node names may carry dots, names built on them may be long. */
export function dnsLabel(text: string): string {
  return text.replace(/\./g, '-').slice(0, 63).replace(/-+$/, '');
}

/** The pod on `node`'s own network (hostNetwork; HostProcess on Windows) running netexec. */
export function hostNetworkPod(node: string): string {
  return dnsLabel(`host-${node}`);
}

/** The privileged pod through which path evidence reaches `node` on a cluster the harness did not make. */
export function nodeShellPod(node: string): string {
  return dnsLabel(`shell-${node}`);
}

/** The ClusterIP Service whose only endpoint is `node`'s source pod: that pod reaching it is hairpin traffic. */
export function hairpinServiceName(node: string): string {
  return dnsLabel(`hairpin-${node}`);
}

/** The Service backed by the pods of one OS. */
export function serviceName(os: Os): string {
  return `web-${os}`;
}

/** The NodePort Service with externalTrafficPolicy Local backed by `os` pods on some of its nodes. */
export function localServiceName(os: Os): string {
  return `local-${os}`;
}

/** Whether pod `name` on `node` backs its OS's Local Service (a `b` pod on a node localEndpointNodes names). */
export function backsLocalService(
  nodes: readonly SuiteNode[],
  node: string,
  name: string,
): boolean {
  const os = nodes.find((n) => n.name === node)?.os;
  return (
    os !== undefined &&
    slotOf(name) === SERVICE_SLOT &&
    localEndpointNodes(nodes, os).includes(node)
  );
}
