/** Makes one fault action after recording how to undo it, and runs undo steps. */
import { CommandError } from '../errors.ts';
import type { FaultAction } from './fault-definition.ts';
import { FaultError } from './fault-error.ts';
import type { UndoStep } from './fault-records.ts';
import type { FaultSession } from './fault-session.ts';
import { editWindowsCni } from './windows-cni-edits.ts';

interface RouteJson {
  dst: string;
  gateway?: string;
  dev?: string;
  protocol?: string;
  scope?: string;
  prefsrc?: string;
  metric?: number;
  flags?: string[];
}

interface FdbJson {
  mac: string;
  dst?: string;
}

/** `ip route` arguments that recreate a route exactly as `ip -j route show` printed it. */
export function routeArgs(route: RouteJson): string[] {
  return [
    route.dst,
    ...(route.gateway === undefined ? [] : ['via', route.gateway]),
    ...(route.dev === undefined ? [] : ['dev', route.dev]),
    ...(route.protocol === undefined ? [] : ['proto', route.protocol]),
    ...(route.scope === undefined ? [] : ['scope', route.scope]),
    ...(route.prefsrc === undefined ? [] : ['src', route.prefsrc]),
    ...(route.metric === undefined ? [] : ['metric', String(route.metric)]),
    ...((route.flags ?? []).includes('onlink') ? ['onlink'] : []),
  ];
}

function cluster(session: FaultSession) {
  if (session.cluster === undefined)
    throw new FaultError(`lab ${session.plan.name} offers no emulated cluster API`);
  return session.cluster;
}

function dns(session: FaultSession) {
  if (session.dns === undefined)
    throw new FaultError(`lab ${session.plan.name} gives no access to its DNS pod's process`);
  return session.dns;
}

async function readJson<T>(session: FaultSession, node: string, argv: string[]): Promise<T[]> {
  const { stdout } = await session.shell(node).exec(argv);
  return stdout.trim() === '' ? [] : (JSON.parse(stdout) as T[]);
}

/** A change that was looked at but not made yet. */
export interface PreparedAction {
  /** The steps that put back what `apply` changes. */
  undo: UndoStep[];
  apply(): Promise<void>;
}

