/**
 * How a ProbeRequest runs inside an agnhost pod, and how its output becomes a ProbeReply.
 *
 * agnhost has no HTTP-client or name-lookup subcommand (it has connect, netexec, dns-suffix,
 * dns-server-list, etc-hosts, …), but both of its images carry curl (Linux: Alpine's curl;
 * Windows: curl.exe on PATH) and BIND's dig/nslookup. The mapping, the same on both OSes:
 *
 * - http → `curl -sS -v -w …%{http_code} %{size_download} URL` (`-k` for https: TLS without checking
 *   the server's certificate, as the emulated probe does): an HTTP client in the pod's own
 *   network namespace; the body is what the far end answered (for /clientip the IP:PORT it saw),
 *   the status and the body's size come after a marker line. Rejected: netexec's /dial on the pod's own netexec — reaching it needs an
 *   HTTP client anyway (curl, or the API-server proxy, which is not Exec), it hides the far end's
 *   status, fixes a 5 s timeout and returns errors as free text.
 * - tcp → `/agnhost connect --timeout=<ms>ms HOST:PORT`: prints TIMEOUT, REFUSED, DNS: or OTHER:.
 * - icmp → one echo request. Linux: iputils `ping -n -c 1` (the project's agnhost image carries
 *   it), read by ping-output.mjs. Windows: nothing shows the Windows agnhost image carries ping.exe
 *   (lab/provision/windows-image-commands.ts), but it carries PowerShell 6.2.7, whose .NET Ping
 *   sends one echo request and prints the reply's IPStatus and source address (the peer).
 * - dns-tcp → one A query over TCP to the pod's own nameserver, no search list. Linux: a bash
 *   script (`/dev/tcp`, dd, od; bounded by `timeout`) reads the first nameserver of resolv.conf,
 *   sends the query this driver built (dns-wire.mjs) and prints the reply's bytes in hex, which
 *   dns-wire.mjs reads, as the emulated probe does. Windows: `dig.exe +tcp` (BIND, in the Windows
 *   agnhost image), which asks the servers the pod's DNS client has; its status line and answer
 *   section are read.
 * - dns → `curl -4 -v http://NAME:80/`: curl resolves through the OS resolver (getaddrinfo: the
 *   resolv.conf search list and ndots on Linux, the DNS client's suffix search on Windows), as a
 *   pod's application would, and prints what it resolved (curl ≥ 8 `IPv4: a, b`; older
 *   `Trying a…`). The connection afterwards is ignored; it goes to the port the looked-up Service
 *   answers on (80 for the suite's, 443 for `kubernetes`), so the lookup finishes at once instead
 *   of waiting out a connect to a port nothing forwards. Rejected: nslookup/dig — BIND's own stub
 *   resolvers, dig ignores the search list, and Kubernetes' Windows DNS e2e test uses curl because
 *   nslookup there does not honour ndots.
 * - udp → the pod's own netexec dials for it: `curl http://127.0.0.1:8080/dial?protocol=udp&
 *   host=IP&port=P&request=MESSAGE&tries=1` sends one datagram from the pod's network namespace and
 *   answers JSON `{"responses": [reply]}` or `{"errors": [why]}` (agnhost's own UDP client, as
 *   Kubernetes' e2e networking tests use it; it waits 5 s for a reply, curl's -m cuts that to the
 *   probe's timeout). A name is looked up first (as `dns` does) and the datagram goes to the
 *   address it resolved to, which becomes the reply's `peer`.
 * - endpoints → one exec per connection (Windows pods have no shell to loop in; the driver sweeps
 *   with endpoint-sweep.mjs): `curl --fail-early … BASE/hostname BASE/clientip`, which reuses the
 *   connection for the second URL, so both bodies come from one backend. A status line after each
 *   transfer carries `%{num_connects}`: 0 for /clientip proves the connection was reused; and
 *   `%{time_namelookup}` and `%{time_connect}`: curl's --connect-timeout counts the lookup too, so
 *   the SYN's own time is judged from their difference. A name is looked up with -4, as `dns` does.
 * - endpoints over UDP (`udp://HOST:PORT`), one exec per socket. Linux (the image is Debian with
 *   bash and coreutils): bash's /dev/udp opens one connected socket, `hostname` and then `clientip`
 *   go out of it, and `dd count=1` reads one reply datagram each under `timeout`; one source port,
 *   so one conntrack entry and one backend. Windows: the image has no UDP client that keeps a
 *   socket, only netexec's /dial, which opens one per datagram; curl asks /dial for `hostname` and
 *   then `clientip`, so the two answers may come from different backends. Every backend is still
 *   seen, and every client address seen is checked, but a wrong source address confined to one
 *   endpoint is found only when a `clientip` datagram lands there.
 */
