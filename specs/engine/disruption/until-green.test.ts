import { expect } from 'chai';
import { Outcome } from '../../../lab/contracts/results-file.ts';
import { untilGreen, type Judged } from './until-green.ts';

/** Attempts that fail until the `greenFrom`-th one (1-based), each reporting `ms` of its own. */
function scripted(since: number, greenFrom: number, ms = 5) {
  const began: number[] = [];
  const attempt = (): Promise<{ judged: Judged; ms: number }> => {
    began.push(performance.now() - since);
    const judged: Judged =
      began.length >= greenFrom
        ? { outcome: Outcome.Ok, detail: 'answered' }
        : { outcome: Outcome.Timeout, detail: 'no answer' };
    return Promise.resolve({ judged, ms });
  };
  return { attempt, began };
}

describe('until green', () => {
  it('is green at the first passing attempt, timed from the change', async () => {
    const since = performance.now();
    const { attempt, began } = scripted(since, 3);
    const result = await untilGreen(attempt, {
      since,
      boundMs: 60_000,
      minAttempts: 1,
      pollMs: 30,
    });
    expect(result.last.outcome).to.equal(Outcome.Ok);
    expect(result.attempts).to.equal(3);
    // From the change to the end of the passing attempt: both pauses before it are in it.
    expect(result.timeToGreenMs).to.be.at.least(55);
    expect(result.timeToGreenMs).to.be.at.least(Math.floor(began[2]!));
    // Only the attempts' own time: not the pauses between them.
    expect(result.probeMs).to.equal(15);
  });

  it('fails only on an attempt that began after the bound', async () => {
    const since = performance.now();
    const { attempt, began } = scripted(since, Infinity);
    const result = await untilGreen(attempt, { since, boundMs: 150, minAttempts: 1, pollMs: 20 });
    expect(result.last.outcome).to.equal(Outcome.Timeout);
    expect(result.timeToGreenMs).to.equal(undefined);
    expect(began.at(-1)).to.be.at.least(150);
    expect(began.slice(0, -1).every((t) => t < 150)).to.equal(true);
  });

  it('makes its least number of attempts even with a bound of 0, no more', async () => {
    const since = performance.now();
    const { attempt, began } = scripted(since, Infinity);
    const result = await untilGreen(attempt, { since, boundMs: 0, minAttempts: 3, pollMs: 1 });
    expect(result.attempts).to.equal(3);
    expect(began).to.have.length(3);
  });

  it('is green on a later attempt within its least number, past a bound of 0', async () => {
    const since = performance.now();
    const { attempt } = scripted(since, 3);
    const result = await untilGreen(attempt, { since, boundMs: 0, minAttempts: 3, pollMs: 10 });
    expect(result.last.outcome).to.equal(Outcome.Ok);
    expect(result.attempts).to.equal(3);
    expect(result.timeToGreenMs).to.be.at.least(18);
  });
});
