// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import { V1Service, V1Status } from '@kubernetes/client-node';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { PERF_ELSEWHERE, probeCommand, replyFromExec } from './agnhost-probe.ts';
import { execInPod, type ExecResult } from './exec-in-pod.ts';
import { FakeExec } from '../../testing/kube-fake-exec.ts';
import {
  execRun,
  exitStatus,
  RECORDED,
  recordedResponse,
  recordedService,
  replay,
  statusFrame,
  statusOnPoll,
} from '../../testing/kube-recorded-objects.ts';

const ran = (exitCode: number, stdout: string, stderr = ''): ExecResult => ({
  exitCode,
  stdout,
  stderr,
  status: exitStatus(exitCode),
});
const http: ProbeRequest = { kind: 'http', url: 'http://10.244.2.7:8080/clientip' };
const dns: ProbeRequest = { kind: 'dns', name: 'web-linux' };
const tcp: ProbeRequest = { kind: 'tcp', host: '10.244.2.7', port: 8080 };
const endpoints: ProbeRequest = {
  kind: 'endpoints',
  base: 'http://10.96.101.21:80',
  service: 'web-linux',
  expect: ['netexec-lin1-a', 'netexec-lin2-a'],
  maxRequests: 8,
};
/** What curl prints for one endpoints connection: each body, then its status line. */
const transfers = (
  ...answers: [body: string, status: number, connects: number, times?: string][]
) =>
  answers
    .map(([body, status, connects, times = '0.000010 0.000400']) => {
      const line = `--hybrid-lab-status:${status} ${body.length} 10.96.101.21 ${connects} ${times}`;
      return `${body}\n${line}\n`;
    })
    .join('');

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
  it('runs http and dns through curl (curl.exe on Windows) and tcp through agnhost connect', () => {
    expect(probeCommand('linux', http, 3000)).to.deep.equal([
      'curl',
      '-sS',
      '-v',
      '--connect-timeout',
      '3.000',
      '-m',
      '3.000',
      '-w',
      '\\n--hybrid-lab-status:%{http_code} %{size_download} %{remote_ip}',
      'http://10.244.2.7:8080/clientip',
    ]);
    expect(probeCommand('windows', http, 3000)[0]).to.equal('curl.exe');
    expect(probeCommand('windows', dns, 2500)).to.deep.equal([
      'curl.exe',
      '-4',
      '-sS',
      '-v',
      '--connect-timeout',
      '2.500',
      '-m',
      '2.500',
      'http://web-linux:80/',
    ]);
    expect(probeCommand('windows', tcp, 3000)).to.deep.equal([
      '/agnhost',
      'connect',
      '--timeout=3000ms',
      '10.244.2.7:8080',
    ]);
  });

  it('brackets an IPv6 address for agnhost connect', () => {
    expect(
      probeCommand('linux', { kind: 'tcp', host: 'fd00:10:244::7', port: 8080 }, 3000),
    ).to.deep.equal(['/agnhost', 'connect', '--timeout=3000ms', '[fd00:10:244::7]:8080']);
  });

  it('refuses a perf request, which perf-in-pod.ts runs instead', () => {
    const perf: ProbeRequest = {
      kind: 'perf',
      measure: 'tcp-rr',
      base: 'http://10.244.2.7:5201',
      durationMs: 10000,
    };
    expect(() => probeCommand('linux', perf, 3000)).to.throw(PERF_ELSEWHERE);
    expect(replyFromExec(perf, ran(0, ''))).to.deep.equal({
      result: 'error',
      error: PERF_ELSEWHERE,
    });
  });

  describe('http', () => {
    it('returns the body the far end sent (/clientip: IP:PORT), its size, the status and where curl connected', () => {
      const reply = replyFromExec(
        http,
        ran(0, '10.244.1.5:43512\n--hybrid-lab-status:200 16 10.244.2.7', '* Connected'),
      );
      expect(reply).to.deep.equal({
        result: 'ok',
        status: 200,
        body: '10.244.1.5:43512',
        bytes: 16,
        // The address a name led to, checked against the target pod.
        peer: '10.244.2.7',
      });
      // An older curl without %{remote_ip}: no peer, rather than a wrong one.
      expect(replyFromExec(http, ran(0, 'x\n--hybrid-lab-status:200 1'))).to.not.have.property(
        'peer',
      );
    });

    it('speaks TLS to an https URL without checking the certificate, and reads a 403 as an answer', () => {
      const https: ProbeRequest = { kind: 'http', url: 'https://10.96.0.1:443/version' };
      const argv = probeCommand('linux', https, 3000);
      expect(argv.slice(0, 4)).to.deep.equal(['curl', '-sS', '-v', '-k']);
      expect(argv.at(-1)).to.equal('https://10.96.0.1:443/version');
      expect(probeCommand('windows', https, 3000).slice(0, 4)).to.deep.equal([
        'curl.exe',
        '-sS',
        '-v',
        '-k',
      ]);
      expect(probeCommand('linux', http, 3000)).to.not.include('-k');
      const reply = replyFromExec(
        https,
        ran(0, '{"kind":"Status","code":403}\n--hybrid-lab-status:403 28 10.96.0.1'),
      );
      expect(reply).to.include({ result: 'http-error', status: 403, peer: '10.96.0.1' });
    });

    it('reports a non-2xx answer as http-error with its status', () => {
      const reply = replyFromExec(http, ran(0, '404 page not found\n--hybrid-lab-status:404 18'));
      expect(reply).to.include({ result: 'http-error', status: 404, body: '404 page not found' });
    });

    it('takes 2xx only as an answer: a redirect (curl does not follow one) or a 1xx is not', () => {
      const answer = (status: number) =>
        replyFromExec(http, ran(0, `body\n--hybrid-lab-status:${status} 4`)).result;
      expect([199, 200, 204, 299, 300, 301, 304].map(answer)).to.deep.equal([
        'http-error',
        'ok',
        'ok',
        'ok',
        'http-error',
        'http-error',
        'http-error',
      ]);
      expect(replyFromExec(http, ran(0, '\n--hybrid-lab-status:302 0'))).to.deep.include({
        result: 'http-error',
        status: 302,
        error: 'HTTP 302',
      });
    });

    it('a sweep connection redirected on /hostname or /clientip is not an answer', () => {
      const connection = (hostname: number, clientip: number) =>
        ran(
          0,
          [
            `netexec-lin1-a\n--hybrid-lab-status:${hostname} 14 10.96.101.21 1 0.000012 0.000390\n`,
            `10.244.1.5:43512\n--hybrid-lab-status:${clientip} 16 10.96.101.21 0 0.000000 0.000000\n`,
          ].join(''),
        );
      expect(replyFromExec(endpoints, connection(200, 200)).result).to.equal('ok');
      expect(replyFromExec(endpoints, connection(301, 200))).to.deep.include({
        result: 'http-error',
        error: 'GET /hostname: HTTP 301',
      });
      expect(replyFromExec(endpoints, connection(200, 307))).to.deep.include({
        result: 'http-error',
        error: 'GET /clientip: HTTP 307',
      });
    });

    it('reads a status of 000 as curl printing none, quoting the end of its output', () => {
      const stdout = `${'x'.repeat(300)}\n--hybrid-lab-status:000 0 `;
      expect(replyFromExec(http, ran(0, stdout))).to.deep.equal({
        result: 'error',
        error: `curl printed no HTTP status: ${stdout.slice(-200)}`,
      });
    });

    it('cuts a long body to 4096 characters, keeps its full size, and reads a CRLF status line', () => {
      const body = 'a'.repeat(5000);
      const stdout = `${body}\n--hybrid-lab-status:200 5000 10.244.2.7\r\n`;
      expect(replyFromExec(http, ran(0, stdout))).to.deep.equal({
        result: 'ok',
        status: 200,
        body: 'a'.repeat(4096),
        bytes: 5000,
        peer: '10.244.2.7',
      });
    });

    it('names the curl error line and the socket error, joined, or the exit when curl printed none', () => {
      const stderr = [
        '*   Trying 10.244.9.9:8080...',
        '*   Immediate connect fail for 10.244.9.9: Network is unreachable',
        "curl: (7) Couldn't connect to server",
      ].join('\n');
      expect(replyFromExec(http, ran(7, '', stderr))).to.deep.equal({
        result: 'unreachable',
        error: "Couldn't connect to server; Network is unreachable",
      });
      expect(replyFromExec(http, ran(35, '', '* TLS handshake failed'))).to.deep.equal({
        result: 'error',
        error: 'curl exited 35',
      });
    });

    it('reads curl 7 lines only at the start of a line, and the older error line alone', () => {
      // An answer header quoting curl's words is not curl's own line.
      const stderr = [
        '< X-Note: * connect to 10.0.0.1 port 80 failed: Connection refused',
        '* connect to 10.244.2.7 port 8080 failed: Connection timed out',
        'curl: (7) Failed to connect to 10.244.2.7 port 8080: Connection timed out',
        '< X-Note: curl: (6) Could not resolve host: elsewhere',
      ].join('\n');
      expect(replyFromExec(http, ran(7, '', stderr))).to.deep.equal({
        result: 'timeout',
        error:
          'Failed to connect to 10.244.2.7 port 8080: Connection timed out; Connection timed out',
      });
      const older = 'curl: (7) Failed to connect to 10.244.2.7 port 8080: Connection refused';
      expect(replyFromExec(http, ran(7, '', older))).to.deep.equal({
        result: 'refused',
        error: older.slice(10),
      });
    });

    it('reads refused out of curl 8 verbose output, where the error line no longer says it', () => {
      const stderr = [
        '*   Trying 10.244.2.7:8080...',
        '* connect to 10.244.2.7 port 8080 from 10.244.1.5 port 51234 failed: Connection refused',
        "* Failed to connect to 10.244.2.7 port 8080 after 1 ms: Couldn't connect to server",
        "curl: (7) Failed to connect to 10.244.2.7 port 8080 after 1 ms: Couldn't connect to server",
      ].join('\n');
      const reply = replyFromExec(http, ran(7, '\n--hybrid-lab-status:000 0', stderr));
      expect(reply.result).to.equal('refused');
      expect(reply.error).to.contain('Connection refused');
    });

    it('maps no route to host to unreachable, exit 28 to timeout, exit 6 to nxdomain', () => {
      const noRoute =
        '* connect to 10.244.9.9 port 8080 failed: No route to host\ncurl: (7) Failed to connect to 10.244.9.9 port 8080: No route to host';
      expect(replyFromExec(http, ran(7, '', noRoute)).result).to.equal('unreachable');
      const slow = 'curl: (28) Connection timed out after 3001 milliseconds';
      expect(replyFromExec(http, ran(28, '', slow))).to.deep.equal({
        result: 'timeout',
        error: 'Connection timed out after 3001 milliseconds',
      });
      const unknown = 'curl: (6) Could not resolve host: netexec-nosuch-a.netexec';
      expect(replyFromExec(http, ran(6, '', unknown)).result).to.equal('nxdomain');
    });
  });

  describe('endpoints (one connection per exec; the driver sweeps)', () => {
    it('fetches /hostname then /clientip in one curl run, failing early, the two sharing the budget', () => {
      expect(probeCommand('linux', endpoints, 3000)).to.deep.equal([
        'curl',
        '-sS',
        '-v',
        '--fail-early',
        '--connect-timeout',
        '1.500',
        '-m',
        '1.500',
        '-w',
        '\\n--hybrid-lab-status:%{http_code} %{size_download} %{remote_ip} %{num_connects} %{time_namelookup} %{time_connect}\\n',
        'http://10.96.101.21/hostname',
        'http://10.96.101.21/clientip',
      ]);
      const windows = probeCommand('windows', { ...endpoints, base: 'http://web-linux' }, 3000);
      expect(windows.slice(0, 2)).to.deep.equal(['curl.exe', '-4']);
      expect(windows.slice(-2)).to.deep.equal([
        'http://web-linux/hostname',
        'http://web-linux/clientip',
      ]);
    });

    it('reads the backend from the first transfer and the client IP, port stripped, from the second', () => {
      const stdout = transfers(['netexec-lin2-a', 200, 1], ['10.244.1.5:43512', 200, 0]);
      expect(replyFromExec(endpoints, ran(0, stdout))).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'netexec-lin2-a', client: '10.244.1.5' }],
        // curl's own connect time (0.4 ms connected - 0.01 ms looked up), not the exec's.
        connectMs: 0.4,
      });
    });

    it('judges the SYN from the lookup on: a slow lookup passes, a connect over 900 ms lost its first SYN', () => {
      // Looked up in 2.4 s (an emulated VM's resolver), connected 3 ms later: answered.
      const slowLookup = transfers(
        ['netexec-lin2-a', 200, 1, '2.400000 2.403000'],
        ['10.244.1.5:43512', 200, 0],
      );
      expect(replyFromExec(endpoints, ran(0, slowLookup)).result).to.equal('ok');
      // Looked up at once, connected 1.02 s later: the first SYN went unanswered.
      const lostSyn = transfers(
        ['netexec-lin2-a', 200, 1, '0.000010 1.020010'],
        ['10.244.1.5:43512', 200, 0],
      );
      expect(replyFromExec(endpoints, ran(0, lostSyn))).to.deep.equal({
        result: 'timeout',
        error:
          'connected after 1020 ms, over 900 ms: a SYN was lost (a retransmission is load-balanced anew)',
      });
      const untimed = transfers(['netexec-lin2-a', 200, 1, ''], ['10.244.1.5:43512', 200, 0]);
      expect(replyFromExec(endpoints, ran(0, untimed)).error).to.match(
        /^curl printed no connect time/,
      );
    });

    it('passes a connect of exactly 900 ms, and quotes the end of an untimed output', () => {
      const atLimit = transfers(
        ['netexec-lin2-a', 200, 1, '0.000000 0.900000'],
        ['10.244.1.5:43512', 200, 0],
      );
      expect(replyFromExec(endpoints, ran(0, atLimit))).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'netexec-lin2-a', client: '10.244.1.5' }],
        connectMs: 900,
      });
      const untimed = transfers(
        [`netexec-lin2-a${'-'.repeat(300)}`, 200, 1, ''],
        ['10.244.1.5:43512', 200, 0],
      );
      expect(replyFromExec(endpoints, ran(0, untimed))).to.deep.equal({
        result: 'error',
        error: `curl printed no connect time: ${untimed.slice(-200)}`,
      });
    });

    it('names no peer for a transfer whose status line has an empty remote address', () => {
      const stdout = '404 page not found\n--hybrid-lab-status:404 18  1 0.000010 0.000400\n';
      expect(replyFromExec(endpoints, ran(0, stdout))).to.deep.equal({
        result: 'http-error',
        status: 404,
        body: '404 page not found',
        bytes: 18,
        error: 'GET /hostname: HTTP 404',
      });
    });

    it('reports a 404 on /clientip as http-error naming the path', () => {
      const stdout = transfers(['netexec-lin2-a', 200, 1], ['404 page not found', 404, 0]);
      expect(replyFromExec(endpoints, ran(0, stdout))).to.include({
        result: 'http-error',
        status: 404,
        body: '404 page not found',
        error: 'GET /clientip: HTTP 404',
      });
    });

    it('classifies a failed connect as http does (curl 8: refused only in the -v output)', () => {
      const stderr = [
        '* connect to 10.96.101.21 port 80 from 10.244.1.5 port 51234 failed: Connection refused',
        "curl: (7) Failed to connect to 10.96.101.21 port 80 after 1 ms: Couldn't connect to server",
      ].join('\n');
      const reply = replyFromExec(endpoints, ran(7, transfers(['', 0, 1]), stderr));
      expect(reply.result).to.equal('refused');
      expect(reply.error).to.contain('Connection refused');
    });

    it('rejects a /clientip answer that came over a new connection, or a missing transfer', () => {
      const anew = transfers(['netexec-lin2-a', 200, 1], ['10.244.1.5:43512', 200, 1]);
      expect(replyFromExec(endpoints, ran(0, anew))).to.deep.equal({
        result: 'error',
        error: 'curl connected anew for /clientip; it may have reached another backend',
      });
      const one = replyFromExec(endpoints, ran(0, transfers(['netexec-lin2-a', 200, 1])));
      expect(one.result).to.equal('error');
      expect(one.error).to.match(/^GET \/clientip: curl printed no HTTP status/);
    });
  });

  describe('endpoints over UDP (one socket per exec on Linux; two /dial calls on Windows)', () => {
    const sweep: ProbeRequest = {
      kind: 'endpoints',
      base: 'udp://10.96.101.21:8081',
      service: 'web-linux',
      expect: ['netexec-lin2-b'],
      maxRequests: 20,
    };

    it('runs a bash script on Linux: one /dev/udp socket, a reply per question within half the budget', () => {
      const argv = probeCommand('linux', sweep, 3000);
      expect(argv.slice(0, 2)).to.deep.equal(['bash', '-c']);
      expect(argv.slice(3)).to.deep.equal(['udp-sweep', '10.96.101.21', '8081', '1.500']);
      expect(argv[2]).to.contain('exec 3<>"/dev/udp/$1/$2"');
      expect(argv[2]).to.contain('timeout "$3" dd bs=4096 count=1 status=none <&3');
    });

    it('asks netexec /dial for hostname then clientip on Windows, in one curl run', () => {
      const argv = probeCommand('windows', sweep, 3000);
      expect(argv[0]).to.equal('curl.exe');
      const dials = argv.slice(-2).map((href) => Object.fromEntries(new URL(href).searchParams));
      expect(dials.map((d) => d.request)).to.deep.equal(['hostname', 'clientip']);
      expect(dials[0]).to.include({
        protocol: 'udp',
        host: '10.96.101.21',
        port: '8081',
        tries: '1',
      });
    });

    it("pairs the Linux script's two replies (as bash printed them for netexec)", () => {
      const stdout =
        'netexec-lin2-b\n--hybrid-lab-udp:hostname\n10.244.1.5:43775\n--hybrid-lab-udp:clientip\n';
      expect(replyFromExec(sweep, ran(0, stdout), 'linux')).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'netexec-lin2-b', client: '10.244.1.5' }],
      });
    });

    it("maps the script's failures: 124 timeout, refused, a name bash could not resolve", () => {
      expect(replyFromExec(sweep, ran(124, 'netexec-lin2-b\n'), 'linux').result).to.equal(
        'timeout',
      );
      const refused = "dd: error reading 'standard input': Connection refused\n";
      expect(replyFromExec(sweep, ran(1, '', refused), 'linux')).to.deep.equal({
        result: 'refused',
        error: refused.trim(),
      });
      const unknown = [
        'udp-sweep: line 1: web-linux.x: Name or service not known',
        'udp-sweep: line 1: /dev/udp/web-linux.x/8081: Invalid argument',
      ].join('\n');
      expect(replyFromExec(sweep, ran(6, '', unknown), 'linux').result).to.equal('nxdomain');
    });

    it('asks /dial with curl.exe failing early, the two sharing half the budget (Windows)', () => {
      const argv = probeCommand('windows', sweep, 3000);
      expect(argv.slice(0, -2)).to.deep.equal([
        'curl.exe',
        '-sS',
        '--fail-early',
        '-m',
        '1.500',
        '-w',
        '\n--hybrid-lab-status:%{http_code}\n',
      ]);
    });

    it("words the Linux script's failures: the last stderr line, or its exit", () => {
      expect(replyFromExec(sweep, ran(124, ''), 'linux')).to.deep.equal({
        result: 'timeout',
        error: 'no UDP reply in time',
      });
      expect(
        replyFromExec(sweep, ran(124, '', 'udp-sweep: line 4: killed\n'), 'linux'),
      ).to.deep.equal({
        result: 'timeout',
        error: 'no UDP reply in time udp-sweep: line 4: killed',
      });
      const unknown = 'udp-sweep: line 1: web-linux.x: Name or service not known\n';
      expect(replyFromExec(sweep, ran(1, '', unknown), 'linux')).to.deep.equal({
        result: 'nxdomain',
        error: 'udp-sweep: line 1: web-linux.x: Name or service not known',
      });
      expect(replyFromExec(sweep, ran(6, ''), 'linux')).to.deep.equal({
        result: 'error',
        error: 'the UDP sweep script exited 6',
      });
    });

    it('cuts a long Linux reply to 4096 characters, and reports output with no marker lines', () => {
      const long = 'h'.repeat(5000);
      const stdout = `${long}\n--hybrid-lab-udp:hostname\n10.244.1.5:43775\n--hybrid-lab-udp:clientip\n`;
      expect(replyFromExec(sweep, ran(0, stdout), 'linux')).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'h'.repeat(4096), client: '10.244.1.5' }],
      });
      const unmarked = 'n'.repeat(300);
      expect(replyFromExec(sweep, ran(0, unmarked), 'linux')).to.deep.equal({
        result: 'error',
        error: `the UDP sweep script printed no answers: ${'n'.repeat(200)}`,
      });
    });

    it('reads a failed Windows curl as curl, and counts the /dial answers it printed', () => {
      expect(
        replyFromExec(
          sweep,
          ran(28, '', 'curl: (28) Operation timed out after 1500 milliseconds'),
          'windows',
        ),
      ).to.deep.equal({ result: 'timeout', error: 'Operation timed out after 1500 milliseconds' });
      const one = '{"responses":["netexec-lin2-b"]}\n--hybrid-lab-status:200\n';
      expect(replyFromExec(sweep, ran(0, one), 'windows')).to.deep.equal({
        result: 'error',
        error: 'curl printed 1 of 2 /dial answers',
      });
    });

    it('pairs the Windows /dial answers, and reports a /dial error', () => {
      const ok = [
        '{"responses":["netexec-lin2-b"]}\n--hybrid-lab-status:200',
        '{"responses":["10.244.4.2:51002"]}\n--hybrid-lab-status:200',
      ].join('\n');
      expect(replyFromExec(sweep, ran(0, ok), 'windows')).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'netexec-lin2-b', client: '10.244.4.2' }],
      });
      const lost = [
        '{"responses":["netexec-lin2-b"]}\n--hybrid-lab-status:200',
        '{"errors":["reading from udp connection failed. err:\'read udp 10.244.4.2:51003->10.96.101.21:8081: i/o timeout\'"]}\n--hybrid-lab-status:200',
      ].join('\n');
      expect(replyFromExec(sweep, ran(0, lost), 'windows').result).to.equal('timeout');
    });
  });

  describe('dns', () => {
    it('collects the addresses curl 8 resolved, whatever the connection did next', () => {
      const stderr = [
        '* Host web-linux:80 was resolved.',
        '* IPv6: (none)',
        '* IPv4: 10.96.101.21',
        '*   Trying 10.96.101.21:80...',
        '* Connected to web-linux (10.96.101.21) port 80',
      ].join('\n');
      expect(replyFromExec(dns, ran(0, 'NOW: 2025-01-01', stderr))).to.deep.equal({
        result: 'ok',
        addresses: ['10.96.101.21'],
      });
    });

    it('reads the older curl 7.5x "Trying" line (Windows) even when the connect then times out', () => {
      const stderr =
        '*   Trying 10.96.0.1...\n* TCP_NODELAY set\n* Connection timed out after 3000 milliseconds\ncurl: (28) Connection timed out after 3000 milliseconds';
      expect(
        replyFromExec({ kind: 'dns', name: 'kubernetes.default' }, ran(28, '', stderr)),
      ).to.deep.equal({ result: 'ok', addresses: ['10.96.0.1'] });
    });

    it('keeps only the dotted-quad entries of an IPv4 list, however they are separated', () => {
      const stderr = [
        '* Host web-linux:80 was resolved.',
        '* IPv4: x10.96.0.3, 10.96.0.4x,10.96.101.21, 10.96.101.22 ',
        '* Connected to web-linux (10.96.101.21) port 80',
      ].join('\n');
      expect(replyFromExec(dns, ran(0, '', stderr))).to.deep.equal({
        result: 'ok',
        addresses: ['10.96.101.21', '10.96.101.22'],
      });
      const none = '* IPv6: (none)\n* IPv4: (none)\ncurl: (6) Could not resolve host: web-linux';
      expect(replyFromExec(dns, ran(6, '', none))).to.deep.equal({
        result: 'nxdomain',
        error: 'Could not resolve host: web-linux',
      });
    });

    it('reads resolver lines only at the start of a line, however curl indents them', () => {
      const stderr = [
        '*  IPv4: 10.96.101.21',
        '< X-Note: * IPv4: 10.96.0.9',
        '< X-Note: *   Trying 10.96.0.8...',
        'curl: (52) Empty reply from server',
      ].join('\n');
      expect(replyFromExec(dns, ran(52, '', stderr))).to.deep.equal({
        result: 'ok',
        addresses: ['10.96.101.21'],
      });
    });

    it('maps an unresolvable name to nxdomain and a resolver timeout to timeout', () => {
      const nx = '* Could not resolve host: nosuch\ncurl: (6) Could not resolve host: nosuch';
      expect(replyFromExec(dns, ran(6, '', nx))).to.deep.equal({
        result: 'nxdomain',
        error: 'Could not resolve host: nosuch',
      });
      const slow = 'curl: (28) Resolving timed out after 3000 milliseconds';
      expect(replyFromExec(dns, ran(28, '', slow)).result).to.equal('timeout');
    });
  });

  describe('dns-tcp (a bash script on Linux, BIND dig +tcp on Windows)', () => {
    const dnsTcp: ProbeRequest = { kind: 'dns-tcp', name: 'web-linux.ns1.svc.cluster.local' };
    it('sends the query dns-wire.mjs builds as printf escapes, under timeout; dig on Windows', () => {
      const linux = probeCommand('linux', dnsTcp, 2000);
      expect(linux.slice(0, 4)).to.deep.equal(['timeout', '2.000', 'bash', '-c']);
      expect(linux[4]).to.contain('exec 3<>"/dev/tcp/$ns/53"');
      // Length 49, id 0x686c, RD, one question: 9 "web-linux" 3 "ns1" …, type A, class IN.
      expect(linux[6]).to.match(/^\\x00\\x31\\x68\\x6c\\x01\\x00\\x00\\x01(\\x00){6}\\x09\\x77/);
      expect(linux[6]).to.match(/\\x00\\x00\\x01\\x00\\x01$/);
      expect(probeCommand('windows', dnsTcp, 2500)).to.deep.equal([
        'dig.exe',
        '+tcp',
        '+tries=1',
        '+time=3',
        '+noall',
        '+comments',
        '+answer',
        'web-linux.ns1.svc.cluster.local',
      ]);
    });

    it("maps the script's failures: 124 timeout, a refused connect, no nameserver", () => {
      const server = '--hybrid-lab-dns-tcp:10.96.0.10\n';
      expect(replyFromExec(dnsTcp, ran(124, server))).to.deep.equal({
        result: 'timeout',
        error: 'no DNS answer over TCP in time',
        peer: '10.96.0.10',
      });
      const refused =
        'bash: connect: Connection refused\nbash: line 7: /dev/tcp/10.96.0.10/53: Connection refused';
      expect(replyFromExec(dnsTcp, ran(6, server, refused))).to.include({
        result: 'refused',
        peer: '10.96.0.10',
      });
      expect(replyFromExec(dnsTcp, ran(5, '', 'no nameserver in /etc/resolv.conf'))).to.deep.equal({
        result: 'error',
        error: 'no nameserver in /etc/resolv.conf',
      });
      expect(replyFromExec(dnsTcp, ran(0, `${server} 68 6c 81`)).result).to.equal('error');
    });

    it("words the script's failure by its exit when it printed nothing, and rejects what is not whole hex bytes", () => {
      const server = '--hybrid-lab-dns-tcp:10.96.0.10\n';
      expect(replyFromExec(dnsTcp, ran(6, server))).to.deep.equal({
        result: 'error',
        error: 'the DNS-over-TCP script exited 6',
        peer: '10.96.0.10',
      });
      for (const bytes of [' 68 6c 8', ' g0 68 6c', ' 68 6c 0g', `${' 6'.repeat(150)}x`]) {
        const stdout = `${server}${bytes}\n`;
        expect(replyFromExec(dnsTcp, ran(0, stdout)), bytes).to.deep.equal({
          result: 'error',
          error: `the DNS-over-TCP script printed no reply: ${stdout.slice(0, 200)}`,
        });
      }
    });

    it("reads dig's answer lines however they are spaced, and no commented one", () => {
      const answered = [
        ';; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 41863',
        ';; ANSWER SECTION:',
        ';web-linux.ns1.svc.cluster.local. 30 IN A 10.96.0.99',
        'web-linux.ns1.svc.cluster.local.\t\t30\tIN\tA\t10.96.101.21',
        'web-linux.ns1.svc.cluster.local.  30  IN  A  10.96.101.22  ',
        'web-linux.ns1.svc.cluster.local. 30 IN A 10.96.101.23 extra',
        '',
      ].join('\r\n');
      expect(replyFromExec(dnsTcp, ran(0, answered), 'windows')).to.deep.equal({
        result: 'ok',
        addresses: ['10.96.101.21', '10.96.101.22'],
      });
    });

    it("words dig's failure by its own line, or says there was no reply", () => {
      const noAddress = "dig: couldn't get address for 'ns.invalid': not found";
      expect(replyFromExec(dnsTcp, ran(10, '', `${noAddress}\r\n`), 'windows')).to.deep.equal({
        result: 'error',
        error: noAddress,
      });
      expect(replyFromExec(dnsTcp, ran(9, ''), 'windows')).to.deep.equal({
        result: 'timeout',
        error: 'dig: no reply',
      });
    });

    it("reads dig's status line and answer section (Windows)", () => {
      const answered = [
        ';; Got answer:',
        ';; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 41863',
        ';; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 0',
        '',
        ';; ANSWER SECTION:',
        'web-linux.ns1.svc.cluster.local. 5 IN A 10.96.101.21',
      ].join('\r\n');
      expect(replyFromExec(dnsTcp, ran(0, answered), 'windows')).to.deep.equal({
        result: 'ok',
        addresses: ['10.96.101.21'],
      });
      const nx = ';; ->>HEADER<<- opcode: QUERY, status: NXDOMAIN, id: 2';
      expect(replyFromExec(dnsTcp, ran(0, nx), 'windows').result).to.equal('nxdomain');
      const silent = ';; connection timed out; no servers could be reached';
      expect(replyFromExec(dnsTcp, ran(9, silent), 'windows')).to.deep.equal({
        result: 'timeout',
        error: silent,
      });
      const refused =
        ';; Connection to 10.96.0.10#53(10.96.0.10) for web-linux.ns1.svc.cluster.local failed: connection refused.';
      expect(replyFromExec(dnsTcp, ran(9, refused), 'windows').result).to.equal('refused');
      // dig failing another way, even after a status line: an error, not the answer it printed.
      expect(replyFromExec(dnsTcp, ran(10, answered), 'windows')).to.deep.equal({
        result: 'error',
        error: ';; ANSWER SECTION:',
      });
      expect(
        replyFromExec(dnsTcp, ran(1, 'web-linux 5 IN A 10.96.101.21'), 'windows'),
      ).to.deep.equal({ result: 'error', error: 'dig exited 1' });
    });
  });

  describe("udp (the source pod's own netexec /dial)", () => {
    // Bodies as agnhost 2.25's netexec (the Debian-built one in the artifact cache) answered them.
    const udp: ProbeRequest = { kind: 'udp', host: '10.244.2.7', port: 8081, message: 'clientip' };
    const dialed = (body: string) => ran(0, `${body}\n--hybrid-lab-status:200`);

    it('asks 127.0.0.1:8080/dial for one UDP datagram to the target, bounded by curl', () => {
      const argv = probeCommand('windows', udp, 2000);
      expect(argv[0]).to.equal('curl.exe');
      expect(argv).to.include.members(['--connect-timeout', '2.000', '-m', '2.000']);
      const url = new URL(argv.at(-1)!);
      expect(url.origin + url.pathname).to.equal('http://127.0.0.1:8080/dial');
      expect(Object.fromEntries(url.searchParams)).to.deep.equal({
        request: 'clientip',
        protocol: 'udp',
        host: '10.244.2.7',
        port: '8081',
        tries: '1',
      });
    });

    it('returns the reply datagram as the body, the address dialed as the peer', () => {
      expect(replyFromExec(udp, dialed('{"responses":["10.244.1.5:45731"]}'))).to.deep.equal({
        result: 'ok',
        body: '10.244.1.5:45731',
        peer: '10.244.2.7',
      });
    });

    it('maps agnhost errors: i/o timeout to timeout, connection refused to refused; curl 28 to timeout', () => {
      const timedOut = replyFromExec(
        udp,
        dialed(
          `{"errors":["reading from udp connection failed. err:'read udp 10.244.1.5:45508-\\u003e10.244.2.7:8081: i/o timeout'"]}`,
        ),
      );
      expect(timedOut.result).to.equal('timeout');
      expect(timedOut.error).to.match(/^\/dial: reading from udp connection failed/);
      const refused = replyFromExec(
        udp,
        dialed(
          `{"errors":["reading from udp connection failed. err:'read udp 10.244.1.5:59459-\\u003e10.244.2.7:8081: read: connection refused'"]}`,
        ),
      );
      expect(refused.result).to.equal('refused');
      expect(replyFromExec(udp, ran(28, '', 'curl: (28) Operation timed out')).result).to.equal(
        'timeout',
      );
      expect(replyFromExec(udp, dialed('not json')).result).to.equal('error');
    });

    it('quotes what /dial answered when it is no JSON, and says so when it named no reply and no error', () => {
      const notJson = dialed(`<html>${'x'.repeat(300)}</html>`);
      expect(replyFromExec(udp, notJson)).to.deep.equal({
        result: 'error',
        error: `/dial answered no JSON: ${notJson.stdout.slice(0, 200)}`,
      });
      expect(replyFromExec(udp, dialed('{"responses":[]}'))).to.deep.equal({
        result: 'error',
        error: '/dial: no reply (HTTP 200)',
      });
      expect(replyFromExec(udp, dialed('{"errors":[42]}'))).to.deep.equal({
        result: 'error',
        error: '/dial: no reply (HTTP 200)',
      });
    });
  });

  describe('tcp (agnhost connect)', () => {
    it('maps exit 0 and the fixed prefixes', () => {
      expect(replyFromExec(tcp, ran(0, ''))).to.deep.equal({ result: 'ok' });
      expect(replyFromExec(tcp, ran(1, '', 'REFUSED\n')).result).to.equal('refused');
      expect(replyFromExec(tcp, ran(1, '', 'TIMEOUT\n')).result).to.equal('timeout');
      expect(
        replyFromExec(tcp, ran(1, '', 'DNS: lookup nosuch on 10.96.0.10:53: no such host\n'))
          .result,
      ).to.equal('nxdomain');
      expect(
        replyFromExec(
          tcp,
          ran(1, '', 'OTHER: dial tcp 10.244.9.9:8080: connect: no route to host\n'),
        ).result,
      ).to.equal('unreachable');
    });

    it('recognises a Windows refusal, which Go reports as OTHER', () => {
      const stderr =
        'OTHER: dial tcp 10.244.2.7:8080: connectex: No connection could be made because the target machine actively refused it.\n';
      expect(replyFromExec(tcp, ran(1, '', stderr)).result).to.equal('refused');
    });

    it('reads the prefix at the start of the output, and a Windows connect timeout', () => {
      expect(replyFromExec(tcp, ran(1, '', 'TIMEOUT\nexit status 1\n'))).to.deep.equal({
        result: 'timeout',
        error: 'TIMEOUT\nexit status 1',
      });
      expect(replyFromExec(tcp, ran(1, '', 'REFUSED\nexit status 1\n')).result).to.equal('refused');
      const late =
        'OTHER: dial tcp 10.244.2.7:8080: connectex: A connection attempt failed because the connected party did not properly respond after a period of time.';
      expect(replyFromExec(tcp, ran(1, '', late)).result).to.equal('timeout');
      expect(replyFromExec(tcp, ran(1, '', 'OTHER: dial tcp: lookup: REFUSED')).result).to.equal(
        'error',
      );
    });

    it('tells a lookup that timed out from a name that does not exist', () => {
      const slow =
        'DNS: lookup web-linux on 10.96.0.10:53: read udp 10.244.1.5:40000->10.96.0.10:53: i/o timeout';
      expect(replyFromExec(tcp, ran(1, '', slow))).to.deep.equal({
        result: 'timeout',
        error: slow,
      });
    });

    it('takes an output without a known prefix as an error, whatever it says, or the exit when silent', () => {
      const unknown = 'dial tcp 10.244.2.7:8080: connect: connection refused';
      expect(replyFromExec(tcp, ran(1, '', unknown))).to.deep.equal({
        result: 'error',
        error: unknown,
      });
      expect(replyFromExec(tcp, ran(2, ''))).to.deep.equal({
        result: 'error',
        error: 'agnhost connect exited 2',
      });
    });
  });

  describe('icmp (ping)', () => {
    const icmp: ProbeRequest = { kind: 'icmp', host: '10.244.2.7' };
    it("pings once with iputils' ping on Linux, PowerShell 7's .NET Ping on Windows, within the budget", () => {
      expect(probeCommand('linux', icmp, 2500)).to.deep.equal([
        'ping',
        '-n',
        '-c',
        '1',
        '-W',
        '3',
        '-w',
        '3',
        '10.244.2.7',
      ]);
      expect(probeCommand('windows', icmp, 2500)).to.deep.equal([
        'pwsh.exe',
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        "$r = [System.Net.NetworkInformation.Ping]::new().Send('10.244.2.7', 2500); '--hybrid-lab-ping:' + $r.Status + ' ' + $r.Address",
      ]);
    });

    it("reads the Windows echo request's IPStatus and the reply's source", () => {
      const win = (stdout: string, exitCode = 0, stderr = '') =>
        replyFromExec(icmp, ran(exitCode, stdout, stderr), 'windows');
      expect(win('--hybrid-lab-ping:Success 10.244.2.7\r\n')).to.deep.equal({
        result: 'ok',
        peer: '10.244.2.7',
      });
      expect(win('--hybrid-lab-ping:TimedOut 0.0.0.0\r\n').result).to.equal('timeout');
      expect(win('--hybrid-lab-ping:DestinationHostUnreachable 10.244.3.1\r\n')).to.deep.equal({
        result: 'unreachable',
        error: 'DestinationHostUnreachable from 10.244.3.1',
      });
      expect(win('', 1, 'Exception calling "Send" with "2" argument(s)')).to.deep.equal({
        result: 'error',
        error: 'Exception calling "Send" with "2" argument(s)',
      });
      // pwsh failing after the line: its exit decides, not the line.
      expect(win('--hybrid-lab-ping:Success 10.244.2.7\r\n', 1, 'later failure')).to.deep.equal({
        result: 'error',
        error: 'later failure',
      });
      // No address in the reply: the status alone.
      expect(win('--hybrid-lab-ping:DestinationHostUnreachable\r\n')).to.deep.equal({
        result: 'unreachable',
        error: 'DestinationHostUnreachable',
      });
      // Another IPStatus is neither an answer nor silence.
      expect(win('--hybrid-lab-ping:TtlExpired 10.244.0.1\r\n')).to.deep.equal({
        result: 'error',
        error: 'echo request: TtlExpired',
      });
    });

    it('reads the reply, the silence (exit 1) and a ping that could not run', () => {
      const reply = '64 bytes from 10.244.2.7: icmp_seq=1 ttl=63 time=0.2 ms\n';
      expect(replyFromExec(icmp, ran(0, reply))).to.deep.equal({
        result: 'ok',
        peer: '10.244.2.7',
      });
      expect(replyFromExec(icmp, ran(1, '1 packets transmitted, 0 received\n')).result).to.equal(
        'timeout',
      );
      expect(replyFromExec(icmp, ran(127, '', 'sh: 1: ping: not found'))).to.deep.equal({
        result: 'error',
        error: 'sh: 1: ping: not found',
      });
    });

    it("words a ping that could not run by its stderr, else stdout's last line, else its exit", () => {
      expect(replyFromExec(icmp, ran(2, '', 'ping: unknown host nosuch\n'))).to.deep.equal({
        result: 'error',
        error: 'ping: unknown host nosuch',
      });
      const stdout =
        'PING 10.244.2.7 (10.244.2.7) 56(84) bytes of data.\nwarning\nping: sendmsg: Operation not permitted\n';
      expect(replyFromExec(icmp, ran(2, stdout))).to.deep.equal({
        result: 'error',
        error: 'ping: sendmsg: Operation not permitted',
      });
      expect(replyFromExec(icmp, ran(2, ''))).to.deep.equal({
        result: 'error',
        error: 'ping exited 2',
      });
    });

    it("finds the Windows status line after other output, and words pwsh's failure without it", () => {
      const win = (stdout: string, exitCode = 0, stderr = '') =>
        replyFromExec(icmp, ran(exitCode, stdout, stderr), 'windows');
      expect(win('WARNING: slow start\r\n--hybrid-lab-ping:Success 10.244.2.7\r\n')).to.deep.equal({
        result: 'ok',
        peer: '10.244.2.7',
      });
      expect(win('--hybrid-lab-ping:TimedOut 0.0.0.0\r\n')).to.deep.equal({
        result: 'timeout',
        error: 'no echo reply (TimedOut)',
      });
      expect(win('', 1, 'Exception calling "Send"\r\n')).to.deep.equal({
        result: 'error',
        error: 'Exception calling "Send"',
      });
      expect(win('The term is not recognized\r\n')).to.deep.equal({
        result: 'error',
        error: 'pwsh exited 0: The term is not recognized',
      });
      // Unreachable only as the status's last word (the .NET names end in it).
      expect(win('--hybrid-lab-ping:UnreachableThenRouted 10.244.3.1\r\n')).to.deep.equal({
        result: 'error',
        error: 'echo request: UnreachableThenRouted',
      });
    });
  });

  it('turns an exec the API failed without an exit code into error (recorded InternalError frame)', () => {
    const status = statusFrame('missing-executable');
    const failed: ExecResult = { exitCode: null, stdout: '', stderr: '', status };
    const reply = replyFromExec(http, failed);
    expect(reply.result).to.equal('error');
    expect(reply.error).to.equal(`exec failed: ${status.message}`);
    expect(reply.error).to.contain('"curl.exe": executable file not found in $PATH');
  });

  it('says no exit code when the failed exec named no message and no reason', () => {
    const failed: ExecResult = {
      exitCode: null,
      stdout: '',
      stderr: '',
      status: Object.assign(new V1Status(), { status: 'Failure' }),
    };
    expect(replyFromExec(http, failed)).to.deep.equal({
      result: 'error',
      error: 'exec failed: no exit code',
    });
  });
});

