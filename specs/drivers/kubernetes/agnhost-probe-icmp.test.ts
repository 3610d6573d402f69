// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { ran } from '../../testing/agnhost-probe-fixtures.ts';

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
  describe('icmp (ping)', () => {
    const icmp: ProbeRequest = { kind: 'icmp', host: '10.244.2.7' };
    it("pings once with iputils' ping on Linux, PowerShell's .NET Ping on Windows, within the budget", () => {
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
});
