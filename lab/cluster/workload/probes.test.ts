/**
 * The probes of probes.mjs run in this process (probe.test.ts runs them as probe.mjs, a child
 * process; probes-usage.test.ts checks their arguments): the whole line each reports, against
 * servers on 127.0.0.1 started here. The system's ping is stood in for by a script on PATH,
 * /etc/resolv.conf by a stubbed readFileSync.
 */
import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import dns from 'node:dns';
import { once } from 'node:events';
import fs, { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { missing, skipTest } from '../../testing/skip.ts';
import { runProbe } from './probes.mjs';

type LookupCallback = (err: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;
type Lookup = (host: string, options: unknown, callback: LookupCallback) => void;

/** Runs `body` with node:dns's lookup (which net and dgram call) replaced by `replacement`. */
async function withLookup<T>(
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
function resolverError(code: string, host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code, hostname: host });
}

/** Runs `body` with performance.now() standing still at `start` until `clock.advance()` moves it. */
async function withStoppedClock<T>(
  start: number,
  body: (clock: { advance: (ms: number) => void }) => Promise<T>,
): Promise<T> {
  let now = start;
  Object.defineProperty(performance, 'now', { value: () => now, configurable: true });
  try {
    return await body({ advance: (ms) => (now += ms) });
  } finally {
    delete (performance as { now?: unknown }).now;
  }
}

/** Runs `body` while /etc/resolv.conf reads as `resolvConf` (or throws it) to probes.mjs. */
async function withResolvConf<T>(resolvConf: string | Error, body: () => Promise<T>): Promise<T> {
  const original = fs.readFileSync;
  const stand = (...args: Parameters<typeof fs.readFileSync>) => {
    if (args[0] !== '/etc/resolv.conf') return original(...args);
    if (resolvConf instanceof Error) throw resolvConf;
    return resolvConf;
  };
  (fs as { readFileSync: unknown }).readFileSync = stand;
  syncBuiltinESMExports();
  try {
    return await body();
  } finally {
    (fs as { readFileSync: unknown }).readFileSync = original;
    syncBuiltinESMExports();
  }
}

/** A line without its `ms` (and `connectMs`), which no test can know. */
function untimed(line: Record<string, unknown>): Record<string, unknown> {
  const { ms, connectMs, ...rest } = line;
  expect(ms).to.be.a('number');
  if (connectMs !== undefined) expect(connectMs).to.be.a('number');
  return rest;
}

async function listening(server: Server | HttpServer): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function udpServer(answer: (msg: string, from: string) => string): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', (msg, from) => {
    socket.send(answer(msg.toString(), `${from.address}:${from.port}`), from.port, from.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/** A free loopback TCP port: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listening(server);
  server.close();
  await once(server, 'close');
  return port;
}

describe('runProbe (in this process)', function () {
  this.timeout(10_000);

  describe('http', () => {
    let server: HttpServer;
    let base = '';
    let oddStatus: Server;
    let oddPort = 0;

    before(async () => {
      server = createHttpServer((req, res) => {
        const [, what = '', arg = ''] = (req.url ?? '').split('/');
        if (what === 'hostname') res.end('pod-h\n');
        else if (what === 'status') res.writeHead(Number(arg)).end(`status ${arg}`);
        else if (what === 'two-chunks') {
          // 100 bytes, then (once they are on their way) 5000 more.
          res.write('a'.repeat(100), () => {
            setTimeout(() => res.end('b'.repeat(5000)), 50);
          });
        } else if (what === 'cut') {
          res.writeHead(200, { 'content-length': 1000 });
          res.write('0123456789', () => {
            setTimeout(() => res.socket?.destroy(), 50);
          });
        } else res.writeHead(404).end();
      });
      base = `http://127.0.0.1:${await listening(server)}`;
      // A status under 200 that is final: no HTTP server of node's would send one.
      oddStatus = createTcpServer((socket) => {
        socket.once('data', () => socket.end('HTTP/1.1 099 Odd\r\nContent-Length: 3\r\n\r\nodd'));
      });
      oddPort = await listening(oddStatus);
    });
    after(() => {
      server.closeAllConnections();
      server.close();
      oddStatus.close();
    });

    it('reports ok with the status, the trimmed body, its size and the peer', async () => {
      const { line, code } = await runProbe(['http', `${base}/hostname`]);
      expect(code).to.equal(0);
      expect(untimed(line)).to.deep.equal({
        kind: 'http',
        result: 'ok',
        status: 200,
        body: 'pod-h',
        bytes: 6,
        peer: '127.0.0.1',
      });
      expect(line).to.have.property('connectMs');
    });

    it('reports ok for 200 to 299 and http-error for 300 and for a final status under 200', async () => {
      const status = async (url: string) => {
        const { line, code } = await runProbe(['http', url]);
        return { result: line.result, status: line.status, code };
      };
      expect(await status(`${base}/status/299`)).to.deep.equal({
        result: 'ok',
        status: 299,
        code: 0,
      });
      expect(await status(`${base}/status/300`)).to.deep.equal({
        result: 'http-error',
        status: 300,
        code: 1,
      });
      expect(await status(`http://127.0.0.1:${oddPort}/`)).to.deep.equal({
        result: 'http-error',
        status: 99,
        code: 1,
      });
    });

    it('keeps the first 4 KiB of a body that arrives in pieces', async () => {
      const { line } = await runProbe(['http', `${base}/two-chunks`]);
      expect(line).to.include({ result: 'ok', bytes: 5100 });
      expect(line.body).to.equal('a'.repeat(100) + 'b'.repeat(3996));
    });

    it('reports a body cut short by the server as an error', async () => {
      const { line, code } = await runProbe(['http', `${base}/cut`]);
      expect(code).to.equal(1);
      expect(untimed(line)).to.deep.equal({ kind: 'http', result: 'error', error: 'aborted' });
    });
  });

  describe('tcp', () => {
    it('times the connect from the SYN on: a slow name lookup counts in ms, not in connectMs', async () => {
      const server = createTcpServer((socket) => socket.destroy());
      const port = await listening(server);
      try {
        const run = await withStoppedClock(5000, (clock) =>
          withLookup(
            (original) => (host, options, callback) => {
              setImmediate(() => {
                clock.advance(1000);
                original(host, { ...(options as object), family: 4 }, callback);
              });
            },
            () => runProbe(['tcp', 'localhost', `${port}`]),
          ),
        );
        expect(run).to.deep.equal({
          line: { kind: 'tcp', result: 'ok', connectMs: 0, ms: 1000 },
          code: 0,
          lingering: false,
        });
      } finally {
        server.close();
      }
    });

    it('reports refused with the error for a closed port', async () => {
      const port = await closedPort();
      const { line, code, lingering } = await runProbe(['tcp', '127.0.0.1', `${port}`]);
      expect({ code, lingering }).to.deep.equal({ code: 1, lingering: false });
      expect(untimed(line)).to.deep.equal({
        kind: 'tcp',
        result: 'refused',
        error: `connect ECONNREFUSED 127.0.0.1:${port}`,
      });
    });
  });

  describe('udp', () => {
    let echo: Socket;
    let port = 0;
    before(async () => {
      echo = await udpServer((msg) => `${msg.replace(/^echo /, '')}\n`);
      port = echo.address().port;
    });
    after(() => echo.close());

    it('reports ok with the trimmed reply as body and who sent it', async () => {
      const { line, code } = await runProbe(['udp', '127.0.0.1', `${port}`, 'echo pong']);
      expect(code).to.equal(0);
      expect(untimed(line)).to.deep.equal({
        kind: 'udp',
        result: 'ok',
        body: 'pong',
        peer: '127.0.0.1',
      });
    });

    it('reports a name that does not resolve as nxdomain', async () => {
      const { line } = await withLookup(
        (original) => (host, options, callback) => {
          if (host === 'nosuch.test') setImmediate(callback, resolverError('ENOTFOUND', host));
          else original(host, options, callback);
        },
        () => runProbe(['udp', 'nosuch.test', `${port}`, 'hello', '--timeout-ms', '2000']),
      );
      expect(untimed(line)).to.deep.equal({
        kind: 'udp',
        result: 'nxdomain',
        error: 'getaddrinfo ENOTFOUND nosuch.test',
      });
    });

    it("reports the socket's own error (its bind failing) as the outcome", async () => {
      const { line } = await withLookup(
        (original) => (host, options, callback) => {
          // The implicit bind of the first send looks up the wildcard address.
          if (host === '0.0.0.0') setImmediate(callback, resolverError('EAI_FAIL', host));
          else original(host, options, callback);
        },
        () => runProbe(['udp', '127.0.0.1', `${port}`, 'hello', '--timeout-ms', '2000']),
      );
      expect(untimed(line)).to.deep.equal({
        kind: 'udp',
        result: 'error',
        error: 'getaddrinfo EAI_FAIL 0.0.0.0',
      });
    });
  });

  describe('dns', () => {
    // localhost comes from /etc/hosts: the system resolver answers without any DNS traffic.
    it("reports ok with every IPv4 address of the system resolver's answer", async () => {
      const { line, code } = await runProbe(['dns', 'localhost']);
      expect(code).to.equal(0);
      expect(line).to.include({ kind: 'dns', result: 'ok' });
      expect(line.addresses).to.be.an('array').that.includes('127.0.0.1');
    });
  });

  describe('icmp (a stand-in ping on PATH)', () => {
    const bin = mkdtempSync(join(tmpdir(), 'hl-fake-ping-'));
    const argsFile = join(bin, 'args');
    const pidFile = join(bin, 'pid');
    let path: string | undefined;
    const stdout = {
      reply:
        'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.04 ms\n',
      silence:
        'PING 10.0.0.9 (10.0.0.9) 56(84) bytes of data.\n\n--- 10.0.0.9 ping statistics ---\n1 packets transmitted, 0 received, 100% packet loss, time 0ms\n',
    };
    const ping = async (mode: string, ...argv: string[]) => {
      process.env.FAKE_PING_MODE = mode;
      const run = await runProbe(['icmp', ...argv]);
      return { ...run, line: untimed(run.line) };
    };

    before(() => {
      writeFileSync(join(bin, 'reply.out'), stdout.reply);
      writeFileSync(join(bin, 'silence.out'), stdout.silence);
      writeFileSync(
        join(bin, 'ping'),
        [
          '#!/bin/sh',
          `echo "$*" > ${argsFile}`,
          `dir=${bin}`,
          'case "$FAKE_PING_MODE" in',
          '  reply) cat "$dir/reply.out"; exit 0 ;;',
          '  silence) cat "$dir/silence.out"; exit 1 ;;',
          '  bad-host) echo "ping: nosuch: Name or service not known" >&2; exit 2 ;;',
          '  quiet-failure) exit 2 ;;',
          `  hang) echo $$ > ${pidFile}; exec sleep 30 ;;`,
          'esac',
          'exit 3',
        ].join('\n'),
      );
      chmodSync(join(bin, 'ping'), 0o755);
      path = process.env.PATH;
      process.env.PATH = `${bin}:${path ?? ''}`;
    });
    after(() => {
      process.env.PATH = path;
      delete process.env.FAKE_PING_MODE;
      fs.rmSync(bin, { recursive: true, force: true });
    });

    it("asks one echo, waiting the probe's deadline in whole seconds (at least one)", async () => {
      expect(await ping('reply', '127.0.0.1', '--timeout-ms', '2500')).to.deep.equal({
        line: { kind: 'icmp', result: 'ok', peer: '127.0.0.1' },
        code: 0,
        lingering: false,
      });
      expect(readFileSync(argsFile, 'utf8')).to.equal('-n -c 1 -W 3 -w 3 127.0.0.1\n');
      await ping('reply', '127.0.0.1', '--timeout-ms', '200');
      expect(readFileSync(argsFile, 'utf8')).to.equal('-n -c 1 -W 1 -w 1 127.0.0.1\n');
      await ping('reply', '127.0.0.1');
      expect(readFileSync(argsFile, 'utf8')).to.equal('-n -c 1 -W 3 -w 3 127.0.0.1\n');
    });

    it("reads ping's exit 1 (no reply) from its output", async () => {
      expect((await ping('silence', '10.0.0.9')).line).to.deep.equal({
        kind: 'icmp',
        result: 'timeout',
        error:
          'no echo reply (--- 10.0.0.9 ping statistics ---; 1 packets transmitted, 0 received, 100% packet loss, time 0ms)',
      });
    });

    it("reports any other failing exit as an error with ping's complaint, or the exit", async () => {
      expect((await ping('bad-host', 'nosuch')).line).to.deep.equal({
        kind: 'icmp',
        result: 'error',
        error: 'ping: ping: nosuch: Name or service not known',
      });
      expect((await ping('quiet-failure', '10.0.0.9')).line).to.deep.equal({
        kind: 'icmp',
        result: 'error',
        error: 'ping: Command failed: ping -n -c 1 -W 3 -w 3 10.0.0.9\n',
      });
    });

    it('kills a ping that outlives the deadline', async () => {
      fs.rmSync(pidFile, { force: true });
      expect(await ping('hang', '10.0.0.9', '--timeout-ms', '300')).to.deep.equal({
        line: { kind: 'icmp', result: 'timeout', error: 'no answer within 300 ms' },
        code: 1,
        lingering: true,
      });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      const alive = () => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(status(pid));
      try {
        for (let waited = 0; alive() && waited < 2000; waited += 50) await sleep(50);
        expect(alive(), 'the stand-in ping still runs').to.equal(false);
      } finally {
        if (alive()) process.kill(pid, 'SIGKILL');
      }
    });

    it('reports a probe that throws as an error, with nothing left behind', async () => {
      expect(await ping('reply', '127.0.0.1\0', '--timeout-ms', '2000')).to.deep.equal({
        line: {
          kind: 'icmp',
          result: 'error',
          error:
            "The argument 'args[7]' must be a string without null bytes. Received '127.0.0.1\\x00'",
        },
        code: 1,
        lingering: false,
      });
    });
  });

  describe('dns-tcp (a resolv.conf of the test)', () => {
    it('reports a resolv.conf it cannot read, or one without a nameserver, as an error', async () => {
      const unreadable = new Error("EACCES: permission denied, open '/etc/resolv.conf'");
      const read = await withResolvConf(unreadable, () => runProbe(['dns-tcp', 'web.example']));
      expect(untimed(read.line)).to.deep.equal({
        kind: 'dns-tcp',
        result: 'error',
        error: unreadable.message,
      });
      const none = await withResolvConf('search example\n', () =>
        runProbe(['dns-tcp', 'web.example']),
      );
      expect(untimed(none.line)).to.deep.equal({
        kind: 'dns-tcp',
        result: 'error',
        error: 'no nameserver in /etc/resolv.conf',
      });
    });

    describe('against a server on TCP 53 of a loopback address', () => {
      // A random 127/8 address: other runs on this host may listen on 53 of another.
      const address = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
      let server: Server | undefined;
      /** What the server does with the query it reads (its bytes, the length included). */
      let reply: (socket: import('node:net').Socket, query: Buffer) => void = () => {};

      before(async function () {
        if (process.getuid?.() !== 0) skipTest(this, missing('needs root (listens on port 53)'));
        server = createTcpServer((socket) => {
          socket.once('data', (query) => {
            reply(socket, query);
          });
        });
        server.listen(53, address);
        try {
          await once(server, 'listening');
        } catch (err) {
          // A DNS server on the wildcard address of this host holds port 53 of every address.
          server = undefined;
          skipTest(this, missing(`port 53 of ${address}: ${String(err)}`));
        }
      });
      after(() => server?.close());

      const ask = (name: string) =>
        withResolvConf(`search example\nnameserver ${address}\n`, () =>
          runProbe(['dns-tcp', name, '--timeout-ms', '2000']),
        );

      /** The response to `query` (a TCP query, length first) answering A 10.96.0.20. */
      const answered = (query: Buffer): Buffer => {
        const message = Buffer.from(query.subarray(2));
        message.writeUInt16BE(0x8180, 2); // a response, RD RA, NOERROR
        message.writeUInt16BE(1, 6); // one answer
        const record = Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4, 10, 96, 0, 20]);
        const whole = Buffer.concat([message, record]);
        const length = Buffer.alloc(2);
        length.writeUInt16BE(whole.length);
        return Buffer.concat([length, whole]);
      };

      it('reads an answer that arrives a byte, then the rest of its length, then the rest', async () => {
        reply = (socket, query) => {
          const answer = answered(query);
          socket.write(answer.subarray(0, 1), () => {
            setTimeout(() => {
              socket.write(answer.subarray(1, 20), () => {
                setTimeout(() => socket.end(answer.subarray(20)), 50);
              });
            }, 50);
          });
        };
        const { line, code } = await ask('web.example');
        expect(code).to.equal(0);
        expect(untimed(line)).to.deep.equal({
          kind: 'dns-tcp',
          result: 'ok',
          addresses: ['10.96.0.20'],
          peer: address,
        });
      });

      it('reads a message of no bytes as one (and finds it too short)', async () => {
        reply = (socket) => socket.write(Buffer.from([0, 0]));
        const { line } = await ask('web.example');
        expect(untimed(line)).to.deep.equal({
          kind: 'dns-tcp',
          result: 'error',
          error: 'a 0-byte reply',
          peer: address,
        });
      });

      it('reports a server that closes without answering, naming it', async () => {
        reply = (socket) => socket.end();
        const { line } = await ask('web.example');
        expect(untimed(line)).to.deep.equal({
          kind: 'dns-tcp',
          result: 'error',
          error: `${address}:53 closed the connection without an answer`,
        });
      });
    });
  });

  describe('endpoints over udp', () => {
    let backend: Socket;
    before(async () => {
      backend = await udpServer((msg, from) => (msg === 'hostname' ? 'pod-u' : from));
    });
    after(() => backend.close());

    it('asks hostname and clientip in datagrams of a new socket per request', async () => {
      const base = `udp://127.0.0.1:${backend.address().port}`;
      const run = await runProbe(['endpoints', base, '--expect', 'pod-u', '--max-requests', '3']);
      expect({ code: run.code, lingering: run.lingering }).to.deep.equal({
        code: 0,
        lingering: false,
      });
      expect(untimed(run.line)).to.deep.include({
        kind: 'endpoints',
        result: 'ok',
        answers: [{ endpoint: 'pod-u', client: '127.0.0.1' }],
      });
    });

    it('fails at the first request where nothing listens, and may leave a lookup behind', async () => {
      const closed = createSocket('udp4');
      closed.bind(0, '127.0.0.1');
      await once(closed, 'listening');
      const { port } = closed.address();
      closed.close();
      const base = `udp://127.0.0.1:${port}`;
      const run = await runProbe(['endpoints', base, '--expect', 'pod-u', '--max-requests', '2']);
      expect({ code: run.code, lingering: run.lingering }).to.deep.equal({
        code: 1,
        lingering: true,
      });
      expect(untimed(run.line)).to.deep.equal({
        kind: 'endpoints',
        result: 'refused',
        error: 'request 1 of 2: recvmsg ECONNREFUSED',
        answers: [],
      });
    });
  });

  describe('perf', function () {
    this.timeout(20_000);
    let server: HttpServer;
    let base = '';
    /** What /stream sends back. */
    let streamed = '';
    before(async () => {
      server = createHttpServer((req, res) => {
        const path = (req.url ?? '').replace(/\?.*/, '');
        if (path === '/hostname') res.end('pod-p');
        else if (path === '/echo') res.end('x');
        else if (path === '/stream') res.writeHead(200, { 'x-hostname': 'pod-p' }).end(streamed);
        else res.writeHead(404).end();
      });
      base = `http://127.0.0.1:${await listening(server)}`;
    });
    after(() => {
      server.closeAllConnections();
      server.close();
    });

    it('is ok once a request was answered (at the default rate)', async () => {
      const { line, code } = await runProbe(['perf', 'tcp-rr', base, '--duration-ms', '100']);
      expect({ kind: line.kind, result: line.result, code }).to.deep.equal({
        kind: 'perf',
        result: 'ok',
        code: 0,
      });
      expect(line).to.not.have.property('error');
      expect(line.perf).to.include({ measure: 'tcp-rr', durationMs: 100, backend: 'pod-p' });
      expect((line.perf as { transactions: number }).transactions).to.be.above(0);
    });

    it('is a timeout, naming the measure and its duration, when no request was answered', async () => {
      const port = await closedPort();
      const { line, code } = await runProbe([
        'perf',
        'tcp-rr',
        `http://127.0.0.1:${port}`,
        '--duration-ms',
        '100',
      ]);
      expect(code).to.equal(1);
      expect(line).to.include({
        kind: 'perf',
        result: 'timeout',
        error: 'tcp-rr: nothing answered in 100 ms',
      });
      expect(line.perf).to.include({ measure: 'tcp-rr', transactions: 0 });
    });

    it('is ok for a stream that carried bytes, a timeout for one that carried none', async () => {
      const measure = async () => {
        const { line } = await runProbe([
          'perf',
          'tcp-stream-reverse',
          base,
          '--duration-ms',
          '100',
        ]);
        return {
          result: line.result,
          error: line.error,
          mbps: (line.perf as { mbps: number }).mbps,
        };
      };
      streamed = 'x'.repeat(200_000);
      const carried = await measure();
      expect(carried).to.include({ result: 'ok', error: undefined });
      expect(carried.mbps).to.be.above(0);
      streamed = '';
      expect(await measure()).to.deep.equal({
        result: 'timeout',
        error: 'tcp-stream-reverse: nothing answered in 100 ms',
        mbps: 0,
      });
    });

    it('takes --rate-mbps', async () => {
      const { line } = await runProbe([
        'perf',
        'tcp-rr',
        base,
        '--duration-ms',
        '50',
        '--rate-mbps',
        '5',
      ]);
      expect(line.result).to.equal('ok');
    });
  });
});

/** /proc/PID/status, or '' once it is gone. */
function status(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}
