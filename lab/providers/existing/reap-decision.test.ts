import { expect } from 'chai';
import { reapDecision, type Reaper, type RunNamespace } from './reap-decision.ts';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const HOUR = 3_600_000;
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const me: Reaper = { owner: 'ada', host: 'build1', alive: (pid) => pid === 4242, nowMs: NOW };
const ns = (stamp: RunNamespace['stamp'], createdAt?: string): RunNamespace => ({
  name: 'hybrid-lab-x',
  lab: 'existing',
  stamp,
  ...(createdAt === undefined ? {} : { createdAt }),
});

describe('reapDecision: whose run namespace `lab reap` deletes', () => {
  it('own runs whose process is gone; never one that still runs, unless past the age named', () => {
    const gone = ns({ owner: 'ada', host: 'build1', pid: 1 }, ago(HOUR));
    expect(reapDecision(gone, me)).to.deep.equal({
      reap: true,
      why: 'your run, its process gone, 1 h old',
    });
    const running = ns({ owner: 'ada', host: 'build1', pid: 4242 }, ago(HOUR));
    expect(reapDecision(running, me).reap).to.equal(false);
    expect(reapDecision(running, { ...me, olderThanMs: 2 * HOUR }).reap).to.equal(false);
    // A process id reused long after its run died looks alive: the age the user names settles it.
    expect(reapDecision(running, { ...me, olderThanMs: HOUR / 2 })).to.deep.equal({
      reap: true,
      why: 'your run (process 4242 runs), 1 h old, past --older-than 30 min',
    });
  });

  it("others' runs, and runs that do not say whose they are, only past the age named", () => {
    const bob = ns({ owner: 'bob', host: 'laptop2', pid: 1 }, ago(3 * HOUR));
    const unstamped = ns({}, ago(3 * HOUR));
    for (const run of [bob, unstamped]) {
      expect(reapDecision(run, me).reap).to.equal(false);
      expect(reapDecision(run, { ...me, olderThanMs: 4 * HOUR }).reap).to.equal(false);
      expect(reapDecision(run, { ...me, olderThanMs: 2 * HOUR }).reap).to.equal(true);
    }
    expect(reapDecision(unstamped, me).why).to.equal(
      'a run that does not say whose it is (an older harness), 3 h old: `lab reap --older-than <age>` reaps other runs past that age',
    );
  });

  it("ages a run by the API server's creation time, else its stamp; an unknown age is never past", () => {
    const bob = { owner: 'bob', host: 'laptop2' };
    const byStamp = ns({ ...bob, startedAt: ago(5 * HOUR) });
    expect(reapDecision(byStamp, { ...me, olderThanMs: HOUR }).reap).to.equal(true);
    // The stamp is the colleague's clock; the server's creation time wins where both are.
    const both = ns({ ...bob, startedAt: ago(5 * HOUR) }, ago(HOUR / 2));
    expect(reapDecision(both, { ...me, olderThanMs: HOUR }).reap).to.equal(false);
    const unknown = ns({ ...bob, startedAt: 'yesterday' });
    expect(reapDecision(unknown, { ...me, olderThanMs: HOUR })).to.deep.equal({
      reap: false,
      why: "bob's run on laptop2: its age unknown, never past --older-than 1 h",
    });
  });
});
