// Unit level only: outputs below are the shapes curl and agnhost print; no real cluster exists here.
import { expect } from 'chai';
import { V1Status } from '@kubernetes/client-node';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import type { ExecResult } from './exec-in-pod.ts';
import { exitStatus, recorded } from '../../testing/kube-recorded-objects.ts';

const ran = (exitCode: number, stdout: string, stderr = ''): ExecResult => ({
  exitCode,
  stdout,
  stderr,
  status: exitStatus(exitCode),
});
const http: ProbeRequest = { kind: 'http', url: 'http://10.244.2.7:8080/clientip' };
const dns: ProbeRequest = { kind: 'dns', name: 'web-linux' };
const tcp: ProbeRequest = { kind: 'tcp', host: '10.244.2.7', port: 8080 };

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

    it('reports a non-2xx answer as http-error with its status', () => {
      const reply = replyFromExec(http, ran(0, '404 page not found\n--hybrid-lab-status:404 18'));
      expect(reply).to.include({ result: 'http-error', status: 404, body: '404 page not found' });
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
  });

  it('turns an exec the API failed without an exit code into error', () => {
    const failed: ExecResult = {
      exitCode: null,
      stdout: '',
      stderr: '',
      status: recorded(V1Status, {
        status: 'Failure',
        reason: 'InternalError',
        message: 'exec: "curl": executable file not found in $PATH',
      }),
    };
    expect(replyFromExec(http, failed)).to.deep.equal({
      result: 'error',
      error: 'exec failed: exec: "curl": executable file not found in $PATH',
    });
  });
});
