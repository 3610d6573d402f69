/**
 * Shared helpers of the probes.mjs tests: a stubbed name lookup, loopback servers, lines without
 * their timings, the usage text.
 */
import { expect } from 'chai';
import { PERF_MEASURES } from '../cluster/workload/perf-measures.mjs';
import dns from 'node:dns';
import { once } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';

type LookupCallback = (err: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;
type Lookup = (host: string, options: unknown, callback: LookupCallback) => void;

/** Runs `body` with node:dns's lookup (which net and dgram call) replaced by `replacement`. */
export async function withLookup<T>(
  replacement: (original: Lookup) => Lookup,
  body: () => Promise<T>,
): Promise<T> {
  const original = dns.lookup as unknown as Lookup;
  (dns as unknown as { lookup: Lookup }).lookup = replacement(original);
  try {
    return await body();
  } finally {
    (dns as unknown as { lookup: Lookup }).lookup = original;
  }
}

/** A resolver error as getaddrinfo reports it. */
export function resolverError(code: string, host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code, hostname: host });
}

/** A line without its `ms` (and `connectMs`), which no test can know. */
export function untimed(line: Record<string, unknown>): Record<string, unknown> {
  const { ms, connectMs, ...rest } = line;
  expect(ms).to.be.a('number');
  if (connectMs !== undefined) expect(connectMs).to.be.a('number');
  return rest;
}

export async function listening(server: Server | HttpServer): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}
/** A free loopback TCP port: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listening(server);
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Checks `text` is probe.mjs's usage: every probe kind, perf measure and flag, in its own words
 * (not compared with the imported USAGE, which a mutant of that text changes too).
 */
export function expectProbeUsage(text: string): void {
  expect(text).to.match(/^usage: probe\.mjs http URL \(http:\/\/ or https:\/\/\) \| /);
  for (const kind of ['tcp HOST PORT', 'udp HOST PORT MESSAGE', 'dns NAME']) {
    expect(text).to.include(`| ${kind} |`);
  }
  expect(text).to.include('| dns-tcp NAME | icmp HOST\n');
  expect(text).to.include('| endpoints http://HOST:PORT|udp://HOST:PORT --expect NAME[,NAME…]');
  expect(text).to.include(`| perf ${PERF_MEASURES.join('|')} http://HOST:PORT|udp://HOST:PORT`);
  expect(text).to.include('perf tcp-rr|tcp-crr|tcp-stream|tcp-stream-reverse|udp-stream ');
  for (const flag of ['max-requests', 'min-requests', 'timeout-ms', 'duration-ms', 'rate-mbps']) {
    expect(text).to.include(`--${flag} N`);
  }
}
