/** Turns a probe reply into a named outcome, and an outcome into a verdict under the profile. */
import type { ProbeReply } from '../model/lab-driver.ts';
import type { Check } from '../model/cell-plan.ts';
import { Outcome, type Verdict } from '../../lab/contracts/results-file.ts';
import { judgeSourceReported, seenAddress } from './source-reported.ts';

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
  if (check.kind === 'not-forwarded' || check.kind === 'refused')
    return judgeNotForwarded(reply, check.kind === 'refused');
  // A non-2xx status is these checks' answer, not a failed request.
  if (reply.result === 'http-error' && reply.status !== undefined) {
    if (check.kind === 'http-answer') return judgeHttpAnswer(reply, check);
    if (check.kind === 'health-check') return judgeHealth(reply, check);
  }
  if (reply.result !== 'ok') {
    const why = reply.error ?? (reply.status === undefined ? '' : `HTTP ${reply.status}`);
    const answered = check.kind === 'every-endpoint' ? `; ${sweepText(reply, check.expect)}` : '';
    return {
      outcome: FAILURES[reply.result],
      detail: `${reply.result}${why === '' ? '' : `: ${why}`}${answered}`,
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
      const seen = seenAddress(reply);
      return seen === check.expect
        ? { outcome: Outcome.Ok, detail: `far end saw ${seen}` }
        : {
            outcome: Outcome.WrongSourceIp,
            detail: `far end saw ${seen || '(nothing)'}, expected ${check.expect}`,
          };
    }
    case 'source-reported':
      return judgeSourceReported(reply, check);
    case 'answer': {
      const answers = reply.addresses ?? [];
      return answers.includes(check.expect)
        ? { outcome: Outcome.Ok, detail: `answered ${answers.join(', ')}` }
        : {
            outcome: Outcome.WrongAnswer,
            detail: `answered ${answers.join(', ') || 'nothing'}, expected ${check.expect}`,
          };
    }
    case 'echo-reply':
      return reply.peer === check.from
        ? { outcome: Outcome.Ok, detail: `echo reply from ${check.from}` }
        : {
            outcome: Outcome.WrongAnswer,
            detail: `echo reply from ${reply.peer ?? '(no address)'}, expected ${check.from}`,
          };
    case 'bytes': {
      const got = reply.bytes ?? 0;
      return got === check.expect
        ? { outcome: Outcome.Ok, detail: `received all ${got} bytes` }
        : {
            outcome: Outcome.Error,
            detail: `received ${got} of ${check.expect} bytes`,
          };
    }
    case 'body': {
      const body = (reply.body ?? '').trim();
      if (check.peer !== undefined && reply.peer !== check.peer) {
        return {
          outcome: Outcome.WrongAnswer,
          detail: `connected to ${reply.peer ?? '(the probe did not say)'}, expected ${check.peer}`,
        };
      }
      return body === check.expect
        ? { outcome: Outcome.Ok, detail: `${check.expect} answered` }
        : {
            outcome: Outcome.WrongAnswer,
            detail: `answered ${JSON.stringify(body.slice(0, 60))}, expected ${check.expect}`,
          };
    }
    case 'responds':
      return {
        outcome: Outcome.Ok,
        detail: `answered ${JSON.stringify((reply.body ?? '').slice(0, 60))}`,
      };
    case 'every-endpoint':
      return judgeEndpoints(reply, check);
    case 'same-endpoint':
      return judgeSticky(reply, check);
    case 'http-answer':
      return judgeHttpAnswer(reply, check);
    case 'health-check':
      return judgeHealth(reply, check);
    case 'measured':
      return { outcome: Outcome.Ok, detail: perfText(reply) };
  }
}

/** Any HTTP status is an answer (over TLS: the handshake completed), from the expected peer. */
function judgeHttpAnswer(
  reply: ProbeReply,
  check: Extract<Check, { kind: 'http-answer' }>,
): { outcome: Outcome; detail: string } {
  if (check.peer !== undefined && reply.peer !== check.peer) {
    return {
      outcome: Outcome.WrongAnswer,
      detail: `connected to ${reply.peer ?? '(the probe did not say)'}, expected ${check.peer}`,
    };
  }
  const body = (reply.body ?? '').trim().replace(/\s+/g, ' ').slice(0, 80);
  return { outcome: Outcome.Ok, detail: `HTTP ${reply.status ?? '?'} ${JSON.stringify(body)}` };
}

