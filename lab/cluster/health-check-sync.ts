/**
 * kube-proxy's health-check node ports on every node (pkg/proxy/healthcheck): for each LoadBalancer
 * Service with externalTrafficPolicy Local, a server on its healthCheckNodePort reporting how many
 * of its endpoints the node has. Each node's server (health-server.mjs) reads its list from a file
 * rewritten, and re-read on SIGHUP, whenever what the node's kube-proxy sees of them changes.
 */
import { join } from 'node:path';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { contains, parseCidr } from '../net/ipv4.ts';
import { settleAll } from '../wait/poll.ts';
import type { ClusterState } from './control/cluster-state.ts';
import type { ServiceEndpoints } from './dataplane/kube-proxy-rules.ts';
import { servicesSeenBy } from './proxy-view.ts';
import type { PodRuntime } from './runtime/pod-runtime.ts';
import { RELOADED_LINE } from './runtime/workload-programs.ts';
import { rulesHash } from './dataplane/node-rules.ts';
import type { SyncContext } from './cluster-sync.ts';

const RELOAD_TIMEOUT_MS = 5000;

/** health-server.mjs's configuration: one entry per health-check node port. */
export interface HealthConfig {
  services: { port: number; namespace: string; name: string; localEndpoints: number }[];
}

/** Where `node`'s health-check server reads its configuration and writes its log. */
export function healthFiles(
  runtime: PodRuntime,
  dir: string,
  node: string,
): { config: string; log: string } {
  const base = runtime.dataDir ?? dir;
  return {
    config: join(base, `health-${node}.json`),
    log: join(base, 'logs', `health-server-${node}.log`),
  };
}

/**
 * What `node`'s server reports: for every Service with a health-check node port, the endpoints in
 * the node's own pod network (with `countsAll`, a fault: every endpoint it programs).
 */
export function healthConfig(
  node: PlannedNode,
  services: readonly ServiceEndpoints[],
  countsAll = false,
): HealthConfig {
  const podCidr = parseCidr(node.podCIDR);
  const local = (ip: string) => podCidr !== undefined && contains(podCidr, ip);
  return {
    services: services
      .flatMap(({ service, endpoints }) =>
        service.healthCheckNodePort === undefined
          ? []
          : [
              {
                port: service.healthCheckNodePort,
                namespace: service.namespace,
                name: service.name,
                localEndpoints: countsAll ? endpoints.length : endpoints.filter(local).length,
              },
            ],
      )
      .sort((a, b) => a.port - b.port),
  };
}

/** The text of `node`'s configuration as its kube-proxy would report now. */
export function healthConfigText(plan: LabPlan, node: PlannedNode, state: ClusterState): string {
  const countsAll = state.proxyQuirks?.[node.name]?.includes('counts-all-endpoints') === true;
  const config = healthConfig(node, servicesSeenBy(node.name, state), countsAll);
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * Rewrites each node's configuration where it changed and, where its server runs, has it re-read
 * (SIGHUP) and waits until it did. Call with the state lock held.
 */
export async function syncHealthChecks(
  ctx: SyncContext,
  state: ClusterState,
  force: boolean,
): Promise<void> {
  await settleAll(
    ctx.plan.nodes.map(async (node) => {
      const text = healthConfigText(ctx.plan, node, state);
      const hash = rulesHash(text);
      if (!force && state.applied.health?.[node.name] === hash) return;
      const runtime = ctx.hosts.pods(node.name);
      const files = healthFiles(runtime, ctx.dir, node.name);
      await runtime.writeFile(files.config, text);
      const pid = state.healthServers?.[node.name];
      if (pid !== undefined) {
        await runtime.signalAndWait(pid, 'SIGHUP', files.log, RELOADED_LINE, RELOAD_TIMEOUT_MS);
      }
      state.applied.health = { ...state.applied.health, [node.name]: hash };
    }),
  );
}
