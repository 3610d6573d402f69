// @ts-check
/**
 * The `endpoints` probe, shared by probe.mjs in pods and the suite's drivers: new connections to a
 * Service until every expected backend answered, each asking /hostname then /clientip over the
 * same connection so both answers come from one backend (over UDP: `hostname` then `clientip`
 * datagrams from one socket). Built-ins only, like every workload file.
 */

import { Buffer } from 'node:buffer';
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { Agent, get as httpGet } from 'node:http';
import { isIP, isIPv6 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';

/** What each connection asks, in this order: which backend answered, then whom it saw. */
export const ENDPOINT_PATHS = /** @type {const} */ (['/hostname', '/clientip']);

/**
 * How long a sweep's connection may take to connect. Below the 1 s initial retransmission timeout
 * of a SYN (RFC 6298; Linux's TCP_TIMEOUT_INIT): a connect that needs a retransmitted SYN lost the
 * first one. To a Service that matters: the lost SYN's conntrack entry was never confirmed, so the
 * retransmission is load-balanced anew and may reach a live endpoint, hiding a dead one behind a
 * one-second delay. The sweep counts such a connect as a timeout instead.
 */
export const SWEEP_CONNECT_MS = 900;

/** Bodies are cut as probe.mjs cuts them, so one line stays readable in logs and JUnit. */
const MAX_BODY_CHARS = 4096;

/**
 * @typedef {object} EndpointAnswer
 * @property {string} endpoint the backend's /hostname body
 * @property {string} client the client IP its /clientip showed
 */

/**
 * How long one request took, as the asker measured it where the request ran: the whole of it,
 * and its TCP connect (from the SYN on).
 * @typedef {object} RequestTiming
 * @property {number} [ms]
 * @property {number} [connectMs]
 */

/**
 * The least a request's reply says; probe.mjs's Outcome and the suite's ProbeReply both fit.
 * @typedef {object} SweepReply
 * @property {string} result
 * @property {string} [error]
 * @property {EndpointAnswer[]} [answers]
 * @property {number} [ms] how long the request took, where the asker measured it itself
 * @property {number} [connectMs]
 */

/** @typedef {{ result: 'ok', answers: EndpointAnswer[], ms?: number, connectMs?: number }} AnsweredReply */
/** @typedef {{ result: 'ok', answers: EndpointAnswer[], requests: RequestTiming[] }} SweptReply */
/** @typedef {{ result: 'http-error', status: number, body: string, error: string }} HttpErrorReply */
/** @typedef {{ result: 'error', error: string }} ErrorReply */

/**
 * Makes up to `maxRequests` requests through `ask` (`request` counts from 1), stopping once every
 * name in `expect` answered (but not before `minRequests`: an endpoint that should be gone is
 * reached only when a request lands on it) or at the first request whose result is not ok. Each
 * answered request's timing is kept as the asker measured it where the request ran (`ms`,
 * `connectMs`); the time `ask` took is not one (an exec into a pod adds its round trip).
 * Throws RangeError, asking nothing, when `expect` is empty: such a sweep would pass unasked.
 * @template {SweepReply} R
 * @param {{ expect: readonly string[], maxRequests: number, minRequests?: number, service?: string, base?: string }} sweep
 * @param {(request: number, answered: readonly EndpointAnswer[]) => Promise<R>} ask
 * @returns {Promise<R | SweptReply>}
 */
export async function sweepEndpoints({ expect, maxRequests, minRequests = 0, service, base }, ask) {
  if (expect.length === 0) {
    const of = service ?? base ?? 'a Service';
    throw new RangeError(`no endpoint to expect of ${of}: a sweep of none would pass unasked`);
  }
  /** @type {EndpointAnswer[]} */
  const answers = [];
  /** @type {RequestTiming[]} */
  const requests = [];
  const unseen = new Set(expect);
  for (
    let request = 1;
    request <= maxRequests && (unseen.size > 0 || request <= minRequests);
    request++
  ) {
    const reply = await ask(request, answers);
    if (reply.result !== 'ok') return failedRequest(request, maxRequests, reply, answers);
    requests.push({
      ...(reply.ms === undefined ? {} : { ms: reply.ms }),
      ...(reply.connectMs === undefined ? {} : { connectMs: reply.connectMs }),
    });
    for (const answer of reply.answers ?? []) {
      answers.push(answer);
      unseen.delete(answer.endpoint);
    }
  }
  return { result: 'ok', answers, requests };
}

/**
 * A sweep's reply when request `request` of `maxRequests` failed: its result, and what answered before.
 * @template {SweepReply} R
 * @param {number} request
 * @param {number} maxRequests
 * @param {R} failure
 * @param {readonly EndpointAnswer[]} answered
 * @returns {R}
 */
export function failedRequest(request, maxRequests, failure, answered) {
  const why = failure.error ?? failure.result;
  return {
    ...failure,
    error: `request ${request} of ${maxRequests}: ${why}`,
    answers: [...answered],
  };
}

/**
 * Milliseconds to a tenth: what a timing keeps (sub-millisecond paths are common on one host).
 * @param {number} ms
 * @returns {number}
 */
export function tenths(ms) {
  return Math.round(ms * 10) / 10;
}

/**
 * The IP of `IP:PORT` or `[IPv6]:PORT` as /clientip shows it (Go's JoinHostPort); a bare address as
 * it is. An IPv4-mapped IPv6 address becomes the IPv4 address it is.
 * @param {string} text
 * @returns {string}
 */
export function clientAddress(text) {
  const shown = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(shown)?.[1];
  const address = bracketed ?? (isIPv6(shown) ? shown : shown.replace(/:\d+$/, ''));
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/**
 * One request of a sweep: a fresh TCP connection to `base` (so kube-proxy picks an endpoint anew)
 * that GETs each of ENDPOINT_PATHS over it. A non-2xx answer is an http-error naming the path.
 * @template {SweepReply} R
 * @param {string} base `http://HOST:PORT`
 * @param {(err: unknown) => R} classify maps a socket or resolver error onto a reply
 * @param {AbortSignal} [signal] destroys the connection when aborted
 * @returns {Promise<R | AnsweredReply | HttpErrorReply | ErrorReply>}
 */
export async function askOneConnection(base, classify, signal) {
  const [hostnamePath, clientipPath] = ENDPOINT_PATHS;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const started = performance.now();
  try {
    const hostname = await getOver(agent, new URL(hostnamePath, base), signal);
    if (!succeeded(hostname)) return httpError(hostnamePath, hostname);
    const clientip = await getOver(agent, new URL(clientipPath, base), signal);
    if (!succeeded(clientip)) return httpError(clientipPath, clientip);
    if (clientip.socket !== hostname.socket) {
      const error = `the server closed the connection after ${hostnamePath}; ${clientipPath} went over a new one`;
      return { result: 'error', error };
    }
    const answer = { endpoint: hostname.body, client: clientAddress(clientip.body) };
    const ms = tenths(performance.now() - started);
    // A fresh agent's first request always connects, so getOver always timed the connect.
    return { result: 'ok', answers: [answer], ms, connectMs: hostname.connectMs };
  } catch (err) {
    return classify(err);
  } finally {
    agent.destroy();
  }
}

/**
 * One request of a UDP sweep: a fresh socket (a new source port, so kube-proxy picks an endpoint
 * anew) connected to `base`, sending the datagram `hostname` then `clientip` and reading one reply
 * to each. Both go out from one port to one address: one conntrack entry, one backend. Connected,
 * so an ICMP port-unreachable (kube-proxy's reject of a Service without endpoints) reads as refused;
 * a lost datagram is never sent again, and the caller's deadline turns the silence into a timeout.
 * @template {SweepReply} R
 * @param {string} base `udp://HOST:PORT`; a name is looked up once, through the system resolver
 * @param {(err: unknown) => R} classify maps a socket or resolver error onto a reply
 * @param {AbortSignal} [signal] closes the socket when aborted
 * @returns {Promise<R | AnsweredReply>}
 */
export async function askOneSocket(base, classify, signal) {
  const url = new URL(base);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = createSocket({
    type: isIPv6(host) ? 'udp6' : 'udp4',
    ...(signal ? { signal } : {}),
  });
  const started = performance.now();
  try {
    const address = isIP(host) === 0 ? (await lookup(host)).address : host;
    await new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(Number(url.port), address, () => {
        resolve(undefined);
      });
    });
    const endpoint = await exchange(socket, 'hostname');
    const client = await exchange(socket, 'clientip');
    const ms = tenths(performance.now() - started);
    return { result: 'ok', answers: [{ endpoint, client: clientAddress(client) }], ms };
  } catch (err) {
    return classify(err);
  } finally {
    socket.removeAllListeners();
    socket.on('error', () => {});
    if (!signal?.aborted) socket.close();
  }
}