describe('recorded probes (probeCommand run in a pod of a live v1.20.2 cluster, frames replayed)', () => {
  /** The recorded run through execInPod over its replayed frames, then replyFromExec. */
  async function replyOf(name: string) {
    const run = execRun(name);
    const exec = new FakeExec(() => replay(name));
    const target = { namespace: 'hybrid-lab-r1', pod: run.pod, container: 'netexec' };
    const result = await execInPod(exec, target, run.command, 5000);
    const request = run.request!;
    // The argv the recorder ran is the one the driver builds for the request.
    expect(probeCommand('linux', request, run.timeoutMs)).to.deep.equal(run.command);
    return { reply: replyFromExec(request, result), request };
  }

  it('http: /clientip answers with the source pod address; curl connected to the target pod', async () => {
    const { reply, request } = await replyOf('http-clientip');
    const source = statusOnPoll(execRun('http-clientip').pod, Infinity).podIP!;
    const target = new URL((request as { url: string }).url).hostname;
    expect(reply).to.include({ result: 'ok', status: 200, peer: target });
    expect(reply.body).to.match(new RegExp(`^${source.replaceAll('.', '\\.')}:\\d+$`));
    expect(reply.bytes).to.equal(reply.body!.length);
  });

  it('http: a closed port is refused (curl 7.88 says so only in -v output), a silent address times out', async () => {
    const refused = (await replyOf('http-refused')).reply;
    expect(refused.result).to.equal('refused');
    expect(refused.error).to.contain('Connection refused');
    const timeout = (await replyOf('http-timeout')).reply;
    expect(timeout.result).to.equal('timeout');
    expect(timeout.error).to.match(/^Connection timed out after \d+ milliseconds$/);
  });

  it('dns: curl 7.88 names the address in its Trying line: the Service ClusterIP, kubernetes.default', async () => {
    const webLinux = recordedService('web-linux')!.spec!.clusterIP;
    expect((await replyOf('dns-service')).reply).to.deep.equal({
      result: 'ok',
      addresses: [webLinux],
    });
    const kubernetes = recordedResponse(V1Service, RECORDED.services.kubernetes).spec!.clusterIP;
    expect((await replyOf('dns-kubernetes')).reply).to.deep.equal({
      result: 'ok',
      addresses: [kubernetes],
    });
    expect((await replyOf('dns-nxdomain')).reply).to.deep.equal({
      result: 'nxdomain',
      error: 'Could not resolve host: web-nosuch',
    });
  });

  it('dns-tcp: bash asked the nameserver of resolv.conf over TCP; the answer holds the ClusterIP, or NXDOMAIN', async () => {
    const webLinux = recordedService('web-linux')!.spec!.clusterIP;
    const { reply } = await replyOf('dns-tcp-service');
    // The kubelet's resolv.conf names the kube-dns ClusterIP (10.96.0.10 on the recorded cluster).
    expect(reply).to.deep.equal({ result: 'ok', addresses: [webLinux], peer: '10.96.0.10' });
    expect((await replyOf('dns-tcp-nxdomain')).reply).to.deep.equal({
      result: 'nxdomain',
      error: 'NXDOMAIN over TCP',
      peer: '10.96.0.10',
    });
  });

  it('endpoints over UDP: bash pairs the backend and the client it saw; a closed port is refused, a silent one times out', async () => {
    const source = statusOnPoll(execRun('udp-sweep-service').pod, Infinity).podIP!;
    const { reply } = await replyOf('udp-sweep-service');
    expect(reply.result).to.equal('ok');
    expect(reply.answers).to.have.length(1);
    expect(reply.answers![0]!.endpoint).to.match(/^netexec-[a-z0-9]+-b$/);
    expect(reply.answers![0]!.client).to.equal(source);
    expect((await replyOf('udp-sweep-refused')).reply).to.deep.equal({
      result: 'refused',
      error: "dd: error reading 'standard input': Connection refused",
    });
    expect((await replyOf('udp-sweep-timeout')).reply.result).to.equal('timeout');
  });

  it('tcp: agnhost connect exits 0, or 1 with REFUSED or TIMEOUT', async () => {
    expect((await replyOf('tcp-ok')).reply).to.deep.equal({ result: 'ok' });
    expect((await replyOf('tcp-refused')).reply).to.deep.equal({
      result: 'refused',
      error: 'REFUSED',
    });
    expect((await replyOf('tcp-timeout')).reply).to.deep.equal({
      result: 'timeout',
      error: 'TIMEOUT',
    });
  });
});
