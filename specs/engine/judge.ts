/** Turns a probe reply into a named outcome, and an outcome into a verdict under the profile. */
import type { ProbeReply } from '../model/lab-driver.ts';
import type { Check } from '../model/cell-plan.ts';
import { Outcome, type Verdict } from '../../lab/contracts/results-file.ts';

const FAILURES: Record<Exclude<ProbeReply['result'], 'ok'>, Outcome> = {
  timeout: Outcome.Timeout,
  refused: Outcome.Refused,
  unreachable: Outcome.Unreachable,
  nxdomain: Outcome.NxDomain,
  'http-error': Outcome.Error,
  error: Outcome.Error,
};

/** The outcome of one probe and the evidence for it. */
export function judgeReply(reply: ProbeReply, check: Check): { outcome: Outcome; detail: string } {
  if (reply.result !== 'ok') {
    const why = reply.error ?? (reply.status === undefined ? '' : `HTTP ${reply.status}`);
    return {
      outcome: FAILURES[reply.result],
      detail: `${reply.result}${why === '' ? '' : `: ${why}`}`,
    };
  }
  switch (check.kind) {
    case 'source-ip': {
      if (check.peer !== undefined && reply.peer !== check.peer) {
        return {
          outcome: Outcome.WrongAnswer,
          detail: `connected to ${reply.peer ?? '(the probe did not say)'}, expected the target pod ${check.peer}`,
        };
      }
      const seen = (reply.body ?? '').trim().replace(/^\[?([^\]]*?)\]?:\d+$/, '$1');
      return seen === check.expect
        ? { outcome: Outcome.Ok, detail: `far end saw ${seen}` }
        : {
            outcome: Outcome.WrongSourceIp,
            detail: `far end saw ${seen || '(nothing)'}, expected ${check.expect}`,
          };
    }
    case 'answer': {
      const answers = reply.addresses ?? [];
      return answers.includes(check.expect)
        ? { outcome: Outcome.Ok, detail: `answered ${answers.join(', ')}` }
        : {
            outcome: Outcome.WrongAnswer,
            detail: `answered ${answers.join(', ') || 'nothing'}, expected ${check.expect}`,
          };
    }
    case 'bytes': {
      const got = reply.bytes ?? 0;
      return got === check.expect
        ? { outcome: Outcome.Ok, detail: `received all ${got} bytes` }
        : {
            outcome: Outcome.Error,
            detail: `received ${got} of ${check.expect} bytes`,
          };
    }
    case 'responds':
      return {
        outcome: Outcome.Ok,
        detail: `answered ${JSON.stringify((reply.body ?? '').slice(0, 60))}`,
      };
  }
}

/** Compares what happened with what the profile expects. */
export function verdictOf(expected: Outcome, actual: Outcome): Verdict {
  if (expected === Outcome.Ok) return actual === Outcome.Ok ? 'pass' : 'fail';
  if (actual === expected) return 'expected-failure';
  return actual === Outcome.Ok ? 'unexpected-pass' : 'fail';
}
