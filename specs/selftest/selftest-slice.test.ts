import { expect } from 'chai';
import { FAULT_CATALOGUE } from '../../lab/faults/fault-catalogue.ts';
import { selftestNodes } from '../../lab/faults/fault-targets.ts';
import { defaultPlan } from './fault-fingerprints.ts';
import { changedFaults, ROTATION_TURNS, sliceRuns } from './selftest-slice.ts';

/** CI's planned runs on the default lab: the catalogue, one end of each OS by turns. */
const plan = defaultPlan();
const PLANNED = FAULT_CATALOGUE.flatMap((fault, i) =>
  selftestNodes(fault, plan, 'alternate', i).map((node) => ({ fault, node })),
);
const key = (r: { fault: { id: string }; node: string | undefined }) =>
  `${r.fault.id}@${r.node ?? 'lab'}`;

describe('the self-test slice CI runs', () => {
  it('runs every run of a changed fault, on every turn', () => {
    const changed = new Set(['pod-route-removed', 'link-lossy']);
    const all = PLANNED.filter((r) => changed.has(r.fault.id)).map(key);
    expect(all.length).to.be.greaterThan(2);
    for (let n = 0; n < 2 * ROTATION_TURNS; n++) {
      const slice = sliceRuns(PLANNED, { changed, commitNumber: n });
      expect(slice.runs.map(key)).to.include.members(all);
      expect(slice.changed).to.have.members([...changed]);
      expect(slice.leftOut.map(key)).to.not.include.members(all.slice(0, 1));
    }
  });

  it('any four consecutive changes run every fault of the catalogue, each run in exactly one', () => {
    for (const start of [0, 1, 2, 3, 101, 7_777]) {
      const seen = new Map<string, number>();
      for (let n = start; n < start + ROTATION_TURNS; n++)
        for (const r of sliceRuns(PLANNED, { changed: new Set(), commitNumber: n }).runs)
          seen.set(key(r), (seen.get(key(r)) ?? 0) + 1);
      expect([...seen.keys()]).to.have.members(PLANNED.map(key));
      expect([...seen.values()].every((v) => v === 1)).to.be.true;
      expect(new Set(PLANNED.map((r) => r.fault.id)).size).to.equal(FAULT_CATALOGUE.length);
    }
  });

  it('splits the rest evenly: no turn takes more than its share', () => {
    const share = Math.ceil(PLANNED.length / ROTATION_TURNS);
    for (let n = 0; n < ROTATION_TURNS; n++) {
      const slice = sliceRuns(PLANNED, { changed: new Set(), commitNumber: n });
      expect(slice.turn).to.equal(n);
      expect(slice.runs.length).to.be.within(share - 1, share);
      expect(slice.runs.length + slice.leftOut.length).to.equal(PLANNED.length);
      expect(slice.changed).to.deep.equal([]);
    }
  });

  it('a fault is changed when its fingerprint differs or is new; a removed one is not run', () => {
    const base = { a: '1', b: '2', gone: '3' };
    const head = { a: '1', b: '9', fresh: '4' };
    expect([...changedFaults(base, head)]).to.have.members(['b', 'fresh']);
    expect([...changedFaults(head, head)]).to.deep.equal([]);
  });
});