/** Reads what the action will change (changing nothing) and returns how to make and undo it. */
export async function prepare(session: FaultSession, action: FaultAction): Promise<PreparedAction> {
  switch (action.kind) {
    case 'nft': {
      const shell = session.shell(action.node);
      return {
        undo: [
          {
            kind: 'shell',
            node: action.node,
            argv: ['nft', 'delete', 'table', action.family ?? 'ip', action.table],
            missingOk: 'No such file or directory',
          },
        ],
        apply: async () => {
          await shell.exec(['nft', '-f', '-'], { input: action.ruleset });
          await forgetFlows(session, action.node, action.forgetFlowsFrom);
        },
      };
    }
    case 'qdisc': {
      const shell = session.shell(action.node);
      return {
        undo: [
          {
            kind: 'shell',
            node: action.node,
            argv: ['tc', 'qdisc', 'del', 'dev', action.device, 'root'],
            // Deleting the default qdisc again: already gone.
            missingOk: 'handle of zero',
          },
        ],
        apply: async () => {
          await shell.exec(['tc', 'qdisc', 'add', 'dev', action.device, 'root', ...action.qdisc]);
        },
      };
    }
    case 'mtu': {
      const shell = session.shell(action.node);
      const [link] = await readJson<{ mtu?: number }>(session, action.node, [
        'ip',
        '-j',
        'link',
        'show',
        'dev',
        action.device,
      ]);
      if (link?.mtu === undefined)
        throw new FaultError(`node ${action.node}: cannot read the MTU of ${action.device}`);
      const set = (mtu: number) => ['ip', 'link', 'set', 'dev', action.device, 'mtu', String(mtu)];
      return {
        undo: [{ kind: 'shell', node: action.node, argv: set(link.mtu) }],
        apply: async () => {
          await shell.exec(set(action.mtu));
        },
      };
    }
    case 'route-del': {
      const shell = session.shell(action.node);
      const routes = await readJson<RouteJson>(session, action.node, [
        'ip',
        '-j',
        'route',
        'show',
        'exact',
        action.cidr,
      ]);
      if (routes.length === 0) {
        throw new FaultError(`node ${action.node} has no route to ${action.cidr} to remove`, {
          hint: 'the lab is broken already: `lab heal`, or `lab down` and `lab up`',
        });
      }
      return {
        undo: routes.map((r) => ({
          kind: 'shell',
          node: action.node,
          argv: ['ip', 'route', 'replace', ...routeArgs(r)],
        })),
        apply: async () => {
          for (const r of routes) await shell.exec(['ip', 'route', 'del', ...routeArgs(r)]);
        },
      };
    }
    case 'fdb-flush': {
      const shell = session.shell(action.node);
      const entries = await readJson<FdbJson>(session, action.node, [
        'bridge',
        '-j',
        'fdb',
        'show',
        'dev',
        action.device,
      ]);
      const remote = entries.flatMap((e) =>
        e.dst === undefined ? [] : [{ mac: e.mac, dst: e.dst }],
      );
      if (remote.length === 0) {
        throw new FaultError(
          `node ${action.node}: ${action.device} has no forwarding entries to flush`,
          {
            hint: 'the lab is broken already: `lab heal`, or `lab down` and `lab up`',
          },
        );
      }
      const entry = (e: { mac: string; dst: string }): string[] => [
        e.mac,
        'dev',
        action.device,
        'dst',
        e.dst,
        'self',
      ];
      return {
        undo: remote.map((e) => ({
          kind: 'shell',
          node: action.node,
          argv: ['bridge', 'fdb', 'replace', ...entry(e), 'permanent'],
        })),
        apply: async () => {
          const lines = remote.map((e) => ['fdb', 'del', ...entry(e)].join(' '));
          await shell.exec(['bridge', '-batch', '-'], { input: `${lines.join('\n')}\n` });
        },
      };
    }
    case 'windows-cni': {
      const api = cluster(session);
      const current = api.windowsCniConfig(action.node);
      const edited = editWindowsCni(current, action.edit, action.node);
      return {
        undo: [{ kind: 'windows-cni', node: action.node, config: current }],
        apply: async () => {
          await api.setWindowsCniConfig(action.node, edited);
          await forgetFlows(session, action.node, action.forgetFlowsFrom);
        },
      };
    }
    case 'dns-stop': {
      const process = dns(session);
      if (!(await process.running())) {
        throw new FaultError('the cluster DNS server is not running; nothing to stop', {
          hint: '`lab heal` starts it again',
        });
      }
      return { undo: [{ kind: 'dns-start' }], apply: () => process.stop() };
    }
    case 'stale-proxy': {
      const api = cluster(session);
      const ignored = api.staleProxyView(action.node);
      return {
        undo: [{ kind: 'stale-proxy', node: action.node, ignored }],
        apply: () =>
          api.setStaleProxyView(action.node, [...new Set([...ignored, action.endpointsOn])]),
      };
    }
    case 'local-policy-ignored': {
      const api = cluster(session);
      const ignored = api.ignoresLocalPolicy(action.node);
      return {
        undo: [{ kind: 'local-policy', node: action.node, ignored }],
        apply: () => api.setIgnoresLocalPolicy(action.node, true),
      };
    }
    case 'endpoints-kept': {
      const api = cluster(session);
      const keeps = api.keepsEndpoints(action.node);
      return {
        undo: [{ kind: 'keep-endpoints', node: action.node, keeps }],
        apply: () => api.setKeepsEndpoints(action.node, true),
      };
    }
    case 'proxy-quirk': {
      const api = cluster(session);
      const quirks = api.proxyQuirks(action.node);
      return {
        undo: [{ kind: 'proxy-quirks', node: action.node, quirks }],
        apply: () => api.setProxyQuirks(action.node, [...quirks, action.quirk]),
      };
    }
    case 'bare-cname': {
      const api = cluster(session);
      const bare = api.bareCname(action.node);
      return {
        undo: [{ kind: 'bare-cname', node: action.node, bare }],
        apply: () => api.setBareCname(action.node, true),
      };
    }
  }
}

/**
 * Deletes `node`'s conntrack entries of flows from `cidr`: NAT is decided on a flow's first
 * packet, so an entry from before a fault (a lookup's or a datagram's, on a source port that
 * comes round again) would carry a later packet past it.
 */
async function forgetFlows(session: FaultSession, node: string, cidr: string | undefined) {
  if (cidr === undefined) return;
  // conntrack exits 1 when no entry matched: nothing to forget is fine.
  const flushed = await session.shell(node).exec(['conntrack', '-D', '-s', cidr], { check: false });
  if (flushed.exitCode > 1)
    throw new FaultError(
      `node ${node}: conntrack -D -s ${cidr} exited ${flushed.exitCode}: ${flushed.stderr.trim()}`,
    );
}

/** Runs one undo step. */
export async function runUndo(session: FaultSession, step: UndoStep): Promise<void> {
  switch (step.kind) {
    case 'shell':
      try {
        await session
          .shell(step.node)
          .exec(step.argv, step.input === undefined ? {} : { input: step.input });
      } catch (error) {
        const gone =
          step.missingOk !== undefined &&
          error instanceof CommandError &&
          error.output.includes(step.missingOk);
        if (!gone) throw error;
      }
      return;
    case 'windows-cni':
      await cluster(session).setWindowsCniConfig(step.node, step.config);
      return;
    case 'dns-start':
      await dns(session).start();
      return;
    case 'stale-proxy':
      await cluster(session).setStaleProxyView(step.node, step.ignored);
      return;
    case 'local-policy':
      await cluster(session).setIgnoresLocalPolicy(step.node, step.ignored);
      return;
    case 'keep-endpoints':
      await cluster(session).setKeepsEndpoints(step.node, step.keeps);
      return;
    case 'proxy-quirks':
      await cluster(session).setProxyQuirks(step.node, step.quirks);
      return;
    case 'bare-cname':
      await cluster(session).setBareCname(step.node, step.bare);
      return;
  }
}
