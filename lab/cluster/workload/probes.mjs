// @ts-check
/**
 * The probes themselves, shared by probe.mjs (one probe per process, in a pod or on a VM),
 * prober.mjs (a long-lived process per pod answering probes over a unix socket) and the suite's
 * probes from the harness host. Built-ins only, like every workload file.
 *
 * A probe's arguments are probe.mjs's command line (see there); runProbe() returns the one JSON
 * line it reports, with `ms`, and the exit status probe.mjs gives it.
 */

import { Buffer } from 'node:buffer';
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { execFile } from 'node:child_process';
import { connect, isIPv6 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { clearTimeout, setTimeout } from 'node:timers';
import { URL } from 'node:url';
import { UsageError, describeError, parseCommandLine, parseIntInRange } from './args.mjs';
import {
  askOneConnection,
  askOneSocket,
  failedRequest,
  sweepEndpoints,
  tenths,
} from './endpoint-sweep.mjs';
import { TCP_QUERY_ID, answerOutcome, firstNameserver, isDnsName, tcpQuery } from './dns-wire.mjs';
import { parsePing } from './ping-output.mjs';
import { PERF_MEASURES, runMeasure } from './perf-measures.mjs';

/** The result strings a probe prints; the suite's expected outcomes map onto these. */
export const Result = /** @type {const} */ ({
  /** The target answered as asked. */
  Ok: 'ok',
  /** Nothing came back within --timeout-ms (dropped traffic, blackholed route). */
  Timeout: 'timeout',
  /** The target actively refused: TCP RST or an ICMP port-unreachable. */
  Refused: 'refused',
  /** An ICMP host or network unreachable came back. */
  Unreachable: 'unreachable',
  /** The resolver says the name does not exist. */
  NxDomain: 'nxdomain',
  /** An HTTP answer arrived with a non-2xx status. */
  HttpError: 'http-error',
  /** Anything else, including usage errors; see the `error` field. */
  Error: 'error',
});

/** @typedef {(typeof Result)[keyof typeof Result]} ResultName */

/**
 * @typedef {object} Outcome
 * @property {ResultName} result
 * @property {number} [status] HTTP status
 * @property {string} [body] reply body, trimmed, first 4 KiB
 * @property {number} [bytes] HTTP body bytes received in total (MTU checks fetch large bodies)
 * @property {string[]} [addresses] resolved IPv4 addresses
 * @property {string} [peer] the address that answered (http: connected to; udp: replied from)
 * @property {import('./endpoint-sweep.mjs').EndpointAnswer[]} [answers] endpoints: one per connection
 * @property {import('./endpoint-sweep.mjs').RequestTiming[]} [requests] endpoints: each answered
 *   request's timing
 * @property {number} [connectMs] http, tcp: how long the TCP connect took, from the SYN on
 * @property {import('./perf-measures.mjs').PerfFigures} [perf] perf: what the measure found
 * @property {string} [error] why the result is not ok
 */

/**
 * Measures a socket's connect from its SYN (after any name lookup) to the handshake's end.
 * @param {import('node:net').Socket} socket
 * @returns {() => number | undefined} the connect's milliseconds, once connected
 */
function connectTimer(socket) {
  let synAt = performance.now();
  /** @type {number | undefined} */
  let took;
  socket.once('lookup', () => {
    synAt = performance.now();
  });
  socket.once('connect', () => {
    took = tenths(performance.now() - synAt);
  });
  return () => took;
}

/** Bodies are cut so one line stays readable in logs and JUnit. */
const MAX_BODY_BYTES = 4096;
const DEFAULT_TIMEOUT_MS = 3000;
export const USAGE =
  'usage: probe.mjs http URL (http:// or https://) | tcp HOST PORT | udp HOST PORT MESSAGE | dns NAME | dns-tcp NAME | icmp HOST\n' +
  '       | endpoints http://HOST:PORT|udp://HOST:PORT --expect NAME[,NAME…] --max-requests N [--min-requests N] [--timeout-ms N]\n' +
  `       | perf ${PERF_MEASURES.join('|')} http://HOST:PORT|udp://HOST:PORT --duration-ms N [--rate-mbps N] [--timeout-ms N]`;
/** Flags only the endpoints probe takes. */
const SWEEP_FLAGS = ['expect', 'max-requests', 'min-requests'];
/** Flags only the perf probe takes. */
const PERF_FLAGS = ['duration-ms', 'rate-mbps'];

/**
 * Maps a socket or resolver error onto a result; the `error` field keeps the detail.
 * @param {unknown} err
 * @returns {Outcome}
 */
export function fromError(err) {
  const error = describeError(err);
  switch (errorCode(err)) {
    case 'ECONNREFUSED':
      return { result: Result.Refused, error };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return { result: Result.Unreachable, error };
    case 'ETIMEDOUT':
      return { result: Result.Timeout, error };
    case 'ENOTFOUND':
      return { result: Result.NxDomain, error };
    default:
      return { result: Result.Error, error };
  }
}

/**
 * The errno-style code, looking inside the AggregateError that happy-eyeballs connects throw.
 * @param {unknown} err
 * @returns {string | undefined}
 */
function errorCode(err) {
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/**
 * @param {Buffer} bytes
 * @returns {string}
 */
function keepBody(bytes) {
  return bytes.subarray(0, MAX_BODY_BYTES).toString('utf8').trim();
}

/**
 * Reads the whole body (so a large response exercises the path MTU) but keeps only 4 KiB. Over
 * https the server's certificate is not checked: the probe asks whether the path carries TLS and
 * an answer, not whom to trust.
 * @param {URL} url
 * @param {AbortSignal} signal destroys the request when aborted
 * @returns {Promise<Outcome>}
 */
function probeHttp(url, signal) {
  return new Promise((resolve) => {
    const get = url.protocol === 'https:' ? httpsGet : httpGet;
    const tls = url.protocol === 'https:' ? { rejectUnauthorized: false } : {};
    /** @type {() => number | undefined} */
    let connected = () => undefined;
    const request = get(url, { agent: false, signal, ...tls }, (res) => {
      // Where the connection went (a name must have led to the pod it names); read while it is open.
      const peer = res.socket.remoteAddress;
      /** @type {Buffer[]} */
      const kept = [];
      let keptBytes = 0;
      let bytes = 0;
      res.on('data', (/** @type {Buffer} */ chunk) => {
        bytes += chunk.length;
        if (keptBytes < MAX_BODY_BYTES) {
          kept.push(chunk.subarray(0, MAX_BODY_BYTES - keptBytes));
          keptBytes += Math.min(chunk.length, MAX_BODY_BYTES - keptBytes);
        }
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const result = status >= 200 && status < 300 ? Result.Ok : Result.HttpError;
        const connectMs = connected();
        resolve({
          result,
          status,
          body: keepBody(Buffer.concat(kept)),
          bytes,
          ...(peer ? { peer } : {}),
          ...(connectMs === undefined ? {} : { connectMs }),
        });
      });
      res.on('error', (err) => {
        resolve(fromError(err));
      });
      res.on('close', () => {
        if (!res.complete)
          resolve({ result: Result.Error, error: `body ended after ${bytes} bytes` });
      });
    });
    request.on('socket', (socket) => {
      connected = connectTimer(socket);
    });
    request.on('error', (err) => {
      resolve(fromError(err));
    });
  });
}

/**
 * @param {string} host
 * @param {number} port
 * @param {AbortSignal} signal destroys the socket when aborted
 * @returns {Promise<Outcome>}
 */
function probeTcp(host, port, signal) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, signal });
    const connected = connectTimer(socket);
    socket.once('connect', () => {
      socket.destroy();
      const connectMs = connected();
      resolve({ result: Result.Ok, ...(connectMs === undefined ? {} : { connectMs }) });
    });
    socket.once('error', (err) => {
      resolve(fromError(err));
    });
  });
}

