/** docs/disruption.md's reference tables list what the code has: rows with cells, actions, faults. */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { DISRUPTION_ACTIONS } from '../lab/contracts/disruptions.ts';
import { FAULT_CATALOGUE } from '../lab/faults/fault-catalogue.ts';
import { planLab } from '../lab/plan/plan-lab.ts';
import { loadSpec } from '../lab/spec/load-spec.ts';
import { loadProfile } from '../specs/engine/profile.ts';
import { expandOverTimeCells } from '../specs/engine/disruption/over-time-cells.ts';
import { OVER_TIME_ROWS } from '../specs/engine/disruption/over-time-rows.ts';
import { DEFAULT_RECOVERY_BOUND_MS } from '../specs/engine/disruption/recovery-bounds.ts';
import { tables, type Table } from './markdown/markdown.ts';

const PAGE = readFileSync('docs/disruption.md', 'utf8');
const table = (first: string): Table => {
  const found = tables(PAGE).find((t) => t.header[0] === first);
  if (found === undefined)
    throw new Error(`docs/disruption.md has no table starting with "${first}"`);
  return found;
};
const code = (cell: string): string => /^`([^`]+)`/.exec(cell)?.[1] ?? cell;

describe('docs/disruption.md lists what the code has', () => {
  it('every over-time row, with its cells on the default lab', () => {
    const nodes = planLab(loadSpec('hybrid', process.cwd()).spec).nodes;
    const counts = new Map<string, number>();
    for (const c of expandOverTimeCells(OVER_TIME_ROWS, nodes)) {
      const kind = c.meta.row.split('/')[0]!;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    const rows = table('row').rows.map((r) => [code(r[0]!), Number(r[1])]);
    expect(rows).to.deep.equal([...counts.entries()]);
  });

  it("every action, in the order the phase makes them, with the profile's bounds", () => {
    const rows = table('action').rows;
    expect(rows.map((r) => code(r[0]!))).to.deep.equal([...DISRUPTION_ACTIONS]);
    const seconds = (action: string, os: 'linux' | 'windows') =>
      (loadProfile('strict').recovery?.find((r) => r.action === action && r.os === os)?.boundMs ??
        DEFAULT_RECOVERY_BOUND_MS) / 1000;
    for (const row of rows) {
      const action = code(row[0]!);
      const [linux, windows] = [seconds(action, 'linux'), seconds(action, 'windows')];
      const said = linux === windows ? `${linux} s` : `${linux} s / ${windows} s`;
      expect([`${linux} s / ${windows} s`, said], action).to.include(row.at(-1));
    }
  });

  it("every fault only time shows, in the catalogue's order", () => {
    const listed = table('fault').rows.map((r) => code(r[0]!));
    expect(listed).to.deep.equal(
      FAULT_CATALOGUE.filter((f) => f.witness === 'over-time' || f.witness === 'disruptions').map(
        (f) => f.id,
      ),
    );
  });
});
