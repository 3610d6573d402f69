// @ts-check
/**
 * The perf mode's measures, run from a pod (or a node, or outside) against netexec and its
 * perf-server.mjs endpoints, each for a fixed duration, as netperf and iperf name them:
 * `tcp-rr` requests on one kept connection (request/response rate, latency percentiles),
 * `tcp-crr` a new connection per request (connect + request rate), `tcp-stream` the client
 * sending as fast as the path takes it, `tcp-stream-reverse` the server sending, `udp-stream`
 * datagrams at a fixed rate, counted by the server (loss). TCP measures also count the
 * retransmissions the client's network namespace made meanwhile (/proc/net/snmp). Built-ins only.
 */

import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { Agent, get as httpGet, request as httpRequest } from 'node:http';
import { isIP, isIPv6 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { tenths } from './endpoint-sweep.mjs';
import { tcpCounters } from './perf-server.mjs';

export const PERF_MEASURES = /** @type {const} */ ([
  'tcp-rr',
  'tcp-crr',
  'tcp-stream',
  'tcp-stream-reverse',
  'udp-stream',
]);
/** @typedef {(typeof PERF_MEASURES)[number]} PerfMeasure */

/** A request that takes longer counts as failed: it waited for more than one lost SYN's retransmission (1 s). */
export const REQUEST_LIMIT_MS = 1500;
/** How long a stream may take to drain after its duration before it counts as failed. */
const STREAM_DRAIN_MS = 1000;
/**
 * A request this slow waited for a retransmission: Linux's smallest retransmission timeout is
 * 200 ms (TCP_RTO_MIN), a lost SYN's 1 s.
 */
export const RETRANSMISSION_WAIT_MS = 200;
export const UDP_DATAGRAM_BYTES = 1200;
const UDP_TICK_MS = 5;

/**
 * What a measure found.
 * @typedef {object} PerfFigures
 * @property {PerfMeasure} measure
 * @property {number} durationMs how long it ran
 * @property {number} [transactions] rr, crr: requests answered
 * @property {number} [ratePerS] rr, crr: requests answered per second
 * @property {number} [p50Ms] rr, crr: request latency percentiles
 * @property {number} [p90Ms]
 * @property {number} [p99Ms]
 * @property {number} [waited] rr, crr: answered requests that took a retransmission's wait or more
 * @property {number} [mbps] streams: megabits per second that arrived
 * @property {number} failed requests that failed, or datagrams lost
 * @property {number} attempts requests made, or datagrams sent
 * @property {number} [retransmitted] TCP segments the client retransmitted meanwhile
 * @property {number} [sent] TCP segments the client sent meanwhile
 * @property {number} [serverRetransmitted] TCP segments the server's namespace retransmitted
 *   meanwhile (its /netstat, asked before and after; where the same server answered both)
 * @property {number} [serverSent] TCP segments it sent meanwhile
 * @property {string} [backend] who answered (a Service's backend)
 * @property {string} [error] why it measured nothing
 */

/**
 * JSON from a server of ours, as unknown until its caller says what it is.
 * @param {string} text
 * @returns {unknown}
 */
function parseJson(text) {
  return JSON.parse(text);
}

/**
 * The nearest-rank percentile of sorted values.
 * @param {number[]} sorted
 * @param {number} q
 */
function pct(sorted, q) {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/**
 * One GET through `agent` (false: a new connection), resolving with its status, body and time.
 * @param {URL} url
 * @param {Agent | false} agent
 * @returns {Promise<{ status: number, body: string, ms: number }>}
 */
function get(url, agent) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = httpGet(
      url,
      { agent, signal: AbortSignal.timeout(REQUEST_LIMIT_MS) },
      (res) => {
        /** @type {Buffer[]} */
        const chunks = [];
        res.on('data', (/** @type {Buffer} */ c) => {
          chunks.push(c);
        });
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body, ms: tenths(performance.now() - started) });
        });
        res.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

/**
 * Requests for `durationMs`: on one kept connection (rr) or a new one each (crr).
 * @param {'tcp-rr' | 'tcp-crr'} measure
 * @param {string} base
 * @param {number} durationMs
 * @returns {Promise<Omit<PerfFigures, 'measure' | 'durationMs'>>}
 */