import { isIP } from 'node:net';
import type { ProbeReply, ProbeRequest } from '../../model/lab-driver.ts';
import type { Os } from '../../../lab/contracts/cells.ts';
import type { ExecResult } from './exec-in-pod.ts';
import { parsePing } from '../../../lab/cluster/workload/ping-output.mjs';
import { NETEXEC_HTTP_PORT } from '../../model/workload-names.ts';
import {
  TCP_QUERY_ID,
  answerOutcome,
  rcodeOutcome,
  tcpQuery,
} from '../../../lab/cluster/workload/dns-wire.mjs';
import {
  ENDPOINT_PATHS,
  SWEEP_CONNECT_MS,
  clientAddress,
} from '../../../lab/cluster/workload/endpoint-sweep.mjs';

/** Perf requests do not map onto one agnhost probe: the driver runs them with perf-in-pod.ts. */
export const PERF_ELSEWHERE = 'perf requests run through perf-in-pod.ts, not as agnhost probes';

const STATUS_MARK = '--hybrid-lab-status:';
/** Before the Windows echo request's IPStatus and the reply's source address. */
const PING_MARK = '--hybrid-lab-ping:';
const STATUS_LINE = new RegExp(`^${STATUS_MARK}(.*)$`, 'gm');
/**
 * After each transfer: its status, body size, where curl connected, whether it connected anew, and
 * when (seconds from the start) the name was looked up and the TCP connect completed.
 */
const TRANSFER_STATUS = `\\n${STATUS_MARK}%{http_code} %{size_download} %{remote_ip} %{num_connects} %{time_namelookup} %{time_connect}\\n`;
/** Bodies are cut like probe.mjs cuts them, so one line stays readable in logs and JUnit. */
const MAX_BODY_CHARS = 4096;

const curl = (os: Os) => (os === 'windows' ? 'curl.exe' : 'curl');
const seconds = (ms: number) => (Math.max(ms, 1) / 1000).toFixed(3);

/** The argv that runs `request` inside an agnhost container on `os`, bounded by `timeoutMs`. */
export function probeCommand(os: Os, request: ProbeRequest, timeoutMs: number): string[] {
  const limits = ['--connect-timeout', seconds(timeoutMs), '-m', seconds(timeoutMs)];
  switch (request.kind) {
    case 'http':
      return [
        curl(os),
        '-sS',
        '-v',
        // Over https the path is judged, not the certificate (the API server's is the cluster CA's).
        ...(request.url.startsWith('https:') ? ['-k'] : []),
        ...limits,
        '-w',
        `\\n${STATUS_MARK}%{http_code} %{size_download} %{remote_ip}`,
        request.url,
      ];
    case 'dns':
      return [
        curl(os),
        '-4',
        '-sS',
        '-v',
        ...limits,
        `http://${request.name}:${request.port ?? 80}/`,
      ];
    case 'dns-tcp':
      return dnsTcpCommand(os, request.name, timeoutMs);
    case 'tcp': {
      const host = request.host.includes(':') ? `[${request.host}]` : request.host;
      return [
        '/agnhost',
        'connect',
        `--timeout=${Math.max(timeoutMs, 1)}ms`,
        `${host}:${request.port}`,
      ];
    }
    case 'icmp': {
      const wait = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
      if (os === 'linux') return ['ping', '-n', '-c', '1', '-W', wait, '-w', wait, request.host];
      const send = `[System.Net.NetworkInformation.Ping]::new().Send('${request.host}', ${Math.max(timeoutMs, 1)})`;
      return [
        'pwsh.exe',
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        `$r = ${send}; '${PING_MARK}' + $r.Status + ' ' + $r.Address`,
      ];
    }
    case 'udp': {
      const dial = dialUrl(request.host, String(request.port), request.message);
      return [curl(os), '-sS', ...limits, '-w', `\n${STATUS_MARK}%{http_code}`, dial];
    }
    case 'perf':
      throw new Error(PERF_ELSEWHERE);
    case 'endpoints': {
      if (request.base.startsWith('udp:')) return udpSweepCommand(os, request.base, timeoutMs);
      // curl's limits apply to each transfer: the two GETs share one request's budget. curl's
      // connect timeout includes the name's lookup, so the SYN's own time is judged afterwards
      // from the status line (a connect slower than SWEEP_CONNECT_MS lost its first SYN).
      const half = seconds(timeoutMs / 2);
      const byName = isIP(new URL(request.base).hostname) === 0;
      return [
        curl(os),
        ...(byName ? ['-4'] : []),
        '-sS',
        '-v',
        '--fail-early',
        '--connect-timeout',
        half,
        '-m',
        half,
        '-w',
        TRANSFER_STATUS,
        ...ENDPOINT_PATHS.map((path) => new URL(path, request.base).href),
      ];
    }
  }
}

