/**
 * The perf measures (docs/performance.md) in the project's Debian-built Linux agnhost pods, with
 * the same names, units and losses as the emulated measures (lab/cluster/workload/perf-measures.mjs):
 *
 * - `tcp-rr`: curl against netexec's /echo, ten requests per curl on one kept connection, until
 *   the duration passed; `tcp-crr`: one curl (a new connection) per /hostname request. Each
 *   request's `%{time_total}`; a request that failed or took REQUEST_LIMIT_MS (curl's -m) failed,
 *   one that took RETRANSMISSION_WAIT_MS or more waited. Rates count curl's own start-up too.
 * - streams: iperf3 (Debian's, in the image: vagrant/artifacts/kubernetes/build.sh) against the
 *   iperf3 server the driver starts in the target pod, `-J` read for the rate that arrived, the
 *   sender's retransmissions and UDP's lost datagrams; iperf3 runs whole seconds (at least one).
 * - TCP measures count the client namespace's segments sent and retransmitted (/proc/net/snmp
 *   before and after, as the emulated client does); the server's in a reverse stream come from
 *   iperf3 (its retransmissions; segments sent estimated from bytes and the MSS).
 */
import type { PerfMeasure } from '../../../lab/contracts/cells.ts';
import type { PerfFigures } from '../../../lab/contracts/results-file.ts';
import type { PerfCell, ProbeReply, ProbeRequest } from '../../model/lab-driver.ts';
import {
  REQUEST_LIMIT_MS,
  RETRANSMISSION_WAIT_MS,
  UDP_DATAGRAM_BYTES,
} from '../../../lab/cluster/workload/perf-measures.mjs';
import { snmpTcpCounters } from '../../../lab/cluster/workload/perf-server.mjs';
import type { ExecResult } from './exec-in-pod.ts';

type PerfRequest = Extract<ProbeRequest, { kind: 'perf' }>;

/** Where the driver's iperf3 servers listen (iperf3's default port). */
export const IPERF_PORT = 5201;
/** The project's Debian-built agnhost image carries bash, curl and iperf3. */
const PERF_IMAGE = /^hybrid-lab\/agnhost:/;
const REQUESTS_PER_CURL = 10;
const MARK = '--hl-perf-';

/** Why the perf cell cannot be measured with these images, or undefined when it can. */
export function perfUnsupportedReason(cell: PerfCell, linuxImage: string): string | undefined {
  const stream = cell.measure !== 'tcp-rr' && cell.measure !== 'tcp-crr';
  if (cell.from === 'windows')
    return 'perf measures from Windows pods: the Windows agnhost image has no iperf3 and no shell to time requests in';
  if (stream && cell.to === 'windows')
    return 'perf streams to Windows pods: the Windows agnhost image has no iperf3 server';
  if (!PERF_IMAGE.test(linuxImage))
    return `perf measures need bash, curl and iperf3 in the Linux image; ${linuxImage} is not the project's Debian-built hybrid-lab/agnhost (vagrant/artifacts/kubernetes/build.sh)`;
  if (stream && cell.network === 'service')
    return "perf streams through a Service: it balances iperf3's control and data connections separately, so they may reach two backends";
  return undefined;
}

/**
 * Starts an iperf3 server in the background of the pod it runs in (once per pod), listening on
 * `address` only: in a host-network pod that is the node's address, not every one the node has.
 */
export function iperfServerCommand(address: string, port = IPERF_PORT): string[] {
  return ['iperf3', '-s', '-D', '-B', address, '-p', String(port), '--idle-timeout', '30'];
}

// $1 measure, $2 base URL, $3 duration (ms), $4 iperf3 host, $5 iperf3 seconds, $6 UDP Mbit/s,
// $7 iperf3 port.
const SCRIPT = `set -u
counters() { grep '^Tcp:' /proc/net/snmp | sed "s/^/${MARK}$1:/"; }
ms() { local t=\${EPOCHREALTIME/./}; echo $((t / 1000)); }
limit=${(REQUEST_LIMIT_MS / 1000).toFixed(1)}
counters before
case $1 in
tcp-rr | tcp-crr)
  b=$(curl -sSf -m $limit "$2/hostname" 2>/dev/null) && echo "${MARK}backend:$b"
  start=$(ms)
  while [ "$(ms)" -lt $((start + $3)) ]; do
    if [ "$1" = tcp-rr ]; then url="$2/echo?msg=[1-${REQUESTS_PER_CURL}]"; else url="$2/hostname"; fi
    curl -s -m $limit --connect-timeout $limit -o /dev/null -w '\\n${MARK}request:%{http_code} %{time_total}\\n' "$url"
  done
  echo "${MARK}elapsed:$(($(ms) - start))" ;;
*)
  case $1 in
  tcp-stream) flags=() ;;
  tcp-stream-reverse) flags=(-R) ;;
  *) flags=(-u -b "$6M" -l ${UDP_DATAGRAM_BYTES}) ;;
  esac
  echo "${MARK}iperf3"
  iperf3 -c "$4" -p "$7" -t "$5" -J --connect-timeout ${REQUEST_LIMIT_MS} "\${flags[@]}"
  echo "${MARK}iperf3-exit:$?" ;;
esac
counters after
`;

/** The argv that runs `request` in a Linux pod of the project's image. */
export function perfCommand(request: PerfRequest, iperfPort = IPERF_PORT): string[] {
  const host = new URL(request.base).hostname.replace(/^\[(.*)\]$/, '$1');
  const seconds = Math.max(1, Math.ceil(request.durationMs / 1000));
  return [
    'bash',
    '-c',
    SCRIPT,
    'perf',
    request.measure,
    request.base,
    String(request.durationMs),
    host,
    String(seconds),
    String(request.rateMbps ?? 4),
    String(iperfPort),
  ];
}