/**
 * Unconnected socket on purpose: ICMP errors are ignored, so a silent target reads as timeout.
 * @param {string} host
 * @param {number} port
 * @param {string} message
 * @param {AbortSignal} signal closes the socket when aborted
 * @returns {Promise<Outcome>}
 */
function probeUdp(host, port, message, signal) {
  return new Promise((resolve) => {
    const socket = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', signal });
    socket.on('message', (reply, from) => {
      // Who answered: a name must have led to the pod it names (as `peer` of an HTTP probe).
      resolve({ result: Result.Ok, body: keepBody(reply), peer: from.address });
    });
    socket.on('error', (err) => {
      resolve(fromError(err));
    });
    socket.send(message, port, host, (err) => {
      if (err) resolve(fromError(err));
    });
  });
}

/**
 * One ICMP echo with the system's ping (iputils; Node has no raw sockets), waiting at most
 * `timeoutMs` for the reply; the reply's source is the peer.
 * @param {string} host
 * @param {number} timeoutMs
 * @param {AbortSignal} signal kills the ping when aborted
 * @returns {Promise<Outcome>}
 */
function probeIcmp(host, timeoutMs, signal) {
  const wait = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  return new Promise((resolve) => {
    execFile(
      'ping',
      ['-n', '-c', '1', '-W', wait, '-w', wait, host],
      { signal },
      (err, stdout, stderr) => {
        const code = /** @type {{ code?: unknown } | null} */ (err)?.code;
        // Exit 1: no reply (a result, read from the output); anything else but 0 is a failure.
        if (err !== null && code !== 1) {
          resolve({ result: Result.Error, error: `ping: ${stderr.trim() || describeError(err)}` });
          return;
        }
        resolve(parsePing(`${stdout}\n${stderr}`));
      },
    );
  });
}

