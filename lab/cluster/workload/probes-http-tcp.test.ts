/**
 * The http and tcp probes of probes.mjs run in this process (probe.test.ts runs them as probe.mjs,
 * a child process; probes-usage.test.ts checks their arguments): the whole line each reports,
 * against servers on 127.0.0.1 started here. The system's ping is stood in for by a script on PATH,
 * /etc/resolv.conf by a stubbed readFileSync.
 */
import { expect } from 'chai';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';
import { runProbe } from './probes.mjs';
import { closedPort, listening, untimed, withLookup } from '../../testing/probes-fixtures.ts';
import { withStoppedClock } from '../../testing/stopped-clock.ts';

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
});
