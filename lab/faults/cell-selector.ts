/**
 * Which suite cells a fault breaks, as data the self-test matches against the suite's cell ids
 * and metadata. The lab never imports the suite, so a cell is described by its id and endpoints.
 */
import { globToRegExp } from '../text/glob.ts';

/** What a selector looks at in a cell (a subset of the suite's CellMeta). */
export interface CellRef {
  /** Cell id, e.g. `pod-to-pod/linux-to-windows/cross-node/ip`. */
  cell: string;
  /** ip | dns | cluster-ip | node-ip */
  via: string;
  /** Node the probe runs on, or `outside`. */
  source: { node: string };
  /** Target node; a Service lists its backend nodes comma-separated; `-` or `outside` otherwise. */
  target: { node: string };
}

export interface CellSelector {
  /** Glob over cell ids: `*` matches within one segment, `**` across segments. */
  cell: string;
  /** The cell's `via` must be this. */
  via?: string;
  /** The probe must start on one of these nodes. */
  from?: readonly string[];
  /** Every target node must be one of these (and there must be at least one). */
  toAll?: readonly string[];
  /** At least one target node must be one of these. */
  toAny?: readonly string[];
}

/** The target's nodes: a pod's node, a Service's backends; none for `-` (cluster DNS) or `outside`. */
export function targetNodes(cell: CellRef): string[] {
  return cell.target.node
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '' && n !== '-' && n !== 'outside');
}

export function matchesCell(selector: CellSelector, cell: CellRef): boolean {
  if (!globToRegExp(selector.cell).test(cell.cell)) return false;
  if (selector.via !== undefined && selector.via !== cell.via) return false;
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

/** One line for `lab faults` and the self-test report, e.g. `pod-to-pod/** from win1 to only cp1,lin1`. */
export function describeSelector(selector: CellSelector): string {
  const parts = [selector.cell];
  if (selector.via !== undefined) parts.push(`via ${selector.via}`);
  if (selector.from !== undefined) parts.push(`from ${selector.from.join(',')}`);
  if (selector.toAll !== undefined) parts.push(`to only ${selector.toAll.join(',')}`);
  if (selector.toAny !== undefined) parts.push(`to any of ${selector.toAny.join(',')}`);
  return parts.join(' ');
}
