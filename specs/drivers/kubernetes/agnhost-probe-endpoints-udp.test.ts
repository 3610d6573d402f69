// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { ran } from '../../testing/agnhost-probe-fixtures.ts';

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
  describe('endpoints over UDP (one socket per exec on Linux; two /dial calls on Windows)', () => {
    const sweep: ProbeRequest = {
      kind: 'endpoints',
      base: 'udp://10.96.101.21:8081',
      service: 'web-linux',
      expect: ['netexec-lin2-b'],
      maxRequests: 20,
    };

    it('runs a bash script on Linux: one /dev/udp socket, a reply per question within half the budget', () => {
      const argv = probeCommand('linux', sweep, 3000);
      expect(argv.slice(0, 2)).to.deep.equal(['bash', '-c']);
      expect(argv.slice(3)).to.deep.equal(['udp-sweep', '10.96.101.21', '8081', '1.500']);
      expect(argv[2]).to.contain('exec 3<>"/dev/udp/$1/$2"');
      expect(argv[2]).to.contain('timeout "$3" dd bs=4096 count=1 status=none <&3');
    });

    it('asks netexec /dial for hostname then clientip on Windows, in one curl run', () => {
      const argv = probeCommand('windows', sweep, 3000);
      expect(argv[0]).to.equal('curl.exe');
      const dials = argv.slice(-2).map((href) => Object.fromEntries(new URL(href).searchParams));
      expect(dials.map((d) => d.request)).to.deep.equal(['hostname', 'clientip']);
      expect(dials[0]).to.include({
        protocol: 'udp',
        host: '10.96.101.21',
        port: '8081',
        tries: '1',
      });
    });

    it("pairs the Linux script's two replies (as bash printed them for netexec)", () => {
      const stdout =
        'netexec-lin2-b\n--hybrid-lab-udp:hostname\n10.244.1.5:43775\n--hybrid-lab-udp:clientip\n';
      expect(replyFromExec(sweep, ran(0, stdout), 'linux')).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'netexec-lin2-b', client: '10.244.1.5' }],
      });
    });

    it("maps the script's failures: 124 timeout, refused, a name bash could not resolve", () => {
      expect(replyFromExec(sweep, ran(124, 'netexec-lin2-b\n'), 'linux').result).to.equal(
        'timeout',
      );
      const refused = "dd: error reading 'standard input': Connection refused\n";
      expect(replyFromExec(sweep, ran(1, '', refused), 'linux')).to.deep.equal({
        result: 'refused',
        error: refused.trim(),
      });
      const unknown = [
        'udp-sweep: line 1: web-linux.x: Name or service not known',
        'udp-sweep: line 1: /dev/udp/web-linux.x/8081: Invalid argument',
      ].join('\n');
      expect(replyFromExec(sweep, ran(6, '', unknown), 'linux').result).to.equal('nxdomain');
    });

    it('asks /dial with curl.exe failing early, the two sharing half the budget (Windows)', () => {
      const argv = probeCommand('windows', sweep, 3000);
      expect(argv.slice(0, -2)).to.deep.equal([
        'curl.exe',
        '-sS',
        '--fail-early',
        '-m',
        '1.500',
        '-w',
        '\n--hybrid-lab-status:%{http_code}\n',
      ]);
    });

    it("words the Linux script's failures: the last stderr line, or its exit", () => {
      expect(replyFromExec(sweep, ran(124, ''), 'linux')).to.deep.equal({
        result: 'timeout',
        error: 'no UDP reply in time',
      });
      expect(
        replyFromExec(sweep, ran(124, '', 'udp-sweep: line 4: killed\n'), 'linux'),
      ).to.deep.equal({
        result: 'timeout',
        error: 'no UDP reply in time udp-sweep: line 4: killed',
      });
      const unknown = 'udp-sweep: line 1: web-linux.x: Name or service not known\n';
      expect(replyFromExec(sweep, ran(1, '', unknown), 'linux')).to.deep.equal({
        result: 'nxdomain',
        error: 'udp-sweep: line 1: web-linux.x: Name or service not known',
      });
      expect(replyFromExec(sweep, ran(6, ''), 'linux')).to.deep.equal({
        result: 'error',
        error: 'the UDP sweep script exited 6',
      });
    });

    it('cuts a long Linux reply to 4096 characters, and reports output with no marker lines', () => {
      const long = 'h'.repeat(5000);
      const stdout = `${long}\n--hybrid-lab-udp:hostname\n10.244.1.5:43775\n--hybrid-lab-udp:clientip\n`;
      expect(replyFromExec(sweep, ran(0, stdout), 'linux')).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'h'.repeat(4096), client: '10.244.1.5' }],
      });
      const unmarked = 'n'.repeat(300);
      expect(replyFromExec(sweep, ran(0, unmarked), 'linux')).to.deep.equal({
        result: 'error',
        error: `the UDP sweep script printed no answers: ${'n'.repeat(200)}`,
      });
    });

    it('reads a failed Windows curl as curl, and counts the /dial answers it printed', () => {
      expect(
        replyFromExec(
          sweep,
          ran(28, '', 'curl: (28) Operation timed out after 1500 milliseconds'),
          'windows',
        ),
      ).to.deep.equal({ result: 'timeout', error: 'Operation timed out after 1500 milliseconds' });
      const one = '{"responses":["netexec-lin2-b"]}\n--hybrid-lab-status:200\n';
      expect(replyFromExec(sweep, ran(0, one), 'windows')).to.deep.equal({
        result: 'error',
        error: 'curl printed 1 of 2 /dial answers',
      });
    });

    it('pairs the Windows /dial answers, and reports a /dial error', () => {
      const ok = [
        '{"responses":["netexec-lin2-b"]}\n--hybrid-lab-status:200',
        '{"responses":["10.244.4.2:51002"]}\n--hybrid-lab-status:200',
      ].join('\n');
      expect(replyFromExec(sweep, ran(0, ok), 'windows')).to.deep.equal({
        result: 'ok',
        answers: [{ endpoint: 'netexec-lin2-b', client: '10.244.4.2' }],
      });
      const lost = [
        '{"responses":["netexec-lin2-b"]}\n--hybrid-lab-status:200',
        '{"errors":["reading from udp connection failed. err:\'read udp 10.244.4.2:51003->10.96.101.21:8081: i/o timeout\'"]}\n--hybrid-lab-status:200',
      ].join('\n');
      expect(replyFromExec(sweep, ran(0, lost), 'windows').result).to.equal('timeout');
    });
  });
});