/**
 * Uses the system resolver so resolv.conf's search list and ndots apply as they would for a pod.
 * getaddrinfo() cannot be cancelled: a lookup that outlives its probe holds a libuv worker
 * thread until the resolver gives up (prober.mjs runs with a large thread pool for that).
 * @param {string} name
 * @returns {Promise<Outcome>}
 */
async function probeDns(name) {
  try {
    const found = await lookup(name, { all: true, family: 4 });
    return { result: Result.Ok, addresses: found.map((a) => a.address) };
  } catch (err) {
    return fromError(err);
  }
}

/**
 * Asks the first nameserver of the pod's resolv.conf for NAME's A records over TCP: one query,
 * no search list (a resolver asks over TCP when told to, or when a UDP answer came back cut).
 * @param {string} name
 * @param {AbortSignal} signal destroys the connection when aborted
 * @returns {Promise<Outcome>}
 */
function probeDnsTcp(name, signal) {
  let server;
  try {
    server = firstNameserver(readFileSync('/etc/resolv.conf', 'utf8'));
  } catch (err) {
    return Promise.resolve({ result: Result.Error, error: describeError(err) });
  }
  if (server === undefined) {
    return Promise.resolve({ result: Result.Error, error: 'no nameserver in /etc/resolv.conf' });
  }
  const query = tcpQuery(name, TCP_QUERY_ID);
  const peer = server;
  return new Promise((resolve) => {
    const socket = connect({ host: peer, port: 53, signal });
    let pending = Buffer.alloc(0);
    /** @param {Outcome} outcome */
    const settle = (outcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.on('connect', () => socket.write(query));
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < 2 || pending.length < 2 + pending.readUInt16BE(0)) return;
      const message = pending.subarray(2, 2 + pending.readUInt16BE(0));
      settle({ ...answerOutcome(message, TCP_QUERY_ID), peer });
    });
    socket.on('end', () => {
      settle({ result: Result.Error, error: `${peer}:53 closed the connection without an answer` });
    });
    socket.on('error', (err) => {
      settle(fromError(err));
    });
  });
}

/**
 * One perf measure; a measure that got no answer at all is the failure that stopped it.
 * @param {import('./perf-measures.mjs').PerfMeasure} measure
 * @param {string} base
 * @param {number} durationMs
 * @param {number} rateMbps
 * @returns {Promise<Outcome>}
 */
async function probePerf(measure, base, durationMs, rateMbps) {
  try {
    const perf = await runMeasure(measure, base, { durationMs, rateMbps });
    const answered = (perf.transactions ?? 0) > 0 || (perf.mbps ?? 0) > 0;
    if (answered) return { result: Result.Ok, perf };
    return {
      result: Result.Timeout,
      perf,
      error: `${measure}: nothing answered in ${durationMs} ms`,
    };
  } catch (err) {
    return fromError(err);
  }
}

/**
 * The endpoints probe's BASE and flags, checked.
 * @param {string} base
 * @param {Map<string, string>} flags
 * @returns {{ base: string, expect: string[], maxRequests: number, minRequests?: number }}
 */