/** Each UDP question's reply, then this marker line naming the question (Linux). */
const UDP_MARK = '--hybrid-lab-udp:';
/** $1 host, $2 port, $3 seconds to wait for each reply; exit 6: no socket, 124: no reply. */
const UDP_SWEEP_SCRIPT = [
  'exec 3<>"/dev/udp/$1/$2" || exit 6',
  'for q in hostname clientip; do',
  '  printf %s "$q" >&3 || exit 7',
  '  timeout "$3" dd bs=4096 count=1 status=none <&3 || exit $?',
  `  printf '\n${UDP_MARK}%s\n' "$q"`,
  'done',
].join('\n');

/** One request of a UDP sweep from an agnhost pod on `os` (see the header). */
function udpSweepCommand(os: Os, base: string, timeoutMs: number): string[] {
  const url = new URL(base);
  const half = seconds(timeoutMs / 2);
  if (os === 'linux') {
    return ['bash', '-c', UDP_SWEEP_SCRIPT, 'udp-sweep', url.hostname, url.port, half];
  }
  const dials = ENDPOINT_PATHS.map((path) => dialUrl(url.hostname, url.port, path.slice(1)));
  return [
    curl(os),
    '-sS',
    '--fail-early',
    '-m',
    half,
    '-w',
    `\n${STATUS_MARK}%{http_code}\n`,
    ...dials,
  ];
}

/** Before the reply's bytes: the nameserver the Linux script asked (from the pod's resolv.conf). */
const DNS_TCP_MARK = '--hybrid-lab-dns-tcp:';
/**
 * $1: the query with its length, as printf escapes. Asks the first nameserver of resolv.conf over
 * one TCP connection, reads the two-byte length and then that many bytes, and prints them in hex.
 * Exit 5: no nameserver; 6: no connection; 8: closed without an answer; 124 (timeout): no answer.
 */
const DNS_TCP_SCRIPT = [
  'ns=',
  'while read -r key value _; do',
  '  if [ "$key" = nameserver ]; then ns=$value; break; fi',
  'done < /etc/resolv.conf',
  '[ -n "$ns" ] || { echo \'no nameserver in /etc/resolv.conf\' >&2; exit 5; }',
  `printf '%s%s\\n' '${DNS_TCP_MARK}' "$ns"`,
  'exec 3<>"/dev/tcp/$ns/53" || exit 6',
  'printf "$1" >&3 || exit 7',
  'set -- $(dd bs=1 count=2 status=none <&3 | od -An -tu1)',
  "[ $# -eq 2 ] || { echo 'the connection closed without an answer' >&2; exit 8; }",
  'dd bs=1 count=$(($1 * 256 + $2)) status=none <&3 | od -An -tx1 -v',
].join('\n');

