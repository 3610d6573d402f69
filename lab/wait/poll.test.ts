import { expect } from 'chai';
import { WaitTimeoutError } from '../errors.ts';
import { pollFor, pollUntil, settleAll } from './poll.ts';

describe('pollUntil', function () {
  it('returns the first answer', async function () {
    let calls = 0;
    const value = await pollUntil('three calls', () => (++calls === 3 ? 'ready' : undefined), {
      timeoutMs: 1000,
      intervalMs: 1,
    });
    expect(value).to.equal('ready');
    expect(calls).to.equal(3);
  });

  it('times out naming what it awaited, for how long, and what it saw last', async function () {
    const error = await pollFor('the moon', () => false, {
      timeoutMs: 30,
      intervalMs: 5,
      lastSeen: () => 'still new',
    }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(WaitTimeoutError);
    expect((error as Error).message).to.equal(
      'timed out after 30 ms waiting for the moon; last error: "still new"',
    );
  });

  it('ends at the first error unless errors mean "not yet"; then the last one is reported', async function () {
    let calls = 0;
    const fail = (): never => {
      calls++;
      throw new Error(`attempt ${calls}`);
    };
    const first = await pollFor('x', fail, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect((first as Error).message).to.equal('attempt 1');
    calls = 0;
    const last = await pollFor('x', fail, {
      timeoutMs: 20,
      intervalMs: 5,
      retryOnError: true,
    }).catch((e: unknown) => e);
    expect(last).to.be.instanceOf(WaitTimeoutError);
    expect((last as Error).message).to.match(/last error: attempt \d+$/);
    expect(calls).to.be.greaterThan(1);
  });
});

describe('settleAll', function () {
  it('waits for every promise before rethrowing the first failure', async function () {
    let slowDone = false;
    const slow = new Promise<void>((resolve) =>
      setTimeout(() => {
        slowDone = true;
        resolve();
      }, 20),
    );
    const error = await settleAll([Promise.reject(new Error('first')), slow]).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).to.equal('first');
    expect(slowDone).to.equal(true);
  });
});
