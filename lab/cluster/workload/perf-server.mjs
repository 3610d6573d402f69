// @ts-check
/**
 * What netexec serves to the perf mode's measures (perf-measures.mjs), beside agnhost's subset:
 * `GET /stream?ms=N` sends zero bytes as fast as the path takes them for N ms (the reverse
 * stream), `POST /sink` counts what it is sent (the forward stream), and UDP datagrams
 * `perf ID SEQ …` are counted per ID until `perf-count ID` asks. Every answer names the server
 * (its hostname), so a measure through a Service knows which backend it measured. Built-ins only.
 */

import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';

/** Longest stream one request may ask for: a measure lasts well under a second. */
export const MAX_STREAM_MS = 10_000;
const CHUNK = Buffer.alloc(64 * 1024);
/** Senders the UDP counter remembers at once; the oldest is forgotten first. */
const MAX_UDP_SENDERS = 256;

/**
 * Answers a perf request, or returns false when the path is not one of them.
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {URL} url
 * @param {string} hostname
 * @returns {boolean}
 */
export function servePerf(req, res, url, hostname) {
  if (url.pathname === '/netstat' && req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ hostname, tcp: tcpCounters() ?? null }));
    return true;
  }
  if (url.pathname === '/stream' && req.method === 'GET') {
    const ms = Number(url.searchParams.get('ms') ?? '');
    if (!Number.isInteger(ms) || ms < 1 || ms > MAX_STREAM_MS) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`ms must be an integer from 1 to ${MAX_STREAM_MS}`);
      return true;
    }
    stream(res, ms, hostname);
    return true;
  }
  if (url.pathname === '/sink' && req.method === 'POST') {
    let bytes = 0;
    req.on('data', (/** @type {Buffer} */ chunk) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ bytes, hostname }));
    });
    return true;
  }
  return false;
}

/**
 * The TCP segments this network namespace sent and retransmitted so far (/proc/net/snmp: a
 * process sees its own namespace's); undefined where there is no such file (not Linux).
 * @returns {{ sent: number, retransmitted: number } | undefined}
 */
export function tcpCounters() {
  try {
    return snmpTcpCounters(readFileSync('/proc/net/snmp', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The TCP segments sent and retransmitted in /proc/net/snmp's text (its `Tcp:` names and values
 * lines); undefined when they are not there.
 * @param {string} text
 * @returns {{ sent: number, retransmitted: number } | undefined}
 */
export function snmpTcpCounters(text) {
  const [names = '', values = ''] = text.split('\n').filter((l) => l.startsWith('Tcp:'));
  const field = (/** @type {string} */ name) =>
    Number(values.split(/\s+/)[names.split(/\s+/).indexOf(name)]);
  const counters = { sent: field('OutSegs'), retransmitted: field('RetransSegs') };
  return Number.isInteger(counters.sent) && Number.isInteger(counters.retransmitted)
    ? counters
    : undefined;
}

/**
 * Writes chunks while the socket takes them, until `ms` passed.
 * @param {import('node:http').ServerResponse} res
 * @param {number} ms
 * @param {string} hostname
 */
function stream(res, ms, hostname) {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-hostname': hostname });
  const until = Date.now() + ms;
  const pump = () => {
    while (Date.now() < until) {
      if (!res.write(CHUNK)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('error', () => undefined);
  pump();
}

/** Datagrams counted per sender id (perf-measures.mjs's udp-stream). */
export class UdpCounter {
  /** @type {Map<string, { datagrams: number, bytes: number }>} */
  #seen = new Map();

  /**
   * Counts `perf ID …` and answers `perf-count ID` with `COUNT BYTES HOSTNAME`; undefined for
   * anything else (and for what is only counted).
   * @param {Buffer} message
   * @param {string} hostname
   * @returns {string | undefined}
   */
  handle(message, hostname) {
    const head = message.subarray(0, 64).toString('latin1');
    const [command = '', id = ''] = head.split(' ');
    if (command === 'perf') {
      const entry = this.#seen.get(id) ?? { datagrams: 0, bytes: 0 };
      entry.datagrams++;
      entry.bytes += message.length;
      this.#seen.delete(id);
      this.#seen.set(id, entry);
      if (this.#seen.size > MAX_UDP_SENDERS)
        this.#seen.delete(this.#seen.keys().next().value ?? '');
      return undefined;
    }
    if (command === 'perf-count') {
      const entry = this.#seen.get(id.trim()) ?? { datagrams: 0, bytes: 0 };
      return `${entry.datagrams} ${entry.bytes} ${hostname}`;
    }
    return undefined;
  }

  /**
   * True for datagrams this counter owns.
   * @param {Buffer} message
   */
  static owns(message) {
    return (
      message.subarray(0, 5).toString('latin1') === 'perf ' ||
      message.subarray(0, 11).toString('latin1') === 'perf-count '
    );
  }
}
