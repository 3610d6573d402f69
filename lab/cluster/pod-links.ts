/**
 * Node-side pod veths whose pod is gone. The kernel destroys a deleted pod namespace (and with
 * it the veth pair) only when its last reference goes, e.g. an orphaned socket still
 * retransmitting to a peer a fault cut off; a new pod with the same IP would collide with it.
 */
import { podOffset } from './control/cluster-objects.ts';
import type { EmulatedCluster } from './emulated-cluster.ts';
import { podVeth } from './dataplane/names.ts';
import { pollFor } from '../wait/poll.ts';

const POLL_MS = 250;

/** `node/veth` of every pod veth on a node that belongs to no pod of the cluster state. */
export async function stalePodLinks(cluster: EmulatedCluster): Promise<string[]> {
  const { pods } = cluster.store.read();
  const stale = await Promise.all(
    cluster.plan.nodes.map(async (node) => {
      const expected = new Set(
        pods.filter((p) => p.node === node.name).map((p) => podVeth(podOffset(node, p.ip))),
      );
      const { stdout } = await cluster.hosts
        .shell(node.name)
        .exec(['ip', '-j', 'link', 'show', 'type', 'veth']);
      const links = (JSON.parse(stdout === '' ? '[]' : stdout) as { ifname: string }[]).map(
        (l) => l.ifname,
      );
      return links
        .filter((l) => l.startsWith('veth') && !expected.has(l))
        .map((l) => `${node.name}/${l}`);
    }),
  );
  return stale.flat();
}

/** Waits until no node holds a veth of a removed pod, so the next pods can take their IPs. */
export async function forPodLinksGone(
  cluster: EmulatedCluster,
  timeoutMs = 180_000,
): Promise<void> {
  let stale: string[] = [];
  await pollFor(
    'veths of removed pods to disappear',
    async () => {
      stale = await stalePodLinks(cluster);
      return stale.length === 0;
    },
    { timeoutMs, intervalMs: POLL_MS, lastSeen: () => `still there: ${stale.join(', ')}` },
  );
}