/** kube-proxy's health-check answer: the status, and the JSON naming the Service and its local endpoints. */
function judgeHealth(
  reply: ProbeReply,
  check: Extract<Check, { kind: 'health-check' }>,
): { outcome: Outcome; detail: string } {
  const body = (reply.body ?? '').trim();
  let said: { service?: { namespace?: unknown; name?: unknown }; localEndpoints?: unknown };
  try {
    said = JSON.parse(body) as typeof said;
  } catch {
    return {
      outcome: Outcome.WrongAnswer,
      detail: `HTTP ${reply.status ?? '?'} without JSON: ${JSON.stringify(body.slice(0, 60))}`,
    };
  }
  const service = `${String(said.service?.namespace)}/${String(said.service?.name)}`;
  const shown = `HTTP ${reply.status ?? '?'}, ${service}, localEndpoints ${String(said.localEndpoints)}`;
  const right =
    reply.status === check.status &&
    service === check.service &&
    said.localEndpoints === check.localEndpoints;
  return right
    ? { outcome: Outcome.Ok, detail: shown }
    : {
        outcome: Outcome.WrongAnswer,
        detail: `${shown}; expected HTTP ${check.status}, ${check.service}, localEndpoints ${check.localEndpoints}`,
      };
}

/** Each run of answers (check.runs: their lengths) reached one endpoint; a later run may reach another. */
function judgeSticky(
  reply: ProbeReply,
  check: Extract<Check, { kind: 'same-endpoint' }>,
): { outcome: Outcome; detail: string } {
  // No connection asked for would pass on nothing: a plan bug, never green.
  if (check.runs.length === 0 || check.runs.some((n) => n < 1)) {
    return {
      outcome: Outcome.Error,
      detail: `no connections in a run: [${check.runs.join(', ')}]`,
    };
  }
  const answers = reply.answers ?? [];
  const total = check.runs.reduce((sum, n) => sum + n, 0);
  if (answers.length !== total) {
    return {
      outcome: Outcome.Error,
      detail: `${answers.length} answers, expected ${check.runs.join(' + ')}`,
    };
  }
  const runs: string[] = [];
  let at = 0;
  for (const length of check.runs) {
    const run = answers.slice(at, at + length);
    at += length;
    const counts = new Map<string, number>();
    for (const a of run) counts.set(a.endpoint, (counts.get(a.endpoint) ?? 0) + 1);
    const seen = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
    // Every run has a connection (checked above): someone answered it.
    const endpoint = seen[0]![0];
    const which = runs.length === 0 ? '' : ' after the timeout';
    if (seen.length > 1) {
      const spread = seen.map(([name, n]) => `${name} (${n})`).join(', ');
      return {
        outcome: Outcome.WrongAnswer,
        detail: `not sticky${which}: ${length} new connections answered by ${spread}`,
      };
    }
    if (!check.expect.includes(endpoint)) {
      return {
        outcome: Outcome.WrongAnswer,
        detail: `answered by ${endpoint}${which}, not an endpoint of the Service (${check.expect.join(', ')})`,
      };
    }
    runs.push(endpoint);
  }
  const first = runs[0]!;
  const firstLength = check.runs[0]!;
  const before = `${firstLength} new connection${firstLength === 1 ? '' : 's'} ${firstLength === 1 ? 'answered' : 'all answered'} by ${first}`;
  const after = runs
    .slice(1)
    .map(
      (e, i) =>
        `; after the timeout ${check.runs[i + 1]!} all by ${e} (${e === first ? 'the same, as it may be' : 'another'})`,
    )
    .join('');
  return { outcome: Outcome.Ok, detail: `${before}${after}` };
}

/** A perf measure's figures in one line. */
export function perfText(reply: ProbeReply): string {
  const p = reply.perf;
  if (p === undefined) return 'measured nothing';
  const rate =
    p.mbps !== undefined
      ? `${p.mbps} Mbit/s`
      : `${p.ratePerS ?? 0}/s, p50 ${p.p50Ms ?? '?'} ms, p90 ${p.p90Ms ?? '?'} ms, p99 ${p.p99Ms ?? '?'} ms`;
  const lost = p.failed > 0 ? `, ${p.failed} of ${p.attempts} lost or failed` : '';
  const retrans =
    p.retransmitted !== undefined && p.retransmitted > 0
      ? `, ${p.retransmitted} of ${p.sent ?? '?'} segments retransmitted`
      : '';
  return `${p.measure} ${rate}${lost}${retrans}${p.backend ? ` (${p.backend} answered)` : ''}`;
}