async function requestResponse(measure, base, durationMs) {
  const agent = measure === 'tcp-rr' ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
  /** @type {number[]} */
  const times = [];
  let failed = 0;
  let backend;
  const until = performance.now() + durationMs;
  try {
    // The first answer names the backend; on one kept connection, every later one is the same.
    const first = await get(new URL('/hostname', base), agent).catch(() => undefined);
    backend = first?.status === 200 ? first.body.trim() : undefined;
    const path = measure === 'tcp-rr' ? '/echo?msg=x' : '/hostname';
    while (performance.now() < until) {
      const answer = await get(new URL(path, base), agent).catch(() => undefined);
      if (answer?.status === 200) times.push(answer.ms);
      else failed++;
    }
  } finally {
    if (agent !== false) agent.destroy();
  }
  const sorted = times.sort((a, b) => a - b);
  return {
    transactions: sorted.length,
    ratePerS: Math.round((sorted.length * 1000) / durationMs),
    p50Ms: pct(sorted, 0.5),
    p90Ms: pct(sorted, 0.9),
    p99Ms: pct(sorted, 0.99),
    waited: sorted.filter((ms) => ms >= RETRANSMISSION_WAIT_MS).length,
    failed,
    attempts: sorted.length + failed,
    ...(backend === undefined ? {} : { backend }),
  };
}

/**
 * The client sends for `durationMs` (POST /sink), or the server does (GET /stream).
 * @param {'tcp-stream' | 'tcp-stream-reverse'} measure
 * @param {string} base
 * @param {number} durationMs
 * @returns {Promise<Omit<PerfFigures, 'measure' | 'durationMs'>>}
 */
function stream(measure, base, durationMs) {
  const started = performance.now();
  const limit = AbortSignal.timeout(durationMs + STREAM_DRAIN_MS);
  const done = (/** @type {number} */ bytes, /** @type {string | undefined} */ backend) => ({
    mbps: tenths((bytes * 8) / ((performance.now() - started) * 1000)),
    failed: 0,
    attempts: 1,
    ...(backend ? { backend } : {}),
  });
  if (measure === 'tcp-stream-reverse') {
    return new Promise((resolve, reject) => {
      const url = new URL(`/stream?ms=${durationMs}`, base);
      httpGet(url, { agent: false, signal: limit }, (res) => {
        let bytes = 0;
        res.on('data', (/** @type {Buffer} */ c) => {
          bytes += c.length;
        });
        res.on('end', () => {
          resolve(done(bytes, String(res.headers['x-hostname'] ?? '')));
        });
        res.on('error', reject);
      }).on('error', reject);
    });
  }
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024);
    const request = httpRequest(
      new URL('/sink', base),
      { method: 'POST', agent: false, signal: limit },
      (res) => {
        /** @type {Buffer[]} */
        const chunks = [];
        res.on('data', (/** @type {Buffer} */ c) => {
          chunks.push(c);
        });
        res.on('end', () => {
          const said = /** @type {{ bytes?: number, hostname?: string }} */ (
            parseJson(Buffer.concat(chunks).toString('utf8') || '{}')
          );
          resolve(done(said.bytes ?? 0, said.hostname));
        });
      },
    );
    request.on('error', reject);
    const until = started + durationMs;
    const pump = () => {
      while (performance.now() < until)
        if (!request.write(chunk)) return void request.once('drain', pump);
      request.end();
    };
    pump();
  });
}

/**
 * Datagrams of 1200 bytes at `rateMbps` for `durationMs` from one socket, then the server's count.
 * @param {string} base `udp://HOST:PORT`
 * @param {number} durationMs
 * @param {number} rateMbps
 * @returns {Promise<Omit<PerfFigures, 'measure' | 'durationMs'>>}
 */
