// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { endpoints, http, ran } from '../../testing/agnhost-probe-fixtures.ts';

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
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
});
