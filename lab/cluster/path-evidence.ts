/**
 * Evidence for one failing flow on an emulated cluster: each node on its path shows its routes,
 * neighbours, bridge forwarding entries, nftables ruleset (with counters) and the flow's conntrack
 * entries; then one retry of the probe runs under nftables tracing on those nodes, and the trace
 * says where the packet died: the table, chain and rule whose verdict dropped it.
 */
import { randomBytes } from 'node:crypto';
import { contains, parseCidr } from '../net/ipv4.ts';
import type { NodeShell } from '../remote/node-shell.ts';

/** The trace table each node gets for the retry; removed afterwards. */
const TRACE_TABLE = 'hl_evidence_trace';
/** How long `nft monitor trace` gets to subscribe before the retry starts. */
const SUBSCRIBE_MS = 500;
/** How long the trace goes on after the retry ended. */
const LINGER_MS = 300;
/**
 * How long a monitor may outlive the retry's own time: an exec through the API adds to it (33 s
 * for a 10 s probe on an emulated VM). Each monitor is stopped once the retry is over, so this
 * only bounds one whose stop failed.
 */
const MONITOR_MARGIN_MS = 60_000;
/** Each file is cut here, so a huge ruleset cannot fill the results. */
export const EVIDENCE_FILE_MAX_BYTES = 256 * 1024;

export interface PathEvidenceRequest {
  /** The nodes on the flow's path: source, target(s) and the node that translates. */
  nodes: readonly string[];
  /** The flow's addresses (source, target, endpoints, nodes): traced between any two of them. */
  addresses: readonly string[];
  /**
   * The pod networks (CIDRs) of the nodes on the path, traced as the addresses are: a node's own
   * packet to another node's pod leaves from its address there (flannel's VXLAN interface).
   */
  networks?: readonly string[];
  /** Runs the probe once more while the nodes trace. */
  retry: () => Promise<unknown>;
  /** How long the retry may take; the trace listens this long after it started. */
  retryMs: number;
  /** Files of a node's own beyond the snapshot (an emulated Windows node's CNI config). */
  nodeFiles?: (node: string) => Record<string, string>;
}

export interface PathEvidence {
  /** One line: where the packet died, or where it was last seen. */
  diedAt: string;
  /** `path.txt`: diedAt, then the traced packet's way node by node. */
  path: string;
  /** Per node: file name → text. */
  nodes: { node: string; files: Record<string, string> }[];
}

/** Static state of a node: file name → command. */
const SNAPSHOT: Record<string, readonly string[]> = {
  'routes.txt': ['ip', 'route', 'show', 'table', 'all'],
  'neighbours.txt': ['ip', 'neigh', 'show'],
  'bridge-fdb.txt': ['bridge', 'fdb', 'show'],
  'nft-ruleset.txt': ['nft', '-a', 'list', 'ruleset'],
  'conntrack.txt': ['conntrack', '-L'],
};

/** Collects the evidence of one flow; `shellOf` gives each node's shell. */
export async function collectPathEvidence(
  shellOf: (node: string) => NodeShell,
  request: PathEvidenceRequest,
): Promise<PathEvidence> {
  const shells = request.nodes.map(shellOf);
  const flow = flowAddresses(request.addresses, request.networks ?? []);
  const snapshots = await Promise.all(shells.map((shell) => snapshot(shell, flow)));
  const traces = await traceRetry(shells, request.retry, request.retryMs, flow);
  const path = describePath(request.nodes, traces);
  return {
    diedAt: path.split('\n')[0] ?? '',
    path,
    nodes: request.nodes.map((node, i) => ({
      node,
      files: {
        ...snapshots[i],
        ...request.nodeFiles?.(node),
        'trace.txt': cap(traces[i] ?? ''),
      },
    })),
  };
}

/**
 * The networks, then each address none of them holds (nft refuses overlapping set elements).
 * Loopback addresses are left out: no probe's path is on a node's lo, and the kubelet's own
 * traffic there (the container runtime's exec streams) would flood the trace.
 */
export function flowAddresses(addresses: readonly string[], networks: readonly string[]): string[] {
  const cidrs = networks.flatMap((n) => parseCidr(n) ?? []);
  const kept = addresses.filter((a) => !a.startsWith('127.') && !cidrs.some((c) => contains(c, a)));
  return [...new Set([...networks, ...kept])];
}

