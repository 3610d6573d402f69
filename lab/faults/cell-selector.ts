/**
 * Which suite cells a fault breaks, as typed data the self-test matches against the suite's
 * cells. A cell's kind, OSes, via and lookup come from its id (lab/contracts/cells.ts parses
 * it); its nodes from its endpoints. The lab never imports the suite.
 */
import {
  type ChurnStep,
  parseCellId,
  sourceOs,
  targetOs,
  type DnsLookup,
  type Os,
  type PerfMeasure,
  type PerfNetwork,
  type RowKind,
  type Variant,
  type Via,
} from '../contracts/cells.ts';
import { parseDisruptionCellId, type DisruptionAction } from '../contracts/disruptions.ts';

/** What a selector looks at in a cell (a subset of the suite's CellMeta). */
export interface CellRef {
  /** Cell id, e.g. `pod-to-pod/linux-to-windows/cross-node/lin1/win1/ip`. */
  cell: string;
  /** Node the probe runs on, or `outside`. */
  source: { node: string };
  /** Target node; a Service lists its backend nodes comma-separated; `-` or `outside` otherwise. */
  target: { node: string };
}

export interface CellSelector {
  /** The cell is of one of these row kinds (any when absent). */
  kinds?: readonly RowKind[];
  /** The probe starts from this OS (`external`: from outside the cluster). */
  fromOs?: Os | 'external';
  /** The probe goes to this OS. */
  toOs?: Os;
  via?: Via;
  /** DNS cells: what is looked up. */
  lookup?: DnsLookup;
  /** The probe must start on one of these nodes. */
  from?: readonly string[];
  /** Every target node must be one of these (and there must be at least one). */
  toAll?: readonly string[];
  /** At least one target node must be one of these. */
  toAny?: readonly string[];
  /** Churn cells: the cell probes after one of these steps (other cells never match). */
  steps?: readonly ChurnStep[];
  /**
   * Disruption cells (`disruption/<action>/<subject>/<cell>`) made by one of these actions on one
   * of these subjects (any when absent); the other fields then look at the cell it probes again.
   * Without it, no disruption cell matches.
   */
  disruption?: { actions?: readonly DisruptionAction[]; subjects?: readonly string[] };
  /** Cells of a row with variants (VARIANTS): one of these (other cells never match). */
  variants?: readonly Variant[];
  /** Perf cells: the cell runs one of these measures (other cells never match). */
  measures?: readonly PerfMeasure[];
  /** Perf cells: over one of these networks (other cells never match). */
  networks?: readonly PerfNetwork[];
}

/** The target's nodes: a pod's node, a Service's backends; none for `-` (cluster DNS) or `outside`. */
export function targetNodes(cell: CellRef): string[] {
  return cell.target.node
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '' && n !== '-' && n !== 'outside');
}

/** Whether the selector picks the cell; a cell id outside the matrix grammar is never picked. */
export function matchesCell(selector: CellSelector, cell: CellRef): boolean {
  const wrapped = parseDisruptionCellId(cell.cell);
  const wanted = selector.disruption;
  if ((wanted === undefined) !== (wrapped === undefined)) return false;
  if (wanted !== undefined && wrapped !== undefined) {
    if (wanted.actions !== undefined && !wanted.actions.includes(wrapped.action)) return false;
    if (wanted.subjects !== undefined && !wanted.subjects.includes(wrapped.subject)) return false;
    return matchesCell({ ...selector, disruption: undefined }, { ...cell, cell: wrapped.original });
  }
  const key = parseCellId(cell.cell);
  if (key === undefined) return false;
  if (selector.kinds !== undefined && !selector.kinds.includes(key.kind)) return false;
  if (selector.fromOs !== undefined && selector.fromOs !== sourceOs(key)) return false;
  if (selector.toOs !== undefined && selector.toOs !== targetOs(key)) return false;
  if (selector.via !== undefined && selector.via !== key.via) return false;
  if (selector.lookup !== undefined && (key.kind !== 'dns' || key.lookup !== selector.lookup))
    return false;
  if (
    selector.steps !== undefined &&
    (key.step === undefined || !selector.steps.includes(key.step))
  )
    return false;
  if (
    selector.variants !== undefined &&
    (key.variant === undefined || !selector.variants.includes(key.variant))
  )
    return false;
  if (
    selector.measures !== undefined &&
    (key.kind !== 'perf' || !selector.measures.includes(key.measure))
  )
    return false;
  if (
    selector.networks !== undefined &&
    (key.kind !== 'perf' || !selector.networks.includes(key.network))
  )
    return false;
  if (selector.from !== undefined && !selector.from.includes(cell.source.node)) return false;
  const targets = targetNodes(cell);
  if (selector.toAll !== undefined) {
    const all = selector.toAll;
    if (targets.length === 0 || !targets.every((t) => all.includes(t))) return false;
  }
  if (selector.toAny !== undefined) {
    const any = selector.toAny;
    if (!targets.some((t) => any.includes(t))) return false;
  }
  return true;
}

/** One line for `lab faults` and the self-test report, e.g. `pod-to-pod from win1 to only cp1,lin1`. */
export function describeSelector(selector: CellSelector): string {
  const parts = [
    ...(selector.disruption === undefined
      ? []
      : [
          `after ${selector.disruption.actions?.join('|') ?? 'any disruption'}` +
            (selector.disruption.subjects === undefined
              ? ''
              : ` on ${selector.disruption.subjects.join(',')}`) +
            ':',
        ]),
    selector.kinds?.join('|') ?? 'any cell',
  ];
  if (selector.lookup !== undefined) parts.push(selector.lookup);
  if (selector.fromOs !== undefined) parts.push(`from ${selector.fromOs}`);
  if (selector.toOs !== undefined) parts.push(`to ${selector.toOs}`);
  if (selector.via !== undefined) parts.push(`via ${selector.via}`);
  if (selector.steps !== undefined) parts.push(`after ${selector.steps.join('|')}`);
  if (selector.variants !== undefined) parts.push(selector.variants.join('|'));
  if (selector.measures !== undefined) parts.push(`measuring ${selector.measures.join('|')}`);
  if (selector.networks !== undefined) parts.push(`over ${selector.networks.join('|')} network`);
  if (selector.from !== undefined) parts.push(`from ${selector.from.join(',')}`);
  if (selector.toAll !== undefined) parts.push(`to only ${selector.toAll.join(',')}`);
  if (selector.toAny !== undefined) parts.push(`to any of ${selector.toAny.join(',')}`);
  return parts.join(' ');
}
