/**
 * What each Windows host-network netexec answers to /hostname, asked on its own node at deploy:
 * Windows answers with its computer name (cut to 15 characters, kubernetes#106640; EKS hosts are
 * `EC2AMAZ-…` where the node is `ip-…`), not the node's kubernetes.io/hostname label. The cells
 * that reach a host then expect what that host said of itself, so a wrong host answering still
 * fails them.
 */
import type { HostNetexec, ProbeReply, ProbeRequest } from '../../model/lab-driver.ts';

/** What a host said its name is, where it differs from its node's label. */
export interface HostIdentity {
  node: string;
  label: string;
  said: string;
}

/**
 * `hosts` with each Windows one's hostname as it answered on its own node; a host that did not
 * answer keeps its label (its cells then fail, naming why).
 */
export async function windowsHostIdentities(
  hosts: readonly HostNetexec[],
  windowsNodes: ReadonlySet<string>,
  ask: (node: string, request: ProbeRequest) => Promise<ProbeReply>,
): Promise<{ hosts: HostNetexec[]; differ: HostIdentity[] }> {
  const differ: HostIdentity[] = [];
  const answered = await Promise.all(
    hosts.map(async (host) => {
      if (!windowsNodes.has(host.node)) return host;
      const reply = await ask(host.node, {
        kind: 'http',
        url: `http://${host.address}:${host.port}/hostname`,
      });
      const said = reply.result === 'ok' ? (reply.body ?? '').trim() : '';
      if (said === '' || said === host.hostname) return host;
      differ.push({ node: host.node, label: host.hostname, said });
      return { ...host, hostname: said };
    }),
  );
  return { hosts: answered, differ };
}
