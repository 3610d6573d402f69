/**
 * Probes from the harness host itself (NodePort cells): Node's own http, net and dns clients, and
 * endpoint-sweep.mjs for sweeps.
 */
import { lookup } from 'node:dns/promises';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import type { ProbeReply, ProbeRequest } from '../../model/lab-driver.ts';
import { askOneConnection, sweepEndpoints } from '../../../lab/cluster/workload/endpoint-sweep.mjs';

const MAX_BODY_CHARS = 4096;

/** Maps a socket or resolver error onto a probe result, as probe.mjs does in a pod. */
function fromError(error: unknown): ProbeReply {
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : error;
  const code = first instanceof Error && 'code' in first ? String(first.code) : '';
  const text = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ECONNREFUSED':
      return { result: 'refused', error: text };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return { result: 'unreachable', error: text };
    case 'ETIMEDOUT':
      return { result: 'timeout', error: text };
    case 'ENOTFOUND':
      return { result: 'nxdomain', error: text };
    default:
      return { result: 'error', error: text };
  }
}

function probeHttp(url: string, signal: AbortSignal): Promise<ProbeReply> {
  return new Promise((resolve) => {
    const request = httpGet(url, { agent: false, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const body = Buffer.concat(chunks).toString('utf8').trim().slice(0, MAX_BODY_CHARS);
        resolve(
          status >= 200 && status < 300
            ? { result: 'ok', status, body }
            : { result: 'http-error', status, body, error: `HTTP ${status}` },
        );
      });
      res.on('error', (error) => {
        resolve(fromError(error));
      });
    });
    request.on('error', (error) => {
      resolve(fromError(error));
    });
  });
}

function probeTcp(host: string, port: number, signal: AbortSignal): Promise<ProbeReply> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, signal });
    socket.once('connect', () => {
      socket.destroy();
      resolve({ result: 'ok' });
    });
    socket.once('error', (error) => {
      resolve(fromError(error));
    });
  });
}

async function probeDns(name: string): Promise<ProbeReply> {
  try {
    const found = await lookup(name, { all: true, family: 4 });
    return { result: 'ok', addresses: found.map((a) => a.address) };
  } catch (error) {
    return fromError(error);
  }
}

/**
 * Runs one probe from this host; `timeoutMs` bounds all of it (lookup, connect, body), or each
 * request of an endpoints sweep.
 */
export function probeFromHost(request: ProbeRequest, timeoutMs: number): Promise<ProbeReply> {
  if (request.kind !== 'endpoints') {
    return withDeadline(timeoutMs, (signal) => probeOnce(request, signal));
  }
  return sweepEndpoints(request, () =>
    withDeadline(timeoutMs, (signal) => askOneConnection(request.base, fromError, signal)),
  );
}

function probeOnce(
  request: Exclude<ProbeRequest, { kind: 'endpoints' }>,
  signal: AbortSignal,
): Promise<ProbeReply> {
  switch (request.kind) {
    case 'http':
      return probeHttp(request.url, signal);
    case 'tcp':
      return probeTcp(request.host, request.port, signal);
    case 'dns':
      return probeDns(request.name);
  }
}

/** `probe`'s reply, or a timeout once `timeoutMs` passed; either way its signal aborts at the end. */
async function withDeadline(
  timeoutMs: number,
  probe: (signal: AbortSignal) => Promise<ProbeReply>,
): Promise<ProbeReply> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeReply>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ result: 'timeout', error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  try {
    return await Promise.race([probe(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
