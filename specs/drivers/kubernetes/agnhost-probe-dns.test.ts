// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { dns, ran } from '../../testing/agnhost-probe-fixtures.ts';

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
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
});