/** The nearest-rank percentile of sorted values, as the emulated measures take it. */
function pct(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

const tenths = (n: number) => Math.round(n * 10) / 10;

/** The lines after `${MARK}name:`, their rest. */
function marked(stdout: string, name: string): string[] {
  const prefix = `${MARK}${name}:`;
  return stdout
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
}

/** Segments the client namespace sent and retransmitted between the two counter dumps. */
function clientSegments(stdout: string): Pick<PerfFigures, 'sent' | 'retransmitted'> {
  const before = snmpTcpCounters(marked(stdout, 'before').join('\n'));
  const after = snmpTcpCounters(marked(stdout, 'after').join('\n'));
  if (before === undefined || after === undefined) return {};
  return {
    sent: after.sent - before.sent,
    retransmitted: after.retransmitted - before.retransmitted,
  };
}

/** The rr/crr figures from curl's status lines. */
export function requestFigures(stdout: string, durationMs: number): Omit<PerfFigures, 'measure'> {
  const requests = marked(stdout, 'request').map((l) => {
    const [code = '', seconds = ''] = l.trim().split(' ');
    return { ok: code === '200', ms: Number(seconds) * 1000 };
  });
  const times = requests
    .filter((r) => r.ok && r.ms < REQUEST_LIMIT_MS)
    .map((r) => tenths(r.ms))
    .sort((a, b) => a - b);
  const elapsed = Number(marked(stdout, 'elapsed')[0]);
  const ranMs = Number.isFinite(elapsed) && elapsed > 0 ? elapsed : durationMs;
  const backend = marked(stdout, 'backend')[0]?.trim();
  return {
    durationMs: ranMs,
    transactions: times.length,
    ratePerS: Math.round((times.length * 1000) / ranMs),
    p50Ms: pct(times, 0.5),
    p90Ms: pct(times, 0.9),
    p99Ms: pct(times, 0.99),
    waited: times.filter((ms) => ms >= RETRANSMISSION_WAIT_MS).length,
    failed: requests.length - times.length,
    attempts: requests.length,
    ...(backend ? { backend } : {}),
  };
}

interface IperfSum {
  seconds?: number;
  bytes?: number;
  bits_per_second?: number;
  retransmits?: number;
  packets?: number;
  lost_packets?: number;
}
interface IperfJson {
  error?: string;
  start?: { tcp_mss_default?: number };
  end?: { sum?: IperfSum; sum_sent?: IperfSum; sum_received?: IperfSum };
}

/** A stream's figures from `iperf3 -J`; throws with iperf3's own error when it measured nothing. */
export function iperfFigures(
  measure: PerfMeasure,
  json: string,
): Omit<PerfFigures, 'measure' | 'sent' | 'retransmitted'> {
  const said = JSON.parse(json) as IperfJson;
  if (said.error !== undefined) throw new Error(`iperf3: ${said.error}`);
  const received = said.end?.sum_received ?? said.end?.sum;
  if (received?.bits_per_second === undefined) throw new Error('iperf3: no sum_received in -J');
  const durationMs = Math.round((received.seconds ?? 0) * 1000);
  const mbps = tenths(received.bits_per_second / 1e6);
  if (measure === 'udp-stream') {
    const attempts = received.packets ?? 0;
    return { durationMs, mbps, failed: Math.min(received.lost_packets ?? 0, attempts), attempts };
  }
  const sender = said.end?.sum_sent;
  const mss = said.start?.tcp_mss_default;
  // Reverse: the server sent; iperf3 reports its retransmissions, and bytes over MSS its segments.
  const server =
    measure === 'tcp-stream-reverse' && sender?.retransmits !== undefined && mss
      ? {
          serverRetransmitted: sender.retransmits,
          serverSent: Math.ceil((sender.bytes ?? 0) / mss),
        }
      : {};
  return { durationMs, mbps, failed: 0, attempts: 1, ...server };
}

/** What the measure's exec printed, as the probe reply the emulated probe would give. */
export function perfReply(request: PerfRequest, result: ExecResult): ProbeReply {
  if (result.exitCode === null)
    return {
      result: 'error',
      error: `exec failed: ${result.status.message ?? result.status.reason ?? 'no exit code'}`,
    };
  const { stdout } = result;
  const tcp = request.measure.startsWith('tcp');
  const segments = tcp ? clientSegments(stdout) : {};
  try {
    const figures =
      request.measure === 'tcp-rr' || request.measure === 'tcp-crr'
        ? requestFigures(stdout, request.durationMs)
        : iperfFigures(request.measure, iperfJson(stdout));
    const perf: PerfFigures = { measure: request.measure, ...figures, ...segments };
    const answered = (perf.transactions ?? 0) > 0 || (perf.mbps ?? 0) > 0;
    if (answered) return { result: 'ok', perf };
    return {
      result: 'timeout',
      perf,
      error: `${request.measure}: nothing answered in ${perf.durationMs} ms`,
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const text = why.includes('refused')
      ? 'refused'
      : why.includes('timed out')
        ? 'timeout'
        : 'error';
    return { result: text, error: `${why} ${result.stderr.trim().slice(0, 300)}`.trim() };
  }
}

/** The JSON iperf3 printed between its markers. */
function iperfJson(stdout: string): string {
  const begin = stdout.indexOf(`${MARK}iperf3\n`);
  const end = stdout.indexOf(`${MARK}iperf3-exit:`);
  if (begin < 0 || end < 0) throw new Error('iperf3 did not run (no output between its markers)');
  const json = stdout.slice(begin + `${MARK}iperf3\n`.length, end).trim();
  if (json === '') throw new Error('iperf3 printed nothing');
  return json;
}
