/**
 * The udp, dns, dns-tcp and endpoints-over-udp probes of probes.mjs run in this process
 * (probe.test.ts runs them as probe.mjs, a child process; probes-usage.test.ts checks their
 * arguments): the whole line each reports, against servers on 127.0.0.1 started here. The system's
 * ping is stood in for by a script on PATH, /etc/resolv.conf by a stubbed readFileSync.
 */
import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { createServer as createTcpServer, type Server } from 'node:net';
import { missing, skipTest } from '../../testing/skip.ts';
import { runProbe } from './probes.mjs';
import { resolverError, untimed, withLookup } from '../../testing/probes-fixtures.ts';

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

async function udpServer(answer: (msg: string, from: string) => string): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', (msg, from) => {
    socket.send(answer(msg.toString(), `${from.address}:${from.port}`), from.port, from.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

describe('runProbe (in this process)', function () {
  this.timeout(10_000);

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
});
