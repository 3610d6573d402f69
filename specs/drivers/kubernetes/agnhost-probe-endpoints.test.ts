// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { endpoints, ran } from '../../testing/agnhost-probe-fixtures.ts';

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
});
