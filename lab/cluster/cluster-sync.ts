/**
 * Brings the dataplane in line with the cluster state, as kube-proxy and CoreDNS react to the
 * API: per-node iptables (only where changed) and the DNS zone (rewrite + SIGHUP + wait).
 */
import { join } from 'node:path';
import { outboundNat } from '../cni/windows-cni-config.ts';
import type { Logger } from '../log/logger.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import { clusterZone } from './dataplane/cluster-dns.ts';
import type { ClusterHosts } from './cluster-hosts.ts';
import type { NodeShell } from '../remote/node-shell.ts';
import type { ServiceEndpoints } from './dataplane/kube-proxy-rules.ts';
import type { ClusterState, PodRecord } from './control/cluster-state.ts';
import { servicesSeenBy } from './proxy-view.ts';
import { syncHealthChecks } from './health-check-sync.ts';
import { applyNodeRules, renderNodeRules, rulesHash } from './dataplane/node-rules.ts';
import type { PodRuntime } from './runtime/pod-runtime.ts';
import { readWindowsCni } from './dataplane/windows-cni-files.ts';
import { settleAll } from '../wait/poll.ts';
import { RELOADED_LINE } from './runtime/workload-programs.ts';

const RELOAD_TIMEOUT_MS = 5000;

export interface SyncContext {
  plan: LabPlan;
  /** `<stateDir>/netns`. */
  dir: string;
  log: Logger;
  hosts: ClusterHosts;
}

export function zoneFile(dir: string): string {
  return join(dir, 'zone.json');
}

/** The zone file as the DNS pod on `runtime`'s machine reads it. */
export function zoneFileOn(runtime: PodRuntime, dir: string): string {
  return zoneFile(runtime.dataDir ?? dir);
}

/** The node the DNS pod runs (or will run) on: the first Linux control plane. */
export function dnsNode(plan: LabPlan, state: ClusterState): string {
  const node =
    dnsPod(state)?.node ??
    plan.nodes.find((n) => n.role === 'control-plane' && n.os === 'linux')?.name ??
    plan.nodes[0]?.name;
  if (node === undefined) throw new Error(`plan ${plan.id} has no nodes`);
  return node;
}

/** The pod serving cluster DNS (kube-system, selected by the kube-dns Service). */
export function dnsPod(state: ClusterState): PodRecord | undefined {
  return state.pods.find((p) => p.program === 'dns' && p.system === true);
}

async function syncRules(ctx: SyncContext, state: ClusterState, force: boolean): Promise<void> {
  await settleAll(
    ctx.plan.nodes.map(async (node) => {
      const services = servicesSeenBy(node.name, state);
      const policy = node.os === 'windows' ? outboundNat(readWindowsCni(ctx.dir, node)) : undefined;
      const rules = renderNodeRules(ctx.plan, node, services, policy);
      const hash = rulesHash(rules);
      const shell = ctx.hosts.shell(node.name);
      if (force || state.applied.rules[node.name] !== hash) {
        await applyNodeRules(shell, rules);
        state.applied.rules[node.name] = hash;
      }
      const flows = udpFlows(services);
      const stale = staleUdpFlows(state.applied.udpFlows?.[node.name] ?? [], flows);
      // A node whose kube-proxy keeps stale UDP entries (fault injection) forgets nothing.
      if (state.keepsUdpFlows?.includes(node.name) !== true) await forgetUdpFlows(shell, stale);
      state.applied.udpFlows = { ...state.applied.udpFlows, [node.name]: flows };
    }),
  );
}

/**
 * A node's UDP Service flows as conntrack selects them: `--orig-dst CLUSTER_IP ENDPOINT` and
 * `--orig-port-dst NODE_PORT ENDPOINT`, one per endpoint its rules send to.
 */
function udpFlows(services: readonly ServiceEndpoints[]): string[] {
  return [
    ...new Set(
      services.flatMap(({ service, endpoints }) =>
        service.ports
          .filter((p) => p.protocol === 'UDP')
          .flatMap((p) => [
            ...(service.clusterIP === undefined ? [] : [`--orig-dst ${service.clusterIP}`]),
            ...(p.nodePort === undefined ? [] : [`--orig-port-dst ${p.nodePort}`]),
          ])
          .flatMap((match) => endpoints.map((ip) => `${match} ${ip}`)),
      ),
    ),
  ].sort();
}

/**
 * What to forget when a node's UDP flows go from `before` to `now`, as kube-proxy clears them: a
 * Service address or node port with no flow left (its Service deleted, or without endpoints) by
 * itself (`FLAG VALUE -`: every entry to it is stale), else each endpoint that left it.
 */