/**
 * Sends `message` over the connected `socket` and resolves with the next datagram, trimmed.
 * Rejects on a socket error (ECONNREFUSED: an ICMP port-unreachable came back) and when the
 * socket closes first (the caller's deadline aborted it).
 * @param {import('node:dgram').Socket} socket
 * @param {string} message
 * @returns {Promise<string>}
 */
function exchange(socket, message) {
  return new Promise((resolve, reject) => {
    const done = () => {
      socket.off('message', onMessage);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const onMessage = (/** @type {Buffer} */ reply) => {
      done();
      resolve(reply.toString('utf8').trim().slice(0, MAX_BODY_CHARS));
    };
    const onError = (/** @type {Error} */ err) => {
      done();
      reject(err);
    };
    const onClose = () => {
      done();
      reject(Object.assign(new Error(`no answer to ${message}`), { code: 'ETIMEDOUT' }));
    };
    socket.on('message', onMessage);
    socket.on('error', onError);
    socket.on('close', onClose);
    // No callback: a send error then comes as the socket's 'error', to onError.
    socket.send(message);
  });
}

/**
 * @param {Answer} answer
 * @returns {boolean}
 */
function succeeded({ status }) {
  return status >= 200 && status < 300;
}

/**
 * @param {string} path
 * @param {Answer} answer
 * @returns {HttpErrorReply}
 */
function httpError(path, { status, body }) {
  return { result: 'http-error', status, body, error: `GET ${path}: HTTP ${status}` };
}

/**
 * @typedef {object} Answer
 * @property {number} status
 * @property {string} body trimmed, first 4 KiB
 * @property {import('node:net').Socket} socket the connection it came over
 * @property {number} [connectMs] how long the connection took to connect (from the SYN on), when
 *   this request made it
 */

/**
 * GETs `url` through `agent`; rejects on socket, resolver and truncated-body errors, and with
 * ETIMEDOUT when a new connection takes longer than SWEEP_CONNECT_MS to connect (a request over
 * the agent's kept-alive connection makes none: its timer is cleared when the agent closes it).
 * @param {Agent} agent
 * @param {URL} url
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<Answer>}
 */
function getOver(agent, url, signal) {
  return new Promise((resolve, reject) => {
    /** @type {number | undefined} */
    let connectTook;
    const request = httpGet(url, { agent, ...(signal ? { signal } : {}) }, (res) => {
      const socket = res.socket; // null once the response ended
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8').trim().slice(0, MAX_BODY_CHARS);
        const timed = connectTook === undefined ? {} : { connectMs: connectTook };
        resolve({ status: res.statusCode ?? 0, body, socket, ...timed });
      });
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new Error(`GET ${url.pathname}: body ended early`));
      });
    });
    request.on('error', reject);
    request.on('socket', (socket) => {
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      let synAt = 0;
      // From the SYN on: a name is looked up first (bounded by the request's own deadline).
      const start = () => {
        synAt = performance.now();
        timer = setTimeout(() => {
          // Timers run before pending I/O in the event loop: let a connect that completed while
          // the process was starved of CPU be seen before judging it late.
          setImmediate(() => {
            if (!socket.connecting) return;
            const error = new Error(
              `no connection within ${SWEEP_CONNECT_MS} ms (a SYN was lost: a retransmission would be load-balanced anew)`,
            );
            request.destroy(Object.assign(error, { code: 'ETIMEDOUT' }));
          });
        }, SWEEP_CONNECT_MS);
      };
      if (isIP(url.hostname) === 0) socket.once('lookup', start);
      else start();
      socket.once('connect', () => {
        clearTimeout(timer);
        connectTook = tenths(performance.now() - synAt);
      });
      socket.once('close', () => {
        clearTimeout(timer);
      });
    });
  });
}
