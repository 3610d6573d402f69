import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { missing, skipTest } from '../../testing/skip.ts';
import { startEndpointBackend, type EndpointBackend } from '../../testing/endpoint-backend.ts';
import { USAGE } from './probes.mjs';
import { expectProbeUsage } from '../../testing/probes-fixtures.ts';

const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));
const NETEXEC = fileURLToPath(new URL('./netexec.mjs', import.meta.url));

interface ProbeLine {
  kind: string | null;
  result: string;
  status?: number;
  body?: string;
  bytes?: number;
  addresses?: string[];
  answers?: { endpoint: string; client: string }[];
  error?: string;
  ms?: number;
}

interface ProbeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  line: ProbeLine;
  /** Wall time including node start-up, as the suite would see it. */
  wallMs: number;
}

/** Runs probe.mjs to completion and checks it printed exactly one JSON line. */
function probe(...args: string[]): Promise<ProbeRun> {
  return run([process.execPath, PROBE, ...args]);
}

async function run([file, ...args]: string[]): Promise<ProbeRun> {
  const started = performance.now();
  const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines, `stdout: ${stdout}`).to.have.length(1);
  return {
    code,
    signal,
    line: JSON.parse(lines[0] ?? '') as ProbeLine,
    wallMs: performance.now() - started,
  };
}