/**
 * NAME over TCP from a pod on `os`. Linux (bash, dd and od in the image): DNS_TCP_SCRIPT sends the
 * query this driver built and prints the reply's bytes, which dns-wire.mjs reads, as the
 * emulated probe does. Windows: BIND's dig, `+tcp`, asking the servers the pod's DNS client has.
 */
function dnsTcpCommand(os: Os, name: string, timeoutMs: number): string[] {
  if (os === 'windows') {
    const wait = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
    return ['dig.exe', '+tcp', '+tries=1', `+time=${wait}`, '+noall', '+comments', '+answer', name];
  }
  const escapes = [...tcpQuery(name, TCP_QUERY_ID)]
    .map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`)
    .join('');
  return ['timeout', seconds(timeoutMs), 'bash', '-c', DNS_TCP_SCRIPT, 'dns-tcp', escapes];
}

/** The pod's own netexec /dial sending one `message` datagram to HOST:PORT and waiting for its reply. */
function dialUrl(host: string, port: string, message: string): string {
  const dial = new URL(`http://127.0.0.1:${NETEXEC_HTTP_PORT}/dial`);
  for (const [key, value] of Object.entries({
    request: message,
    protocol: 'udp',
    host,
    port,
    tries: '1',
  }))
    dial.searchParams.set(key, value);
  return dial.href;
}

/** The ProbeReply for what the command printed and how it exited in a pod on `os`. */
export function replyFromExec(
  request: ProbeRequest,
  result: ExecResult,
  os: Os = 'linux',
): ProbeReply {
  if (result.exitCode === null) {
    const why = result.status.message ?? result.status.reason ?? 'no exit code';
    return { result: 'error', error: `exec failed: ${why}` };
  }
  switch (request.kind) {
    case 'http':
      return httpReply(result.exitCode, result.stdout, result.stderr);
    case 'dns':
      return dnsReply(result.exitCode, result.stderr);
    case 'dns-tcp':
      return os === 'linux'
        ? dnsTcpScriptReply(result.exitCode, result.stdout, result.stderr)
        : digReply(result.exitCode, result.stdout, result.stderr);
    case 'tcp':
      return connectReply(result.exitCode, result.stderr);
    case 'icmp':
      return os === 'linux'
        ? pingReply(result.exitCode, result.stdout, result.stderr)
        : dotnetPingReply(result.exitCode, result.stdout, result.stderr);
    case 'udp':
      return dialReply(request.host, result.exitCode, result.stdout, result.stderr);
    case 'perf':
      return { result: 'error', error: PERF_ELSEWHERE };
    case 'endpoints':
      if (!request.base.startsWith('udp:'))
        return endpointsReply(result.exitCode, result.stdout, result.stderr);
      return os === 'linux'
        ? udpScriptReply(result.exitCode, result.stdout, result.stderr)
        : udpDialsReply(request.base, result.exitCode, result.stdout, result.stderr);
  }
}

/** One ping's answer: exit 0 or 1 are results read from the output; anything else failed to run. */
function pingReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  if (exitCode > 1) {
    const why = stderr.trim() || stdout.trim().split('\n').at(-1) || `ping exited ${exitCode}`;
    return { result: 'error', error: why };
  }
  return parsePing(`${stdout}\n${stderr}`);
}

/**
 * The Windows echo request's line: its IPStatus (Success, TimedOut, Destination…Unreachable, …; the
 * .NET IPStatus names) and the reply's source address.
 */
function dotnetPingReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  const line = new RegExp(`^${PING_MARK}(\\w+) ?(\\S*)`, 'm').exec(stdout);
  if (exitCode !== 0 || line === null) {
    return { result: 'error', error: stderr.trim() || `pwsh exited ${exitCode}: ${stdout.trim()}` };
  }
  // Both groups always match (the second may be empty).
  const status = line[1]!;
  const address = line[2]!;
  if (status === 'Success') return { result: 'ok', peer: address };
  if (status === 'TimedOut') return { result: 'timeout', error: 'no echo reply (TimedOut)' };
  if (/Unreachable$/.test(status))
    return { result: 'unreachable', error: `${status}${address === '' ? '' : ` from ${address}`}` };
  return { result: 'error', error: `echo request: ${status}` };
}

