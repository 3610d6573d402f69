/**
 * A kubeconfig from one file, or from a KUBECONFIG list of them (`a:b`) merged as kubectl merges
 * them: the first file to name a cluster, user or context, or to set the current context, wins
 * (https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/#merging-kubeconfig-files).
 * client-node's own merge (loadFromDefault) throws on a name two files share and lets a later
 * file's current-context win.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { kubeconfigFiles } from './kubeconfig-list.ts';

export function loadKubeConfig(paths: string): KubeConfig {
  const files = kubeconfigFiles(paths);
  const merged = new KubeConfig();
  merged.loadFromFile(files[0]!);
  for (const file of files.slice(1)) {
    const next = new KubeConfig();
    next.loadFromFile(file);
    const has = (list: readonly { name: string }[], name: string) =>
      list.some((x) => x.name === name);
    for (const c of next.clusters) if (!has(merged.clusters, c.name)) merged.addCluster(c);
    for (const u of next.users) if (!has(merged.users, u.name)) merged.addUser(u);
    for (const c of next.contexts) if (!has(merged.contexts, c.name)) merged.addContext(c);
    if (!merged.currentContext && next.currentContext)
      merged.setCurrentContext(next.currentContext);
  }
  return merged;
}
