/** The three-node lab (cp1, lin1, win1) the cell builders' tests expand rows over. */
import type { CellPlan } from '../model/cell-plan.ts';
import type { SuiteNode } from '../model/lab-driver.ts';

export const LAB: SuiteNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
];
/** The lab without its Windows node, and without its Linux nodes. */
export const LINUX = LAB.slice(0, 2);
export const WINDOWS = LAB.slice(2);

/** A cell's meta, with its skip reason when the lab cannot host it. */
export const metas = (cells: CellPlan[]) =>
  cells.map((c) => (c.skip === undefined ? c.meta : { ...c.meta, skip: c.skip }));
