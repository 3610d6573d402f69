/** The pod workload programs (lab/workload) and the command lines pods run them with. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../exec/command-runner.ts';
import { PROBE_RESULTS, type ProbeReply } from '../../contracts/probe-reply.ts';
import { NETEXEC_HTTP_PORT, NETEXEC_UDP_PORT } from '../../contracts/workload-ports.ts';

/** Every file a machine needs to run pods: the programs and what they import. */
export const WORKLOAD_FILES = [
  'args.mjs',
  'endpoint-sweep.mjs',
  'netexec.mjs',
  'dns-wire.mjs',
  'dns-server.mjs',
  'health-server.mjs',
  'apiserver-standin.mjs',
  'ping-output.mjs',
  'perf-measures.mjs',
  'perf-server.mjs',
  'probes.mjs',
  'probe.mjs',
  'prober.mjs',
  'held-connection.sh',
] as const;

/** Absolute path of a workload program, independent of the caller's working directory. */
export function workloadPath(script: (typeof WORKLOAD_FILES)[number]): string {
  return fileURLToPath(new URL(`../workload/${script}`, import.meta.url));
}

/** Where the machine that runs pods has the node binary and the workload programs. */
export interface WorkloadLocation {
  node: string;
  /** Folder holding WORKLOAD_FILES. */
  dir: string;
}

/** This host: the running node and lab/workload. */
export const LOCAL_WORKLOADS: WorkloadLocation = {
  node: process.execPath,
  dir: dirname(workloadPath('netexec.mjs')),
};

export {
  HOST_NETEXEC_PORTS,
  NETEXEC_HTTP_PORT,
  NETEXEC_UDP_PORT,
} from '../../contracts/workload-ports.ts';
export const READY_LINE = /^listening /;
export const RELOADED_LINE = /^reloaded /;

/**
 * netexec on both agnhost ports (or `ports`); `bind` limits it to one address (all by default).
 */
export function netexecArgv(
  hostname: string,
  at: WorkloadLocation = LOCAL_WORKLOADS,
  bind?: string,
  ports: { http: number; udp: number } = { http: NETEXEC_HTTP_PORT, udp: NETEXEC_UDP_PORT },
): string[] {
  return [
    at.node,
    join(at.dir, 'netexec.mjs'),
    '--http-port',
    String(ports.http),
    '--udp-port',
    String(ports.udp),
    '--hostname',
    hostname,
    ...(bind === undefined ? [] : ['--bind', bind]),
  ];
}

export function dnsServerArgv(
  zoneFile: string,
  listen: string,
  at: WorkloadLocation = LOCAL_WORKLOADS,
): string[] {
  return [
    at.node,
    join(at.dir, 'dns-server.mjs'),
    '--zone',
    zoneFile,
    '--listen',
    listen,
    '--port',
    '53',
  ];
}

/** kube-proxy's health-check node ports of one node, as `config` lists them (health-server.mjs). */
export function healthServerArgv(config: string, at: WorkloadLocation = LOCAL_WORKLOADS): string[] {
  return [at.node, join(at.dir, 'health-server.mjs'), '--config', config];
}

/** The emulated labs' TLS stand-in for the API server on `port` of its node (apiserver-standin.mjs). */
export function apiServerStandInArgv(
  tls: { cert: string; key: string },
  port: number,
  at: WorkloadLocation = LOCAL_WORKLOADS,
): string[] {
  return [
    at.node,
    join(at.dir, 'apiserver-standin.mjs'),
    '--cert',
    tls.cert,
    '--key',
    tls.key,
    '--port',
    String(port),
  ];
}

export function probeArgv(
  args: readonly string[],
  at: WorkloadLocation = LOCAL_WORKLOADS,
): string[] {
  return [at.node, join(at.dir, 'probe.mjs'), ...args];
}

/**
 * Resolver threads for a prober: each lookup that outlives its probe holds one until getaddrinfo()
 * gives up (tens of seconds with the cluster DNS down), and libuv's default of 4 would make later
 * lookups queue behind them.
 */
const PROBER_THREADS = 128;

/** A long-lived prober listening on `socket` (prober.mjs). */
export function proberArgv(socket: string, at: WorkloadLocation = LOCAL_WORKLOADS): string[] {
  return [
    'env',
    `UV_THREADPOOL_SIZE=${PROBER_THREADS}`,
    at.node,
    join(at.dir, 'prober.mjs'),
    '--socket',
    socket,
  ];
}

export type { ProbeReply } from '../../contracts/probe-reply.ts';

/** The one JSON line probe.mjs printed; a crash before it, or a line without a known result, is an "error". */
export function parseProbe(result: RunResult): ProbeReply {
  const line = result.stdout.trim().split('\n').pop() ?? '';
  const printed = `${result.stdout}${result.stderr}`.trim().slice(0, 500);
  return (
    probeReplyOf(line) ?? {
      result: 'error',
      error: `probe printed no result (exit ${result.exitCode}): ${printed}`,
    }
  );
}

/** A probe's JSON line as a reply; undefined when it is not JSON or has no known result. */
export function probeReplyOf(line: string): ProbeReply | undefined {
  try {
    const reply = JSON.parse(line) as ProbeReply;
    if (PROBE_RESULTS.includes(reply.result)) return reply;
  } catch {
    // not JSON
  }
  return undefined;
}
