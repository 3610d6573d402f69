// @ts-check
/**
 * Pod workload: one connectivity probe, run inside a pod's network namespace by the suite.
 *
 *   node lab/cluster/workload/probe.mjs http URL                 [--timeout-ms 3000]
 *   node lab/cluster/workload/probe.mjs tcp HOST PORT            [--timeout-ms 3000]
 *   node lab/cluster/workload/probe.mjs udp HOST PORT MESSAGE    [--timeout-ms 3000]
 *   node lab/cluster/workload/probe.mjs dns NAME                 [--timeout-ms 3000]
 *   node lab/cluster/workload/probe.mjs icmp HOST                [--timeout-ms 3000]
 *   node lab/cluster/workload/probe.mjs endpoints http://HOST:PORT --expect NAME[,NAME…]
 *                                       --max-requests N [--min-requests N] [--timeout-ms 3000]
 *   node lab/cluster/workload/probe.mjs endpoints udp://HOST:PORT …
 *
 * endpoints opens up to N new connections, each GETting /hostname then /clientip (udp://: new
 * sockets, each sending the datagrams `hostname` then `clientip`), until every
 * --expect name answered (endpoint-sweep.mjs); --timeout-ms then bounds each connection, not
 * the sweep, and `answers` lists which backend answered each one and the client IP it saw.
 *
 * Always prints exactly one JSON line; exits 0 for result "ok", 1 for any other result and
 * 2 for usage errors. A probe that hits --timeout-ms, and a sweep that fails, kills itself once
 * the line is out (exit status 137), so a hung name lookup cannot hold it past the deadline.
 * The probes themselves are in probes.mjs; prober.mjs answers the same probes over a socket.
 */

import { USAGE, runProbe } from './probes.mjs';

/**
 * Prints the one JSON line and exits once it is flushed. `kill` ends the process with SIGKILL
 * instead: a timed-out getaddrinfo() holds a libuv worker thread that process.exit() joins, so
 * exiting would wait for the resolver's own timeouts (seconds per attempt) after ours.
 * @param {Record<string, unknown>} line
 * @param {number} code
 * @param {boolean} kill
 */
function finish(line, code, kill) {
  process.stdout.write(`${JSON.stringify(line)}\n`, () => {
    if (kill) process.kill(process.pid, 'SIGKILL');
    else process.exit(code);
  });
}

const { line, code, lingering, usage } = await runProbe(process.argv.slice(2));
if (usage !== undefined) process.stderr.write(`probe: ${usage}\n${USAGE}\n`);
finish(line, code, lingering);
