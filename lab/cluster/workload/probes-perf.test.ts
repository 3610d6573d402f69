/**
 * The perf probes of probes.mjs run in this process (probe.test.ts runs them as probe.mjs, a child
 * process; probes-usage.test.ts checks their arguments): the whole line each reports, against
 * servers on 127.0.0.1 started here. The system's ping is stood in for by a script on PATH,
 * /etc/resolv.conf by a stubbed readFileSync.
 */
import { expect } from 'chai';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { runProbe } from './probes.mjs';
import { closedPort, listening } from '../../testing/probes-fixtures.ts';

describe('runProbe (in this process)', function () {
  this.timeout(10_000);

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
