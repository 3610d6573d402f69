/**
 * The disruption phase's vocabulary (docs/disruption.md), shared by the suite (which runs it) and the
 * fault catalogue (which predicts its cells): the actions, the order they run in, which nodes
 * they act on, and the cell ids `disruption/<action>/<subject>/<original cell id>`.
 */
import type { Os } from './cells.ts';

/**
 * What the phase does to a node, in the order it does them; `dns-pods-moved` acts on the cluster
 * (its DNS pods go to another node) and runs once, after every node's.
 */
export const DISRUPTION_ACTIONS = [
  'kube-proxy-restart',
  'cni-restart',
  'runtime-restart',
  'node-reboot',
  'dns-pods-moved',
] as const;
export type DisruptionAction = (typeof DISRUPTION_ACTIONS)[number];

/** The actions that act on one node. */
export const NODE_ACTIONS: readonly DisruptionAction[] = DISRUPTION_ACTIONS.filter(
  (a) => a !== 'dns-pods-moved',
);

/** The subject of an action on the cluster as a whole (never a node name: those are kept as DNS labels of nodes). */
export const CLUSTER_SUBJECT = 'cluster';

/** One step of the phase: an action and what it acts on (a node, or CLUSTER_SUBJECT). */
export interface Disruption {
  action: DisruptionAction;
  subject: string;
}

/** Which nodes the phase acts on: the first and the last of each OS, every node, or the named ones. */
export type DisruptionNodes = 'ends' | 'all' | readonly string[];

const PREFIX = 'disruption/';

/** `disruption/<action>/<subject>/<original cell id>`. */
export function disruptionCellId(action: DisruptionAction, subject: string, original: string) {
  return `${PREFIX}${action}/${subject}/${original}`;
}

/** `disruption/<action>/<original row id>`: the JUnit classname of a disruption cell. */
export function disruptionRowId(action: DisruptionAction, originalRow: string): string {
  return `${PREFIX}${action}/${originalRow}`;
}

/** The parts of a disruption cell id; undefined for every other id. */
export function parseDisruptionCellId(id: string): (Disruption & { original: string }) | undefined {
  const match = /^disruption\/([a-z-]+)\/([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\/(.+)$/.exec(id);
  if (match === null) return undefined;
  const action = match[1] as DisruptionAction;
  if (!DISRUPTION_ACTIONS.includes(action)) return undefined;
  return { action, subject: match[2]!, original: match[3]! };
}

/** Nodes of an OS as the self-test orders them: workers first, then control planes, plan order within. */
function workersFirst<T extends { os: Os; role: string }>(nodes: readonly T[], os: Os): T[] {
  const of = nodes.filter((n) => n.os === os);
  return [...of.filter((n) => n.role === 'worker'), ...of.filter((n) => n.role !== 'worker')];
}

/**
 * The nodes the phase acts on, in its order: for `ends`, the first and the last node of each OS
 * (Windows first, workers before control planes, as the self-test picks a fault's nodes); `all`
 * in that order too; named nodes in the order given.
 */
export function disruptionSubjects(
  nodes: readonly { name: string; os: Os; role: string }[],
  choice: DisruptionNodes,
): string[] {
  if (choice !== 'ends' && choice !== 'all') return [...choice];
  return (['windows', 'linux'] as const).flatMap((os) => {
    const of = workersFirst(nodes, os).map((n) => n.name);
    const picked = choice === 'all' ? of : [of[0], of.at(-1)];
    return [...new Set(picked.filter((n): n is string => n !== undefined))];
  });
}

/**
 * The phase in order: every node action on the first subject, then on the next, …; then
 * `dns-pods-moved` once, on the cluster. `actions` keeps only those (in the phase's own order).
 */
export function disruptionSequence(
  subjects: readonly string[],
  actions: readonly DisruptionAction[] = DISRUPTION_ACTIONS,
): Disruption[] {
  const node = NODE_ACTIONS.filter((a) => actions.includes(a));
  const steps = subjects.flatMap((subject) => node.map((action) => ({ action, subject })));
  return actions.includes('dns-pods-moved')
    ? [...steps, { action: 'dns-pods-moved', subject: CLUSTER_SUBJECT }]
    : steps;
}