async function udpStream(base, durationMs, rateMbps) {
  const url = new URL(base);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const address = isIP(host) === 0 ? (await lookup(host)).address : host;
  const socket = createSocket(isIPv6(address) ? 'udp6' : 'udp4');
  const id = randomBytes(6).toString('hex');
  try {
    await new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(Number(url.port), address, () => {
        resolve(undefined);
      });
    });
    const perTick = (rateMbps * 1e6 * UDP_TICK_MS) / 1000 / 8 / UDP_DATAGRAM_BYTES;
    const started = performance.now();
    let sent = 0;
    while (performance.now() - started < durationMs) {
      const due = Math.floor(((performance.now() - started) / UDP_TICK_MS + 1) * perTick);
      for (; sent < due; sent++) {
        const head = Buffer.from(`perf ${id} ${sent} `);
        socket.send(Buffer.concat([head, Buffer.alloc(UDP_DATAGRAM_BYTES - head.length)]));
      }
      await sleep(UDP_TICK_MS);
    }
    // The count, asked a few times: the question or its answer may be lost too.
    for (let ask = 0; ask < 3; ask++) {
      await sleep(100);
      /** @type {string | undefined} */
      const answer = await new Promise((resolve) => {
        const timer = setTimeout(() => {
          resolve(undefined);
        }, 400);
        socket.once('message', (m) => {
          clearTimeout(timer);
          resolve(m.toString('utf8'));
        });
        socket.send(`perf-count ${id}`);
      });
      if (typeof answer !== 'string') continue;
      const [datagrams = '0', , backend] = answer.trim().split(' ');
      const received = Math.min(sent, Number(datagrams));
      return {
        mbps: tenths((received * UDP_DATAGRAM_BYTES * 8) / (durationMs * 1000)),
        failed: sent - received,
        attempts: sent,
        ...(backend ? { backend } : {}),
      };
    }
    throw new Error(`no count from ${base} after 3 questions`);
  } finally {
    socket.close();
  }
}

/**
 * Runs one measure against netexec at `base` (`http://HOST:PORT`, or `udp://HOST:PORT` for udp-stream).
 * @param {PerfMeasure} measure
 * @param {string} base
 * @param {{ durationMs: number, rateMbps?: number }} options
 * @returns {Promise<PerfFigures>}
 */
export async function runMeasure(measure, base, { durationMs, rateMbps = 10 }) {
  const tcp = measure.startsWith('tcp');
  const before = tcp ? tcpCounters() : undefined;
  const serverBefore = tcp ? await serverCounters(base) : undefined;
  const figures =
    measure === 'tcp-rr' || measure === 'tcp-crr'
      ? await requestResponse(measure, base, durationMs)
      : measure === 'udp-stream'
        ? await udpStream(base, durationMs, rateMbps)
        : await stream(measure, base, durationMs);
  const after = before === undefined ? undefined : tcpCounters();
  const counted =
    before === undefined || after === undefined
      ? {}
      : {
          sent: after.sent - before.sent,
          retransmitted: after.retransmitted - before.retransmitted,
        };
  const serverAfter = serverBefore === undefined ? undefined : await serverCounters(base);
  // Through a Service the two questions may reach two backends: their counters say nothing.
  const server =
    serverBefore === undefined || serverAfter?.hostname !== serverBefore.hostname
      ? {}
      : {
          serverSent: serverAfter.tcp.sent - serverBefore.tcp.sent,
          serverRetransmitted: serverAfter.tcp.retransmitted - serverBefore.tcp.retransmitted,
        };
  return { measure, durationMs, ...figures, ...counted, ...server };
}

/**
 * The server's TCP counters (netexec's /netstat); undefined where it has none (agnhost).
 * @param {string} base
 * @returns {Promise<{ hostname: string, tcp: { sent: number, retransmitted: number } } | undefined>}
 */
async function serverCounters(base) {
  const answer = await get(new URL('/netstat', base), false).catch(() => undefined);
  if (answer?.status !== 200) return undefined;
  const said =
    /** @type {{ hostname?: string, tcp?: { sent: number, retransmitted: number } | null }} */ (
      parseJson(answer.body)
    );
  return said.tcp && said.hostname !== undefined
    ? { hostname: said.hostname, tcp: said.tcp }
    : undefined;
}
