/**
 * What a probe reports, wherever it ran: the JSON line of the project's probe program
 * (lab/cluster/workload/probe.mjs), or the same made from agnhost's output in a pod. The driver
 * contract (specs/model/lab-driver.ts) and every driver speak it.
 */
import type { PerfFigures } from './results-file.ts';

export const PROBE_RESULTS = [
  'ok',
  'timeout',
  'refused',
  'unreachable',
  'nxdomain',
  'http-error',
  'error',
] as const;

/** What a probe reports: probe.mjs's JSON line, or the same made from agnhost's output. */
export interface ProbeReply {
  result: (typeof PROBE_RESULTS)[number];
  status?: number;
  /** Kept for logs: the first 4 KiB. */
  body?: string;
  /** HTTP body bytes received in total. */
  bytes?: number;
  addresses?: string[];
  /** HTTP: the address the client connected to (what a name resolved to, or the IP given). */
  peer?: string;
  /** endpoints: one entry per connection that answered both requests: the backend's /hostname body and the client address its /clientip showed (IP only, port stripped, IPv6 brackets removed). */
  answers?: { endpoint: string; client: string }[];
  /** Milliseconds the whole probe took where it ran (lookup, connect, answer), as it measured them. */
  ms?: number;
  /** http, tcp: milliseconds of the TCP connect, from the SYN on (after any name lookup). */
  connectMs?: number;
  /** endpoints: each answered request's milliseconds, and its connect's. */
  requests?: { ms?: number; connectMs?: number }[];
  /** perf: what the measure found. */
  perf?: PerfFigures;
  error?: string;
}