/** The Linux UDP sweep script's output: each reply before the marker line naming its question. */
function udpScriptReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  const why = lastLine(stderr);
  if (exitCode === 124) return { result: 'timeout', error: `no UDP reply in time ${why}`.trim() };
  if (exitCode !== 0) {
    // bash names the host it could not resolve on the line before its own failure.
    if (/not known|no address/i.test(stderr)) return { result: 'nxdomain', error: stderr.trim() };
    const error = why || `the UDP sweep script exited ${exitCode}`;
    return { result: classifyConnectError(error), error };
  }
  const replies = new Map<string, string>();
  let from = 0;
  for (const line of stdout.matchAll(new RegExp(`^${UDP_MARK}(.*)$`, 'gm'))) {
    replies.set(line[1]!, stdout.slice(from, line.index).trim().slice(0, MAX_BODY_CHARS));
    from = line.index + line[0].length;
  }
  const endpoint = replies.get('hostname');
  const client = replies.get('clientip');
  if (endpoint === undefined || client === undefined) {
    return {
      result: 'error',
      error: `the UDP sweep script printed no answers: ${stdout.slice(0, 200)}`,
    };
  }
  return { result: 'ok', answers: [{ endpoint, client: clientAddress(client) }] };
}

/** Windows: netexec's /dial answers to `hostname` and `clientip`, one socket each (see the header). */
function udpDialsReply(base: string, exitCode: number, stdout: string, stderr: string): ProbeReply {
  if (exitCode !== 0) return curlFailure(exitCode, stderr);
  const host = new URL(base).hostname;
  const bodies: string[] = [];
  for (const transfer of curlTransfers(stdout)) {
    const reply = dialAnswer(host, transfer, stdout);
    if (reply.result !== 'ok') return reply;
    bodies.push(reply.body!); // an answer always has its body
  }
  const [endpoint, client] = bodies;
  if (endpoint === undefined || client === undefined) {
    return { result: 'error', error: `curl printed ${bodies.length} of 2 /dial answers` };
  }
  return { result: 'ok', answers: [{ endpoint, client: clientAddress(client) }] };
}

/** One transfer of a curl run, read from the text before its status line and the line itself. */
interface Transfer {
  status: number;
  body: string;
  bytes: number;
  peer: string | undefined;
  /** New connections curl made for it (%{num_connects}); NaN when not printed. */
  connects: number;
  /** Milliseconds from the name's lookup to the TCP connect (0 on a reused connection); NaN when not printed. */
  connectMs: number;
}

/** curl's stdout cut at each -w status line: one Transfer per URL it fetched. */
function curlTransfers(stdout: string): Transfer[] {
  const transfers: Transfer[] = [];
  let from = 0;
  for (const line of stdout.matchAll(STATUS_LINE)) {
    const [status, bytes = '0', peer, connects, lookedUp, connected] = line[1]!.trim().split(' ');
    transfers.push({
      status: Number(status),
      body: stdout.slice(from, line.index).trim().slice(0, MAX_BODY_CHARS),
      bytes: Number(bytes),
      peer: peer === '' ? undefined : peer,
      connects: Number(connects),
      connectMs: Math.round((Number(connected) - Number(lookedUp)) * 10_000) / 10,
    });
    from = line.index + line[0].length;
  }
  return transfers;
}

/** A transfer's HTTP answer as a reply; a missing or zero status is curl's failure to print one. */
function transferReply(transfer: Transfer | undefined, stdout: string): ProbeReply {
  if (transfer === undefined || !Number.isInteger(transfer.status) || transfer.status === 0) {
    return { result: 'error', error: `curl printed no HTTP status: ${stdout.slice(-200)}` };
  }
  const { status, body, bytes, peer } = transfer;
  const where = peer === undefined ? {} : { peer };
  if (status >= 200 && status < 300) return { result: 'ok', status, body, bytes, ...where };
  return { result: 'http-error', status, body, bytes, ...where, error: `HTTP ${status}` };
}

function httpReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  if (exitCode !== 0) return curlFailure(exitCode, stderr);
  return transferReply(curlTransfers(stdout).at(-1), stdout);
}

/** One connection of a sweep: /hostname's body names the backend, /clientip's the client it saw. */
function endpointsReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  if (exitCode !== 0) return curlFailure(exitCode, stderr);
  const transfers = curlTransfers(stdout);
  for (const [i, path] of ENDPOINT_PATHS.entries()) {
    const reply = transferReply(transfers[i], stdout);
    if (reply.result !== 'ok') return { ...reply, error: `GET ${path}: ${reply.error!}` };
  }
  // Both are there: the loop returned otherwise.
  const [hostname, clientip] = transfers as [Transfer, Transfer];
  if (!Number.isFinite(hostname.connectMs)) {
    return { result: 'error', error: `curl printed no connect time: ${stdout.slice(-200)}` };
  }
  if (hostname.connectMs > SWEEP_CONNECT_MS) {
    const error = `connected after ${hostname.connectMs} ms, over ${SWEEP_CONNECT_MS} ms: a SYN was lost (a retransmission is load-balanced anew)`;
    return { result: 'timeout', error };
  }
  if (clientip.connects > 0) {
    const error = `curl connected anew for ${ENDPOINT_PATHS[1]}; it may have reached another backend`;
    return { result: 'error', error };
  }
  return {
    result: 'ok',
    answers: [{ endpoint: hostname.body, client: clientAddress(clientip.body) }],
    // curl's figure: the exec around it would add the API server's round trip.
    connectMs: hostname.connectMs,
  };
}

/** netexec's /dial answer: the reply datagram, or why there was none (agnhost's error text). */
function dialReply(host: string, exitCode: number, stdout: string, stderr: string): ProbeReply {
  if (exitCode !== 0) return curlFailure(exitCode, stderr);
  return dialAnswer(host, curlTransfers(stdout).at(-1), stdout);
}

/** One /dial transfer's JSON as a reply; `stdout` names what curl printed when it is none. */
function dialAnswer(host: string, answer: Transfer | undefined, stdout: string): ProbeReply {
  let parsed: { responses?: unknown; errors?: unknown };
  try {
    parsed = JSON.parse(answer?.body ?? '') as typeof parsed;
  } catch {
    return { result: 'error', error: `/dial answered no JSON: ${stdout.slice(0, 200)}` };
  }
  const [reply] = Array.isArray(parsed.responses) ? (parsed.responses as unknown[]) : [];
  if (typeof reply === 'string') return { result: 'ok', body: reply, peer: host };
  const [why] = Array.isArray(parsed.errors) ? (parsed.errors as unknown[]) : [];
  // Parsed: there was an answer (JSON.parse('') throws).
  const error = `/dial: ${typeof why === 'string' ? why : `no reply (HTTP ${answer!.status})`}`;
  if (/i\/o timeout/.test(error)) return { result: 'timeout', error };
  return { result: classifyConnectError(error), error };
}

/** DNS_TCP_SCRIPT's output: the server after the marker, then the reply's bytes in hex. */
function dnsTcpScriptReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  const peer = new RegExp(`^${DNS_TCP_MARK}(\\S+)$`, 'm').exec(stdout)?.[1];
  const where = peer === undefined ? {} : { peer };
  const why = lastLine(stderr);
  if (exitCode === 124) {
    return { result: 'timeout', error: `no DNS answer over TCP in time ${why}`.trim(), ...where };
  }
  if (exitCode !== 0) {
    const error = why || `the DNS-over-TCP script exited ${exitCode}`;
    return { result: classifyConnectError(error), error, ...where };
  }
  const hex = stdout.slice(stdout.indexOf('\n') + 1).replace(/\s+/g, '');
  if (!/^([0-9a-f]{2})+$/.test(hex)) {
    return {
      result: 'error',
      error: `the DNS-over-TCP script printed no reply: ${stdout.slice(0, 200)}`,
    };
  }
  return { ...answerOutcome(Buffer.from(hex, 'hex'), TCP_QUERY_ID), ...where };
}

