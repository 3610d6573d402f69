import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { withDeadline } from './deadline.ts';

describe('withDeadline', () => {
  it("gives the work's result when it is in time, and never calls late() afterwards", async () => {
    let lateCalls = 0;
    const late = () => {
      lateCalls++;
      return 'late';
    };
    expect(await withDeadline(Promise.resolve('done'), 10, late)).to.equal('done');
    await delay(30);
    expect(lateCalls).to.equal(0);
  });

  it("gives late()'s value once the time has passed", async () => {
    expect(await withDeadline(new Promise<string>(() => undefined), 5, () => 'late')).to.equal(
      'late',
    );
  });
});
