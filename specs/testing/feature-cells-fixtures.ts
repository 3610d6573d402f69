/** Shared fixtures of the Service-feature cell tests on a small lab: its nodes and cell metas. */
import type { SuiteNode } from '../model/lab-driver.ts';
import type { CellPlan } from '../model/cell-plan.ts';

export const LAB: SuiteNode[] = [
  { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
];
export const LINUX = LAB.slice(0, 2);
export const LAB3: SuiteNode[] = [
  ...LINUX,
  { name: 'lin2', os: 'linux', role: 'worker', ip: '192.168.200.12' },
  ...LAB.slice(2),
];
/** A cell's meta, with its skip reason when the lab cannot host it. */
export const metas = (cells: CellPlan[]) =>
  cells.map((c) => (c.skip === undefined ? c.meta : { ...c.meta, skip: c.skip }));