function parseSweep(base, flags) {
  if (!/^(http|udp):\/\/[^/?#]+\/?$/.test(base) || !URL.canParse(base)) {
    throw new UsageError(`not http://HOST:PORT or udp://HOST:PORT (no path): ${base}`);
  }
  if (base.startsWith('udp:') && new URL(base).port === '') {
    throw new UsageError(`udp://HOST:PORT needs its PORT: ${base}`);
  }
  const expect = (flags.get('expect') ?? '').split(',').filter((name) => name !== '');
  if (expect.length === 0) throw new UsageError('endpoints needs --expect NAME[,NAME…]');
  const maxRequests = flags.get('max-requests');
  if (maxRequests === undefined) throw new UsageError('endpoints needs --max-requests N');
  const minRequests = flags.get('min-requests');
  return {
    base,
    expect,
    maxRequests: parseIntInRange(maxRequests, '--max-requests', 1, 10_000),
    ...(minRequests === undefined
      ? {}
      : { minRequests: parseIntInRange(minRequests, '--min-requests', 1, 10_000) }),
  };
}

/**
 * Sweeps the Service at `sweep.base`; each connection re-arms the deadline, so a request that
 * runs out of time prints what answered before it.
 * @param {{ base: string, expect: string[], maxRequests: number, minRequests?: number }} sweep
 * @param {ArmDeadline} arm
 * @param {AbortSignal} signal destroys the open connection when aborted
 * @returns {Promise<Outcome>}
 */
function probeEndpoints(sweep, arm, signal) {
  return sweepEndpoints(sweep, (request, answered) => {
    arm((timedOut) => failedRequest(request, sweep.maxRequests, timedOut, answered));
    return sweep.base.startsWith('udp:')
      ? askOneSocket(sweep.base, fromError, signal)
      : askOneConnection(sweep.base, fromError, signal);
  });
}

/**
 * (Re)starts the probe's deadline; when it passes, `expired` turns the plain timeout into the
 * line printed.
 * @typedef {(expired: (timedOut: Outcome) => Outcome) => void} ArmDeadline
 */

/**
 * Checks the arguments and returns the probe to run; throws UsageError before any traffic.
 * @param {string | undefined} kind
 * @param {string[]} args
 * @param {Map<string, string>} flags
 * @param {number} timeoutMs the probe's deadline (--timeout-ms)
 * @returns {(arm: ArmDeadline, signal: AbortSignal) => Promise<Outcome>}
 */
function selectProbe(kind, args, flags, timeoutMs) {
  const stray = SWEEP_FLAGS.find((flag) => flags.has(flag));
  if (kind !== 'endpoints' && stray !== undefined) {
    throw new UsageError(`--${stray} is for endpoints only`);
  }
  const strayPerf = PERF_FLAGS.find((flag) => flags.has(flag));
  if (kind !== 'perf' && strayPerf !== undefined) {
    throw new UsageError(`--${strayPerf} is for perf only`);
  }
  const expect = (/** @type {number} */ count, /** @type {string} */ shape) => {
    if (args.length !== count) throw new UsageError(`${kind} takes ${shape}`);
  };
  const port = (/** @type {string} */ text) => parseIntInRange(text, 'PORT', 1, 65535);
  // Each kind checks how many arguments it has (expect) before it reads one.
  const [a, b, c] = /** @type {[string, string, string]} */ (args);
  switch (kind) {
    case 'http': {
      expect(1, 'URL');
      if (!/^https?:\/\//.test(a) || !URL.canParse(a))
        throw new UsageError(`not an http(s) URL: ${a}`);
      return (_arm, signal) => probeHttp(new URL(a), signal);
    }
    case 'tcp': {
      expect(2, 'HOST PORT');
      const p = port(b);
      return (_arm, signal) => probeTcp(a, p, signal);
    }
    case 'udp': {
      expect(3, 'HOST PORT MESSAGE');
      const p = port(b);
      return (_arm, signal) => probeUdp(a, p, c, signal);
    }
    case 'dns':
      expect(1, 'NAME');
      return () => probeDns(a);
    case 'icmp':
      expect(1, 'HOST');
      return (_arm, signal) => probeIcmp(a, timeoutMs, signal);
    case 'dns-tcp':
      expect(1, 'NAME');
      if (!isDnsName(a)) throw new UsageError(`not a DNS name: ${a}`);
      return (_arm, signal) => probeDnsTcp(a, signal);
    case 'endpoints': {
      expect(1, 'http://HOST:PORT or udp://HOST:PORT');
      const sweep = parseSweep(a, flags);
      return (arm, signal) => probeEndpoints(sweep, arm, signal);
    }
    case 'perf': {
      expect(2, 'MEASURE http://HOST:PORT (udp://HOST:PORT for udp-stream)');
      const measure = /** @type {import('./perf-measures.mjs').PerfMeasure} */ (a);
      if (!PERF_MEASURES.includes(measure)) throw new UsageError(`unknown perf measure '${a}'`);
      const scheme = measure === 'udp-stream' ? 'udp' : 'http';
      const base = b;
      if (!new RegExp(`^${scheme}://[^/?#]+:\\d+/?$`).test(base) || !URL.canParse(base))
        throw new UsageError(`${measure} measures ${scheme}://HOST:PORT, got ${base}`);
      const durationMs = parseIntInRange(
        flags.get('duration-ms') ?? '',
        '--duration-ms',
        1,
        10_000,
      );
      const rateMbps = parseIntInRange(flags.get('rate-mbps') ?? '10', '--rate-mbps', 1, 10_000);
      return () => probePerf(measure, base, durationMs, rateMbps);
    }
    default:
      throw new UsageError(kind === undefined ? 'missing probe kind' : `unknown probe '${kind}'`);
  }
}

/**
 * What runProbe() reports.
 * @typedef {object} ProbeRun
 * @property {Record<string, unknown>} line the JSON line: `kind`, the Outcome's fields and `ms`
 * @property {0 | 1 | 2} code 0 for "ok", 1 for any other result, 2 for a usage error
 * @property {boolean} lingering a name lookup may still hold a resolver thread (a probe that ran
 *   out of time, or a sweep that failed on its connect deadline)
 * @property {string} [usage] the usage error's message
 */

/**
 * Runs one probe given as probe.mjs's arguments. Its deadline covers the whole probe (lookup,
 * connect, body), or each connection of a sweep; when it passes, or once the outcome is known,
 * every socket the probe opened is destroyed.
 * @param {readonly string[]} argv
 * @returns {Promise<ProbeRun>}
 */
export async function runProbe(argv) {
  const started = performance.now();
  /** @type {string | undefined} */
  let kind;
  /** @type {(arm: ArmDeadline, signal: AbortSignal) => Promise<Outcome>} */
  let run;
  /** @type {number} */
  let timeoutMs;
  try {
    const known = ['timeout-ms', ...SWEEP_FLAGS, ...PERF_FLAGS];
    const { positionals, flags } = parseCommandLine(argv, known);
    kind = positionals[0];
    const timeoutFlag = flags.get('timeout-ms') ?? String(DEFAULT_TIMEOUT_MS);
    timeoutMs = parseIntInRange(timeoutFlag, '--timeout-ms', 1, 600_000);
    run = selectProbe(kind, positionals.slice(1), flags, timeoutMs);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const line = { kind: kind ?? null, result: Result.Error, error: err.message };
    return { line, code: 2, lingering: false, usage: err.message };
  }
  const probeKind = kind;
  const abort = new AbortController();
  return new Promise((resolve) => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let deadline;
    /**
     * The first report settles the promise; a later one (the deadline racing the probe) changes nothing.
     * @param {Outcome} outcome
     * @param {boolean} lingering
     */
    const report = (outcome, lingering) => {
      clearTimeout(deadline);
      abort.abort();
      const ms = tenths(performance.now() - started);
      const code = outcome.result === Result.Ok ? 0 : 1;
      resolve({ line: { kind: probeKind, ...outcome, ms }, code, lingering });
    };
    /** @type {ArmDeadline} */
    const arm = (expired) => {
      clearTimeout(deadline);
      deadline = setTimeout(() => {
        report(
          expired({ result: Result.Timeout, error: `no answer within ${timeoutMs} ms` }),
          true,
        );
      }, timeoutMs);
    };
    arm((timedOut) => timedOut);
    run(arm, abort.signal).then(
      // A sweep that failed on its connect deadline may leave a lookup behind, as a timeout does.
      (outcome) => {
        report(outcome, probeKind === 'endpoints' && outcome.result !== Result.Ok);
      },
      (/** @type {unknown} */ err) => {
        report({ result: Result.Error, error: describeError(err) }, false);
      },
    );
  });
}