/** dig's header comment (status) and answer section; exit 9 is no reply from any server. */
function digReply(exitCode: number, stdout: string, stderr: string): ProbeReply {
  const said = `${stdout}\n${stderr}`;
  const error =
    said.split(/\r?\n/).findLast((l) => l.startsWith(';;') || l.startsWith('dig')) ?? '';
  if (exitCode === 9) {
    return /refused/i.test(said)
      ? { result: 'refused', error }
      : { result: 'timeout', error: error || 'dig: no reply' };
  }
  const status = /status: ([A-Z]+)/.exec(stdout)?.[1];
  if (exitCode !== 0 || status === undefined) {
    return { result: 'error', error: error || `dig exited ${exitCode}` };
  }
  const answers = stdout.matchAll(/^[^;\s]\S*\s+\d+\s+IN\s+A\s+(\d+(?:\.\d+){3})\s*$/gm);
  return rcodeOutcome(
    status,
    [...answers].map((m) => m[1]!),
  );
}

function dnsReply(exitCode: number, stderr: string): ProbeReply {
  const found = new Set<string>();
  for (const [, list] of stderr.matchAll(/^\* +IPv4: (.+)$/gm)) {
    for (const a of list!.split(/,\s*/)) if (/^\d+(\.\d+){3}$/.test(a.trim())) found.add(a.trim());
  }
  for (const [, a] of stderr.matchAll(/^\* +Trying (\d+(?:\.\d+){3})(?::\d+)?\.\.\./gm)) {
    found.add(a!);
  }
  // Resolved: whatever the connection to port 80 did next is not this probe's business.
  if (found.size > 0) return { result: 'ok', addresses: [...found] };
  return curlFailure(exitCode, stderr);
}

/** The last line of a program's error output ('' when it printed none). */
function lastLine(stderr: string): string {
  return stderr.trim().split('\n').at(-1)!;
}

/** A connect error's text (Linux errno strings and Windows Winsock messages) as a result. */
function classifyConnectError(text: string): ProbeReply['result'] {
  if (/connection refused|actively refused/i.test(text)) return 'refused';
  if (/no route to host|unreachable/i.test(text)) return 'unreachable';
  if (/timed out|did not properly respond/i.test(text)) return 'timeout';
  return 'error';
}

/** curl's exit codes: 6 name not resolved, 7 connect failed, 28 timeout (see curl's man page). */
function curlFailure(exitCode: number, stderr: string): ProbeReply {
  const line = [...stderr.matchAll(/^curl: \(\d+\) (.+)$/gm)].at(-1)?.[1];
  // curl ≥ 7.87 says only "Couldn't connect to server"; -v keeps the socket error.
  const connect = /^\* +(?:connect to .* failed|Immediate connect fail for \S+): (.+)$/m.exec(
    stderr,
  )?.[1];
  const error = [line ?? `curl exited ${exitCode}`, connect].filter(Boolean).join('; ');
  switch (exitCode) {
    case 6:
      return { result: 'nxdomain', error };
    case 7:
      return { result: classifyConnectError([connect, line].join(' ')), error };
    case 28:
      return { result: 'timeout', error };
    default:
      return { result: 'error', error };
  }
}

/** agnhost connect prints one line prefixed TIMEOUT, REFUSED, DNS: or OTHER: on failure. */
function connectReply(exitCode: number, stderr: string): ProbeReply {
  if (exitCode === 0) return { result: 'ok' };
  const error = stderr.trim() || `agnhost connect exited ${exitCode}`;
  if (error.startsWith('TIMEOUT')) return { result: 'timeout', error };
  if (error.startsWith('REFUSED')) return { result: 'refused', error };
  if (error.startsWith('DNS:')) {
    if (/no such host/i.test(error)) return { result: 'nxdomain', error };
    return { result: /timeout|timed out/i.test(error) ? 'timeout' : 'error', error };
  }
  // Go on Windows does not map WSAECONNREFUSED to ECONNREFUSED, so refusals arrive as OTHER.
  if (error.startsWith('OTHER:')) return { result: classifyConnectError(error), error };
  return { result: 'error', error };
}