/** Ok when nothing answered: the request was refused, or (unless `refusedOnly`) dropped. */
function judgeNotForwarded(
  reply: ProbeReply,
  refusedOnly: boolean,
): { outcome: Outcome; detail: string } {
  // Unreachable: the source's own node had no route for it (a node without a default route once
  // kube-proxy marked it for dropping): it left for nowhere, as a drop.
  const dropped = reply.result === 'timeout' || reply.result === 'unreachable';
  if (reply.result === 'refused' || (dropped && !refusedOnly)) {
    return { outcome: Outcome.Ok, detail: `not forwarded (${reply.result}), as documented` };
  }
  if (reply.result === 'ok' || reply.result === 'http-error') {
    const body = (reply.body ?? '').trim().slice(0, 60);
    return {
      outcome: Outcome.WrongAnswer,
      detail: `forwarded: ${body === '' ? 'an answer came back' : `answered by ${body}`}; nothing may answer here`,
    };
  }
  if (reply.result === 'timeout') {
    return {
      outcome: Outcome.Timeout,
      detail: `timeout: nothing refused the connection, so some rule still sends it on (to an endpoint that is gone?)${reply.error === undefined ? '' : `: ${reply.error}`}`,
    };
  }
  const why = reply.error === undefined ? '' : `: ${reply.error}`;
  return { outcome: FAILURES[reply.result], detail: `${reply.result}${why}` };
}

/** Which endpoints never answered a sweep, and which did in how many requests. */
function sweepText(reply: ProbeReply, expect: readonly string[]): string {
  const answers = reply.answers ?? [];
  const names = [...new Set(answers.map((a) => a.endpoint))].sort();
  const missing = expect.filter((name) => !names.includes(name));
  const never = missing.length === 0 ? '' : `never answered: ${missing.join(', ')}; `;
  return `${never}${answers.length} request${answers.length === 1 ? '' : 's'} answered by ${names.join(', ') || 'no endpoint'}`;
}

/** A sweep passes when every endpoint answered and each saw the expected client address. */
function judgeEndpoints(
  reply: ProbeReply,
  check: Extract<Check, { kind: 'every-endpoint' }>,
): { outcome: Outcome; detail: string } {
  const answers = reply.answers ?? [];
  const wrong = answers.filter((a) => check.source !== undefined && a.client !== check.source);
  if (wrong.length > 0) {
    const seen = [...new Set(wrong.map((a) => `${a.endpoint} saw ${a.client || '(nothing)'}`))];
    return {
      outcome: Outcome.WrongSourceIp,
      detail: `${seen.join(', ')}, expected ${check.source}`,
    };
  }
  const strangers = answers.filter(
    (a) => check.only === true && !check.expect.includes(a.endpoint),
  );
  if (strangers.length > 0) {
    const names = [...new Set(strangers.map((a) => a.endpoint))].sort();
    return {
      outcome: Outcome.WrongAnswer,
      detail: `answered by ${names.join(', ')} in ${strangers.length} of ${answers.length} requests; only ${check.expect.join(', ')} may answer`,
    };
  }
  const missing = check.expect.filter((name) => !answers.some((a) => a.endpoint === name));
  if (missing.length > 0) {
    return { outcome: Outcome.MissingEndpoint, detail: sweepText(reply, check.expect) };
  }
  const saw = check.source === undefined ? '' : `, each saw ${check.source}`;
  return {
    outcome: Outcome.Ok,
    detail: `every endpoint answered in ${answers.length} requests (${check.expect.join(', ')})${saw}`,
  };
}

/** Compares what happened with what the profile expects. */
export function verdictOf(expected: Outcome, actual: Outcome): Verdict {
  if (expected === Outcome.Ok) return actual === Outcome.Ok ? 'pass' : 'fail';
  if (actual === expected) return 'expected-failure';
  return actual === Outcome.Ok ? 'unexpected-pass' : 'fail';
}
