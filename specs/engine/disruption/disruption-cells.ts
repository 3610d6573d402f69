/**
 * The disruption phase's cells: for each action on a node, every matrix cell that starts or ends
 * on that node, probed again until green; for DNS pods moved, every node's DNS cells; and the
 * long-lived connections with an end on the node, held through the action.
 */
import { parseCellId } from '../../../lab/contracts/cells.ts';
import {
  CLUSTER_SUBJECT,
  disruptionCellId,
  disruptionRowId,
  type Disruption,
  type DisruptionAction,
} from '../../../lab/contracts/disruptions.ts';
import type { CellMeta } from '../../../lab/contracts/results-file.ts';
import { targetNodes } from '../../../lab/faults/cell-selector.ts';
import type { CellPlan } from '../../model/cell-plan.ts';
import type { HeldCell } from './over-time-cells.ts';

type Meta = Omit<CellMeta, 'expected' | 'reason'>;

/** A matrix cell probed again after a disruption, until green or its bound. */
export interface ReprobeCell {
  kind: 'reprobe';
  meta: Meta;
  disruption: Disruption;
  original: CellPlan;
  skip?: undefined;
}

/** A long-lived connection opened before a disruption and asked again once its cells are done. */
export interface HeldThroughCell {
  kind: 'held';
  meta: Meta;
  disruption: Disruption;
  original: HeldCell;
  /** Why it is not expected to survive (a rebooted end), with the source; the cell is skipped. */
  skip?: string;
}

export type DisruptionCell = ReprobeCell | HeldThroughCell;

/** Why a connection with an end on a rebooted node is not held through the reboot. */
export const REBOOT_ENDS_CONNECTIONS =
  "not expected to survive: a reboot ends every process of the node, the pod's socket with them, and " +
  'the kubelet brings the pod back in a new sandbox with a new address ' +
  '(https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/)';

/** The rows never probed again: a churn cell's answer depends on the churn step it ran after. */
const NOT_REPROBED = new Set(['churn']);
/** The rows probed again after the cluster DNS moved: every node's lookups. */
const DNS_ROWS = new Set(['dns', 'dns-tcp']);

/** Whether the cell starts on `node`, or `node` is one of its targets. */
export function touches(meta: Pick<Meta, 'cell' | 'source' | 'target'>, node: string): boolean {
  return meta.source.node === node || targetNodes(meta).includes(node);
}

function wrap(meta: Meta, { action, subject }: Disruption): Meta {
  return {
    ...meta,
    row: disruptionRowId(action, meta.row),
    cell: disruptionCellId(action, subject, meta.cell),
    title: `disruption ${action} ${subject} ${meta.title}`,
  };
}

function kindOf(meta: Meta): string | undefined {
  return parseCellId(meta.cell)?.kind;
}

/** The matrix cells `action` on `subject` probes again. */
function reprobed(matrix: readonly CellPlan[], action: DisruptionAction, subject: string) {
  return matrix.filter((c) => {
    const kind = kindOf(c.meta);
    if (c.probe === undefined || kind === undefined || NOT_REPROBED.has(kind)) return false;
    if (subject === CLUSTER_SUBJECT) return action === 'dns-pods-moved' && DNS_ROWS.has(kind);
    return touches(c.meta, subject);
  });
}

/** Every cell of the phase `sequence`, in its order. */
export function disruptionCells(
  sequence: readonly Disruption[],
  matrix: readonly CellPlan[],
  held: readonly HeldCell[],
): DisruptionCell[] {
  return sequence.flatMap((disruption): DisruptionCell[] => {
    const { action, subject } = disruption;
    const again = reprobed(matrix, action, subject).map((original): ReprobeCell => ({
      kind: 'reprobe',
      meta: wrap(original.meta, disruption),
      disruption,
      original,
    }));
    if (subject === CLUSTER_SUBJECT) return again;
    const through = held
      .filter((c) => c.skip === undefined && touches(c.meta, subject))
      .map((original): HeldThroughCell => ({
        kind: 'held',
        meta: wrap(original.meta, disruption),
        disruption,
        original,
        ...(action === 'node-reboot' ? { skip: REBOOT_ENDS_CONNECTIONS } : {}),
      }));
    return [...again, ...through];
  });
}