/** A free loopback TCP port: bound by us, then released. */
async function closedTcpPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('probe', function () {
  this.timeout(10_000);
  let netexec: ChildProcessWithoutNullStreams | undefined;
  let silent: Socket | undefined;
  let http = 0;
  let udp = 0;
  let silentPort = 0;

  before(async () => {
    const args = [
      '--http-port',
      '0',
      '--udp-port',
      '0',
      '--hostname',
      'pod-b',
      '--bind',
      '127.0.0.1',
    ];
    netexec = spawn(process.execPath, [NETEXEC, ...args]);
    const lines = createInterface({ input: netexec.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    const match = /^listening http=(\d+) udp=(\d+)$/.exec(first.done === true ? '' : first.value);
    if (match === null) throw new Error('netexec did not start');
    http = Number(match[1]);
    udp = Number(match[2]);

    silent = createSocket('udp4');
    silent.bind(0, '127.0.0.1');
    await once(silent, 'listening');
    silentPort = silent.address().port;
  });

  after(() => {
    netexec?.kill('SIGKILL');
    silent?.close();
  });

  describe('http', () => {
    it('reports ok with status, trimmed body and time', async () => {
      const { code, line } = await probe('http', `http://127.0.0.1:${http}/hostname`);
      expect(code).to.equal(0);
      expect(line).to.include({
        kind: 'http',
        result: 'ok',
        status: 200,
        body: 'pod-b',
        peer: '127.0.0.1',
      });
      expect(line.ms).to.be.a('number');
      // The connect is part of the whole request, measured from the SYN on.
      const { connectMs } = line as { connectMs?: number };
      expect(connectMs).to.be.a('number').and.at.least(0).and.at.most(line.ms!);
    });

    it('reports http-error for a non-2xx status', async () => {
      const { code, line } = await probe('http', `http://127.0.0.1:${http}/missing`);
      expect(code).to.equal(1);
      expect(line).to.include({ result: 'http-error', status: 404 });
    });

    it('reads a large body whole but keeps only 4 KiB', async () => {
      const { line } = await probe('http', `http://127.0.0.1:${http}/big?bytes=1000000`);
      expect(line).to.include({ result: 'ok', bytes: 1_000_000 });
      expect(line.body).to.have.length(4096);
    });

    it('reports refused for a closed port', async () => {
      const { line } = await probe('http', `http://127.0.0.1:${await closedTcpPort()}/`);
      expect(line.result).to.equal('refused');
    });
  });

  describe('tcp', () => {
    it('reports ok for a listening port', async () => {
      const { code, line } = await probe('tcp', '127.0.0.1', `${http}`);
      expect(code).to.equal(0);
      expect(line).to.include({ kind: 'tcp', result: 'ok' });
      expect((line as { connectMs?: number }).connectMs).to.be.a('number');
    });

    it('reports refused with the error for a closed port', async () => {
      const { code, line } = await probe('tcp', '127.0.0.1', `${await closedTcpPort()}`);
      expect(code).to.equal(1);
      expect(line.result).to.equal('refused');
      expect(line.error).to.include('ECONNREFUSED');
    });
  });

  describe('udp', () => {
    it('reports ok with the reply as body', async () => {
      const { code, line } = await probe('udp', '127.0.0.1', `${udp}`, 'echo ping');
      expect(code).to.equal(0);
      expect(line).to.include({ kind: 'udp', result: 'ok', body: 'ping' });
    });

    it('reports timeout within timeout + 500 ms when nothing replies', async () => {
      const done = await probe('udp', '127.0.0.1', `${silentPort}`, 'hello', '--timeout-ms', '300');
      expect(done.signal, 'a timed-out probe kills itself').to.equal('SIGKILL');
      expect(done.line.result).to.equal('timeout');
      expect(done.wallMs).to.be.below(800);
    });
  });

  describe('icmp', () => {
    it("reports ok with the echo reply's source as peer (the system's ping)", async () => {
      const { code, line } = await probe('icmp', '127.0.0.1', '--timeout-ms', '2000');
      expect(code).to.equal(0);
      expect(line).to.include({ kind: 'icmp', result: 'ok', peer: '127.0.0.1' });
    });
  });

  describe('dns', () => {
    // localhost comes from /etc/hosts, so the system resolver answers without any DNS traffic.
    it('resolves through the system resolver', async () => {
      const { code, line } = await probe('dns', 'localhost');
      expect(code).to.equal(0);
      expect(line.kind).to.equal('dns');
      expect(line.addresses).to.include('127.0.0.1');
    });
  });

  describe('dns against a resolver that never answers', () => {
    // glibc retries a silent server for seconds; the probe's deadline must still hold.
    const hung = join(tmpdir(), `hl-probe-resolv-${process.pid}.conf`);
    const script = [
      'mount --bind "$1" /etc/resolv.conf && ip link set lo up || exit 99',
      'shift',
      // "$1" is node, the probe's own interpreter; "$@" the probe
      `"$1" -e 'require("node:dgram").createSocket("udp4").bind(53, "127.0.0.53")' >/dev/null 2>&1 &`,
      'listener=$!',
      'until ss -Huln | grep -q 127.0.0.53:53; do sleep 0.05; done',
      '"$@"; rc=$?; kill "$listener"; exit "$rc"',
    ].join('\n');

    before(function () {
      if (process.getuid?.() !== 0 || spawnSync('unshare', ['--version']).status !== 0) {
        skipTest(this, missing('needs root and unshare (a private network and mount namespace)'));
      }
      writeFileSync(hung, 'nameserver 127.0.0.53\noptions timeout:5 attempts:2\n');
    });
    after(() => {
      rmSync(hung, { force: true });
    });

    it('reports timeout at --timeout-ms, not when getaddrinfo gives up', async () => {
      const argv = [process.execPath, PROBE, 'dns', 'hung.example', '--timeout-ms', '500'];
      const done = await run(['unshare', '-n', '-m', 'sh', '-c', script, 'sh', hung, ...argv]);
      expect(done.line).to.include({ kind: 'dns', result: 'timeout' });
      expect(done.code, 'killed by itself (128 + SIGKILL)').to.equal(137);
      expect(done.wallMs, 'glibc alone would take 10 s').to.be.below(3000);
    });
  });

  describe('dns-tcp against a server at the nameserver of a private resolv.conf', () => {
    const conf = join(tmpdir(), `hl-probe-resolv-tcp-${process.pid}.conf`);
    const zone = join(tmpdir(), `hl-probe-zone-${process.pid}.json`);
    const DNS_SERVER = fileURLToPath(new URL('./dns-server.mjs', import.meta.url));
    // "$1" the resolv.conf, "$2" node; then what listens on 127.0.0.53 ("$3": dns, silent, none),
    // then the probe.
    const script = [
      'mount --bind "$1" /etc/resolv.conf && ip link set lo up || exit 99',
      'node=$2; what=$3; shift 3',
      'case "$what" in',
      `  dns) "$node" ${JSON.stringify(DNS_SERVER)} --zone ${JSON.stringify(zone)} --listen 127.0.0.53 >/dev/null 2>&1 & ;;`,
      `  silent) "$node" -e 'require("node:net").createServer(() => {}).listen(53, "127.0.0.53")' >/dev/null 2>&1 & ;;`,
      '  none) true & ;;',
      'esac',
      'listener=$!',
      '[ "$what" = none ] || until ss -Htln | grep -q 127.0.0.53:53; do sleep 0.05; done',
      '"$@"; rc=$?; kill "$listener" 2>/dev/null; exit "$rc"',
    ].join('\n');
    const ask = (what: string, name: string) =>
      run([
        'unshare',
        '-n',
        '-m',
        'sh',
        '-c',
        script,
        'sh',
        conf,
        process.execPath,
        what,
        process.execPath,
        PROBE,
        'dns-tcp',
        name,
        '--timeout-ms',
        '800',
      ]);

    before(function () {
      if (process.getuid?.() !== 0 || spawnSync('unshare', ['--version']).status !== 0) {
        skipTest(this, missing('needs root and unshare (a private network and mount namespace)'));
      }
      writeFileSync(conf, 'search ns.svc.cluster.local\nnameserver 127.0.0.53\n');
      const records = { 'web.ns.svc.cluster.local': ['10.96.0.20'] };
      writeFileSync(zone, JSON.stringify({ domain: 'cluster.local', records }));
    });
    after(() => {
      rmSync(conf, { force: true });
      rmSync(zone, { force: true });
    });

    it('asks the nameserver of resolv.conf over TCP: the answer, or NXDOMAIN, names that server', async () => {
      const found = await ask('dns', 'web.ns.svc.cluster.local');
      expect(found.code).to.equal(0);
      expect(found.line).to.include({ kind: 'dns-tcp', result: 'ok', peer: '127.0.0.53' });
      expect(found.line.addresses).to.deep.equal(['10.96.0.20']);
      // No search list over TCP: the short name is asked as it is, outside the zone.
      expect((await ask('dns', 'web')).line).to.include({ result: 'nxdomain' });
    });

    it('reports refused when nothing listens on TCP 53, timeout when the server never answers', async () => {
      expect((await ask('none', 'web.ns.svc.cluster.local')).line).to.include({
        result: 'refused',
      });
      const silent = await ask('silent', 'web.ns.svc.cluster.local');
      expect(silent.line).to.include({ result: 'timeout' });
      expect(silent.wallMs).to.be.below(5000);
    });
  });

  describe('endpoints', () => {
    const sweep = (base: string, expected: string, maxRequests: number, ...more: string[]) =>
      probe('endpoints', base, '--expect', expected, '--max-requests', `${maxRequests}`, ...more);
    const backends: EndpointBackend[] = [];
    after(() => {
      backends.forEach((b) => {
        b.close();
      });
    });

    it('stops once every expected endpoint answered', async () => {
      const { code, line } = await sweep(`http://127.0.0.1:${http}`, 'pod-b', 5);
      expect(code).to.equal(0);
      expect(line).to.deep.include({
        kind: 'endpoints',
        result: 'ok',
        answers: [{ endpoint: 'pod-b', client: '127.0.0.1' }],
      });
    });

    it('makes all --max-requests requests and is still ok when an expected name never answers', async () => {
      const { code, line } = await sweep(`http://127.0.0.1:${http}/`, 'pod-b,pod-nosuch', 3);
      expect(code).to.equal(0);
      expect(line.result).to.equal('ok');
      expect(line.answers?.map((a) => a.endpoint)).to.deep.equal(['pod-b', 'pod-b', 'pod-b']);
    });

    it('goes on to --min-requests after every expected endpoint answered', async () => {
      const { code, line } = await sweep(
        `http://127.0.0.1:${http}`,
        'pod-b',
        10,
        '--min-requests',
        '4',
      );
      expect(code).to.equal(0);
      expect(line.answers?.map((a) => a.endpoint)).to.deep.equal([
        'pod-b',
        'pod-b',
        'pod-b',
        'pod-b',
      ]);
    });

    it('reports the client IP the backend saw without its port', async () => {
      const { line } = await sweep(`http://127.0.0.1:${http}`, 'pod-b', 1);
      expect(line.answers?.[0]?.client).to.equal('127.0.0.1');
    });

    it('reports refused at the first request for a closed port', async () => {
      const { signal, line } = await sweep(`http://127.0.0.1:${await closedTcpPort()}`, 'pod-b', 4);
      // A failed sweep ends like a timed-out probe: no lookup it left behind can hold it up.
      expect(signal).to.equal('SIGKILL');
      expect(line).to.deep.include({ result: 'refused', answers: [] });
      expect(line.error).to.match(/^request 1 of 4: .*ECONNREFUSED/);
    });

    it('gives each request the whole --timeout-ms, not the sweep', async () => {
      const slow = await startEndpointBackend('slow-pod', { delayMs: 100 });
      backends.push(slow);
      const done = await sweep(slow.base, 'pod-nosuch', 4, '--timeout-ms', '500');
      expect(done.line.result).to.equal('ok');
      expect(done.line.answers).to.have.length(4);
      expect(done.wallMs, '4 requests of 2 × 100 ms').to.be.above(800);
    });

    it('times out at the request that hangs, keeping what answered before it', async () => {
      const hangs = await startEndpointBackend('pod-c', { silentOn: [2] });
      backends.push(hangs);
      const done = await sweep(hangs.base, 'pod-nosuch', 3, '--timeout-ms', '300');
      expect(done.signal, 'a timed-out probe kills itself').to.equal('SIGKILL');
      expect(done.line).to.deep.include({
        result: 'timeout',
        error: 'request 2 of 3: no answer within 300 ms',
        answers: [{ endpoint: 'pod-c', client: '127.0.0.1' }],
      });
    });
  });

  describe('usage errors', () => {
    const cases: [string, string[]][] = [
      ['no arguments', []],
      ['an unknown kind', ['ping', '127.0.0.1']],
      ['icmp without a host', ['icmp']],
      ['a missing argument', ['tcp', '127.0.0.1']],
      ['a bad port', ['tcp', '127.0.0.1', '70000']],
      ['dns-tcp with a name that fits no question', ['dns-tcp', 'a..b']],
      ['a bad timeout', ['dns', 'localhost', '--timeout-ms', 'soon']],
      ['a non-http URL', ['http', 'ftp://127.0.0.1/']],
      ['endpoints without --expect', ['endpoints', 'http://127.0.0.1:1', '--max-requests', '2']],
      ['endpoints without --max-requests', ['endpoints', 'http://127.0.0.1:1', '--expect', 'a']],
      [
        'endpoints with an empty --expect',
        ['endpoints', 'http://127.0.0.1:1', '--expect', '', '--max-requests', '2'],
      ],
      [
        'endpoints with only commas in --expect',
        ['endpoints', 'http://127.0.0.1:1', '--expect', ',', '--max-requests', '2'],
      ],
      [
        'an endpoints base with a path',
        ['endpoints', 'http://127.0.0.1:1/hostname', '--expect', 'a', '--max-requests', '2'],
      ],
      ['--expect on another kind', ['tcp', '127.0.0.1', '80', '--expect', 'a']],
    ];
    it('prints the message and the usage text on stderr, and nothing there for a run', () => {
      const stderrOf = (...args: string[]) =>
        spawnSync(process.execPath, [PROBE, ...args], { encoding: 'utf8' }).stderr;
      expect(stderrOf('tcp', '127.0.0.1', '70000')).to.equal(
        `probe: PORT must be an integer from 1 to 65535, got '70000'\n${USAGE}\n`,
      );
      expect(stderrOf('tcp', '127.0.0.1', '1', '--timeout-ms', '500')).to.equal('');
    });

    for (const [what, args] of cases) {
      it(`exits 2 with one JSON error line for ${what}`, async () => {
        const { code, line } = await probe(...args);
        expect(code).to.equal(2);
        expect(line.result).to.equal('error');
        expect(line.error).to.be.a('string');
      });
    }

    it('prints the error, then the usage, to stderr', () => {
      const done = spawnSync(process.execPath, [PROBE, 'tcp', '127.0.0.1'], { encoding: 'utf8' });
      expect(done.status).to.equal(2);
      expect(done.stderr).to.equal(`probe: tcp takes HOST PORT\n${USAGE}\n`);
      expectProbeUsage(done.stderr.slice('probe: tcp takes HOST PORT\n'.length));
    });

    it('names a perf flag given to another kind', () => {
      for (const flag of ['duration-ms', 'rate-mbps']) {
        const argv = [PROBE, 'tcp', '127.0.0.1', 'x', `--${flag}`, '5'];
        const done = spawnSync(process.execPath, argv, { encoding: 'utf8' });
        expect(JSON.parse(done.stdout)).to.deep.equal({
          kind: 'tcp',
          result: 'error',
          error: `--${flag} is for perf only`,
        });
      }
    });
  });
});