export function staleUdpFlows(before: readonly string[], now: readonly string[]): string[] {
  const matchOf = (flow: string) => flow.slice(0, flow.lastIndexOf(' '));
  const live = new Set(now.map(matchOf));
  const gone = before.filter((f) => !now.includes(f));
  return [...new Set(gone.map((f) => (live.has(matchOf(f)) ? f : `${matchOf(f)} -`)))];
}

/**
 * Deletes the conntrack entries of the UDP flows staleUdpFlows names, as kube-proxy does: a UDP
 * entry outlives its endpoint (UDP has no connection to end), and a later datagram on the same
 * addresses and ports would follow it to the gone endpoint instead of the rules. Pods of the next
 * suite run get the same IPs, and a source port comes round again sooner or later.
 */
export async function forgetUdpFlows(shell: NodeShell, flows: readonly string[]): Promise<void> {
  if (flows.length === 0) return;
  // One shell per node, not one process per flow: a suite run's namespace going away ends a
  // hundred flows, and each process started from the harness costs milliseconds of its CPU.
  const result = await shell.exec(
    ['sh', '-c', FORGET_UDP_FLOWS, 'forget-udp-flows', ...flows.flatMap((f) => f.split(' '))],
    { check: false },
  );
  if (result.exitCode !== 0) {
    throw new Error(`conntrack -D of UDP flows on ${shell.node}: ${result.stderr.trim()}`);
  }
}

/**
 * sh program: its arguments are triples FLAG VALUE ENDPOINT; deletes the UDP flows matched by FLAG
 * VALUE (--orig-dst ADDRESS, --orig-port-dst PORT) whose replies come from ENDPOINT (`-`: from
 * anywhere). Each `conntrack -D` walks the node's whole table (thousands of entries after a suite
 * run), so the table is listed once and only the triples it holds are deleted. conntrack exits 1
 * when no entry matched; any other failure is said on stderr with its command, and the program
 * fails after trying the rest.
 */
export const FORGET_UDP_FLOWS = `status=0
if listing=$(conntrack -L -p udp 2>/dev/null); then
held=$(printf '%s\\n' "$listing" | awk -v want="$*" '
  BEGIN { n = split(want, w, " ") }
  {
    dst = ""; dport = ""; src = 0; rsrc = ""
    for (f = 1; f <= NF; f++) {
      eq = index($f, "="); k = substr($f, 1, eq - 1); v = substr($f, eq + 1)
      if (k == "dst" && dst == "") dst = v
      else if (k == "dport" && dport == "") dport = v
      else if (k == "src" && ++src == 2) rsrc = v
    }
    for (i = 1; i + 2 <= n; i += 3)
      if ((w[i] == "--orig-dst" ? dst : dport) == w[i + 1] && (w[i + 2] == "-" || rsrc == w[i + 2])) hit[i] = 1
  }
  END { for (i = 1; i + 2 <= n; i += 3) if (i in hit) print w[i], w[i + 1], w[i + 2] }')
else
held=$(printf '%s %s %s\\n' "$@")
fi
while read -r flag value endpoint; do
  [ -n "$flag" ] || continue
  set -- -D -p udp "$flag" "$value"
  [ "$endpoint" = - ] || set -- "$@" --reply-src "$endpoint"
  said=$(conntrack "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "conntrack $* exited $rc: $said" >&2
    status=1
  fi
done <<EOF
$held
EOF
exit "$status"`;

/** Writes the zone; when it changed and the DNS pod runs, reloads it and waits for the reload. */
async function syncZone(ctx: SyncContext, state: ClusterState, force: boolean): Promise<void> {
  const text = `${JSON.stringify(clusterZone(ctx.plan, state), null, 2)}\n`;
  const hash = rulesHash(text);
  if (!force && state.applied.zone === hash) return;
  const runtime = ctx.hosts.pods(dnsNode(ctx.plan, state));
  await runtime.writeFile(zoneFileOn(runtime, ctx.dir), text);
  const pod = dnsPod(state);
  if (pod?.pid !== undefined && pod.phase === 'Running') {
    await runtime.signalAndWait(pod.pid, 'SIGHUP', pod.logFile, RELOADED_LINE, RELOAD_TIMEOUT_MS);
  }
  state.applied.zone = hash;
}

/** Call with the state lock held; records what was applied in `state.applied`. */
export async function syncDataplane(
  ctx: SyncContext,
  state: ClusterState,
  force = false,
): Promise<void> {
  const started = performance.now();
  await settleAll([
    syncRules(ctx, state, force),
    syncZone(ctx, state, force),
    syncHealthChecks(ctx, state, force),
  ]);
  ctx.log.debug(
    { provider: 'netns', ms: Math.round(performance.now() - started) },
    'dataplane synced',
  );
}