/** True when `address` is one of `flow`, or inside one of its networks. */
function inFlow(flow: readonly string[], address: string): boolean {
  return flow.some((entry) => {
    const cidr = entry.includes('/') ? parseCidr(entry) : undefined;
    return cidr === undefined ? entry === address : contains(cidr, address);
  });
}

async function snapshot(
  shell: NodeShell,
  flow: readonly string[],
): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(SNAPSHOT).map(async ([file, argv]) => {
      const result = await shell.exec(argv, { check: false, timeoutMs: 15_000 });
      let text =
        result.exitCode === 0
          ? result.stdout
          : `${argv.join(' ')}: exit ${result.exitCode}\n${result.stderr}`;
      // Only the flow's own connections: conntrack lists every connection the node tracks.
      if (file === 'conntrack.txt' && result.exitCode === 0) {
        text = text
          .split('\n')
          .filter(
            (line) =>
              // A shell that cut the listing says so on a line of its own: `[cut at N bytes …]`.
              line.startsWith('[cut at ') ||
              [...line.matchAll(/=(\d+\.\d+\.\d+\.\d+)\b/g)].some((m) => inFlow(flow, m[1]!)),
          )
          .join('\n');
      }
      return [file, cap(text)] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * The cluster's own control traffic between node addresses: the API server, etcd and the kubelet
 * (which carries the driver's execs). None is a probe's flow; traced, it floods the file.
 */
const CONTROL_PORTS = '{ 2379, 2380, 6443, 10250 }';

/**
 * The nft script that marks the flow's packets for tracing, in every hook a packet can enter by;
 * `flow` as flowAddresses gives it.
 */
export function traceTable(flow: readonly string[]): string {
  const set = `{ ${flow.join(', ')} }`;
  // One rule per port side: nft 1.0.6 merges two `!=` on adjacent fields into one compare.
  const mark = [
    `tcp dport ${CONTROL_PORTS} return`,
    `tcp sport ${CONTROL_PORTS} return`,
    `ip saddr ${set} ip daddr ${set} meta nftrace set 1`,
  ].join('; ');
  return [
    `table inet ${TRACE_TABLE} {`,
    `  chain trace_pre { type filter hook prerouting priority -500; ${mark}; }`,
    `  chain trace_out { type filter hook output priority -500; ${mark}; }`,
    '}',
    '',
  ].join('\n');
}

/** Traces one retry on every node at once; the nft monitor output of each node. */
async function traceRetry(
  shells: readonly NodeShell[],
  retry: () => Promise<unknown>,
  retryMs: number,
  flow: readonly string[],
): Promise<string[]> {
  const listenS = Math.ceil((SUBSCRIBE_MS + retryMs + LINGER_MS + MONITOR_MARGIN_MS) / 1000);
  // Each monitor leaves its pid in the node's /tmp (not this host's temporary folder, which a node
  // may not have), so it can be stopped as soon as the retry is over; one file per node, since
  // namespace nodes share this host's /tmp.
  const pidBase = `/tmp/hl-evidence-trace-${process.pid}-${randomBytes(4).toString('hex')}.pid`;
  try {
    // Installed inside the try: when one node refuses it, the others' tables still go.
    await Promise.all(
      shells.map((shell) =>
        shell.exec(['nft', '-f', '-'], { input: traceTable(flow), timeoutMs: 15_000 }),
      ),
    );
    const monitors = shells.map((shell, i) =>
      shell.exec(
        [
          'sh',
          '-c',
          'echo $$ >"$1"; exec timeout "$2" nft monitor trace',
          'sh',
          `${pidBase}.${i}`,
          String(listenS),
        ],
        { check: false, timeoutMs: listenS * 1000 + 15_000 },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_MS));
    await retry().catch(() => undefined);
    // Late packets of the retry (a retransmission, the reply) still get a moment to show.
    await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
    await Promise.all(
      shells.map((shell, i) =>
        shell.exec(
          ['sh', '-c', 'kill "$(cat "$1")" 2>/dev/null; rm -f "$1"', 'sh', `${pidBase}.${i}`],
          {
            check: false,
            timeoutMs: 15_000,
          },
        ),
      ),
    );
    return (await Promise.all(monitors)).map((r) => r.stdout);
  } finally {
    await Promise.all(
      shells.map((shell) =>
        shell.exec(['nft', 'delete', 'table', 'inet', TRACE_TABLE], {
          check: false,
          timeoutMs: 15_000,
        }),
      ),
    );
  }
}

/** A trace line's verdict that ended the packet: `rule … (verdict drop)` or `policy drop`. */
const DROPPED =
  /^trace id \S+ (\S+) (\S+) (\S+) (?:rule (.*) \(verdict (drop|reject)[^)]*\)|policy (drop))/;

/** A trace line of a rule that rewrote the packet's addresses (NAT), e.g. `… dnat to 10.244.2.13:8080 (verdict accept)`. */
const natRule = (actions: string) =>
  new RegExp(`^trace id \\S+ (\\S+) (\\S+) (\\S+) rule (.*(?:${actions}).*) \\(verdict`);
const REWRITTEN = natRule('\\b[ds]nat to\\b|\\bmasquerade\\b|\\bredirect\\b');
/** A rule that rewrote the packet's source: the trace, following the flow's addresses, may lose it. */
const SOURCE_REWRITTEN = natRule('\\bsnat to\\b|\\bmasquerade\\b');

/**
 * path.txt: where the traced packet died, then what each node saw of it. The first drop found
 * names the node, table, chain and rule; without one, the nodes that never saw the packet, or,
 * when every node passed it, the last rule that rewrote it (a wrong or missing NAT kills a flow
 * as surely as a drop).
 */
export function describePath(nodes: readonly string[], traces: readonly string[]): string {
  const lines = traces.map((t) => t.split('\n').filter((l) => l.startsWith('trace id ')));
  let diedAt: string | undefined;
  nodes.forEach((node, i) => {
    if (diedAt !== undefined) return;
    for (const line of lines[i] ?? []) {
      const m = DROPPED.exec(line);
      if (m === null || (m[2] ?? '') === TRACE_TABLE) continue;
      const [, family, table, chain, rule, verdict, policy] = m;
      diedAt =
        policy !== undefined
          ? `dropped on ${node}: ${family} table ${table}, chain ${chain}: the chain's policy drop`
          : `dropped on ${node}: ${family} table ${table}, chain ${chain}: rule \`${rule}\` (${verdict})`;
      return;
    }
  });
  diedAt ??= undropped(nodes, lines);
  const body = nodes.flatMap((node, i) => [
    '',
    `== ${node}: ${(lines[i] ?? []).length} trace lines`,
    ...(lines[i] ?? []),
  ]);
  return cap([diedAt, ...body].join('\n'));
}

/** The first line when no rule dropped the packet: where it was seen, and what last rewrote it. */
function undropped(nodes: readonly string[], lines: readonly string[][]): string {
  const seen = nodes.filter((_, i) => (lines[i] ?? []).length > 0);
  const unseen = nodes.filter((_, i) => (lines[i] ?? []).length === 0);
  if (seen.length === 0)
    return `no traced packet on ${nodes.join(', ')}: the flow never reached these nodes' netfilter (lost in the source pod, or never sent)`;
  if (unseen.length === 0)
    return `no rule dropped it on ${nodes.join(', ')}: every node passed it${lastRewrite(nodes, lines, REWRITTEN)} (look at the answer and the pods' own namespaces)`;
  const where = `no rule dropped it; seen on ${seen.join(', ')}, never on ${unseen.join(', ')}`;
  const source = lastRewrite(nodes, lines, SOURCE_REWRITTEN);
  return source === ''
    ? `${where}: lost between them (route, neighbour, bridge or VXLAN forwarding)`
    : `${where}${source} (from there on its source may be an address the trace does not follow; else it was lost between them)`;
}

/** `; last rewritten on NODE: …` for the last trace line matching `nat` (a NAT rule), or nothing. */
function lastRewrite(nodes: readonly string[], lines: readonly string[][], nat: RegExp): string {
  let last = '';
  nodes.forEach((node, i) => {
    for (const line of lines[i] ?? []) {
      const m = nat.exec(line);
      if (m === null) continue;
      const [, family, table, chain, rule] = m;
      last = `; last rewritten on ${node}: ${family} table ${table}, chain ${chain}: rule \`${(rule ?? '').trim()}\``;
    }
  });
  return last;
}

/** `text` cut at EVIDENCE_FILE_MAX_BYTES, saying so. */
export function cap(text: string): string {
  if (Buffer.byteLength(text) <= EVIDENCE_FILE_MAX_BYTES) return text;
  return `${Buffer.from(text).subarray(0, EVIDENCE_FILE_MAX_BYTES).toString('utf8')}\n[cut at ${EVIDENCE_FILE_MAX_BYTES} bytes]\n`;
}
