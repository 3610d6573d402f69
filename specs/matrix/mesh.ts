/**
 * Which ordered node pairs the cross-node cells cover. `full`: every ordered pair, cells growing
 * with the square of the nodes (the default on labs). `ring`: each node to the next `peers` nodes
 * of each OS, starting further along on each night, so every node stays a source and a target of
 * every row with cells linear in the nodes, and the whole mesh is covered over
 * ceil((nodes of the OS - 1) / peers) nights.
 */
import type { Os } from '../../lab/contracts/cells.ts';
import type { SuiteNode } from '../model/lab-driver.ts';
import { SettingError, positiveIntSetting } from '../model/settings.ts';

/** Nodes of an OS, workers first: pods on workers are the common case. */
export function nodesOf(nodes: readonly SuiteNode[], os: Os): SuiteNode[] {
  const of = nodes.filter((n) => n.os === os);
  return [...of.filter((n) => n.role === 'worker'), ...of.filter((n) => n.role !== 'worker')];
}

export const MESH_MODES = ['full', 'ring'] as const;
export type MeshMode = (typeof MESH_MODES)[number];

export interface Mesh {
  mode: MeshMode;
  /** ring: targets per source node and OS. */
  peers: number;
  /** ring: how far along the ring this run starts (the night's number, by default). */
  rotation: number;
}

export const FULL_MESH: Mesh = { mode: 'full', peers: 1, rotation: 0 };

/** Days since 1970-01-01 (UTC): a nightly run's rotation, the same all day. */
export function nightOf(date: Date): number {
  return Math.floor(date.getTime() / 86_400_000);
}

/** MESH (full | ring; `fallback` when unset), MESH_PEERS (1) and MESH_ROTATION (the night). */
export function meshSettings(env: NodeJS.ProcessEnv, fallback: MeshMode, now: Date): Mesh {
  const mode = env.MESH === undefined || env.MESH === '' ? fallback : env.MESH;
  if (!(MESH_MODES as readonly string[]).includes(mode))
    throw new SettingError(`MESH must be one of ${MESH_MODES.join(', ')}, got '${mode}'`);
  const rotation =
    env.MESH_ROTATION === '0' ? 0 : positiveIntSetting(env, 'MESH_ROTATION', nightOf(now));
  return { mode: mode as MeshMode, peers: positiveIntSetting(env, 'MESH_PEERS', 1), rotation };
}

/**
 * Above this many nodes, a cluster the harness did not make is probed as a ring unless MESH=full
 * asks for the whole mesh: 6 Linux + 4 Windows nodes are 1,440 cells full, 740 as a ring.
 */
export const RING_ABOVE_NODES = 8;

/**
 * The mesh of a run once its cluster is known: `mesh`, except that on a cluster the harness did
 * not make (provider `existing`) above RING_ABOVE_NODES nodes a full mesh nobody asked for
 * (MESH unset: `asked` false) becomes a ring.
 */
export function meshForCluster(
  mesh: Mesh,
  asked: boolean,
  cluster: { provider: string; nodes: number },
): Mesh {
  if (asked || mesh.mode !== 'full') return mesh;
  if (cluster.provider !== 'existing' || cluster.nodes <= RING_ABOVE_NODES) return mesh;
  return { ...mesh, mode: 'ring' };
}

/**
 * The cross-node targets of `src` among the nodes of `to`, in ring order: the nodes after it
 * when it is one of them, else starting at its own place among the nodes of its OS.
 */
function ringOrder(src: SuiteNode, nodes: readonly SuiteNode[], to: Os): SuiteNode[] {
  const targets = nodesOf(nodes, to);
  const at = targets.findIndex((n) => n.name === src.name);
  const start =
    at >= 0
      ? at + 1
      : Math.max(
          0,
          nodesOf(nodes, src.os).findIndex((n) => n.name === src.name),
        );
  return targets
    .map((_, i) => targets[(start + i) % targets.length]!)
    .filter((n) => n.name !== src.name);
}

/** The ordered cross-node pairs from nodes of `from` to nodes of `to` under `mesh`. */
export function crossNodePairs(
  row: { from: Os; to: Os },
  nodes: readonly SuiteNode[],
  mesh: Mesh = FULL_MESH,
): [SuiteNode, SuiteNode][] {
  return nodesOf(nodes, row.from).flatMap((src) => {
    if (mesh.mode === 'full') {
      return nodesOf(nodes, row.to)
        .filter((dst) => dst.name !== src.name)
        .map((dst): [SuiteNode, SuiteNode] => [src, dst]);
    }
    const order = ringOrder(src, nodes, row.to);
    if (order.length <= mesh.peers) return order.map((dst): [SuiteNode, SuiteNode] => [src, dst]);
    const picked = new Set<number>();
    for (let i = 0; i < mesh.peers; i++)
      picked.add((mesh.rotation * mesh.peers + i) % order.length);
    return [...picked].map((i): [SuiteNode, SuiteNode] => [src, order[i]!]);
  });
}
