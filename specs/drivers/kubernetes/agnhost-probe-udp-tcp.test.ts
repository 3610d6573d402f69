// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { ran, tcp } from '../../testing/agnhost-probe-fixtures.ts';

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
  describe("udp (the source pod's own netexec /dial)", () => {
    // Bodies as agnhost 2.25's netexec (the Debian-built one in the artifact cache) answered them.
    const udp: ProbeRequest = { kind: 'udp', host: '10.244.2.7', port: 8081, message: 'clientip' };
    const dialed = (body: string) => ran(0, `${body}\n--hybrid-lab-status:200`);

    it('asks 127.0.0.1:8080/dial for one UDP datagram to the target, bounded by curl', () => {
      const argv = probeCommand('windows', udp, 2000);
      expect(argv[0]).to.equal('curl.exe');
      expect(argv).to.include.members(['--connect-timeout', '2.000', '-m', '2.000']);
      const url = new URL(argv.at(-1)!);
      expect(url.origin + url.pathname).to.equal('http://127.0.0.1:8080/dial');
      expect(Object.fromEntries(url.searchParams)).to.deep.equal({
        request: 'clientip',
        protocol: 'udp',
        host: '10.244.2.7',
        port: '8081',
        tries: '1',
      });
    });

    it('returns the reply datagram as the body, the address dialed as the peer', () => {
      expect(replyFromExec(udp, dialed('{"responses":["10.244.1.5:45731"]}'))).to.deep.equal({
        result: 'ok',
        body: '10.244.1.5:45731',
        peer: '10.244.2.7',
      });
    });

    it('maps agnhost errors: i/o timeout to timeout, connection refused to refused; curl 28 to timeout', () => {
      const timedOut = replyFromExec(
        udp,
        dialed(
          `{"errors":["reading from udp connection failed. err:'read udp 10.244.1.5:45508-\\u003e10.244.2.7:8081: i/o timeout'"]}`,
        ),
      );
      expect(timedOut.result).to.equal('timeout');
      expect(timedOut.error).to.match(/^\/dial: reading from udp connection failed/);
      const refused = replyFromExec(
        udp,
        dialed(
          `{"errors":["reading from udp connection failed. err:'read udp 10.244.1.5:59459-\\u003e10.244.2.7:8081: read: connection refused'"]}`,
        ),
      );
      expect(refused.result).to.equal('refused');
      expect(replyFromExec(udp, ran(28, '', 'curl: (28) Operation timed out')).result).to.equal(
        'timeout',
      );
      expect(replyFromExec(udp, dialed('not json')).result).to.equal('error');
    });

    it('quotes what /dial answered when it is no JSON, and says so when it named no reply and no error', () => {
      const notJson = dialed(`<html>${'x'.repeat(300)}</html>`);
      expect(replyFromExec(udp, notJson)).to.deep.equal({
        result: 'error',
        error: `/dial answered no JSON: ${notJson.stdout.slice(0, 200)}`,
      });
      expect(replyFromExec(udp, dialed('{"responses":[]}'))).to.deep.equal({
        result: 'error',
        error: '/dial: no reply (HTTP 200)',
      });
      expect(replyFromExec(udp, dialed('{"errors":[42]}'))).to.deep.equal({
        result: 'error',
        error: '/dial: no reply (HTTP 200)',
      });
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

    it('reads the prefix at the start of the output, and a Windows connect timeout', () => {
      expect(replyFromExec(tcp, ran(1, '', 'TIMEOUT\nexit status 1\n'))).to.deep.equal({
        result: 'timeout',
        error: 'TIMEOUT\nexit status 1',
      });
      expect(replyFromExec(tcp, ran(1, '', 'REFUSED\nexit status 1\n')).result).to.equal('refused');
      const late =
        'OTHER: dial tcp 10.244.2.7:8080: connectex: A connection attempt failed because the connected party did not properly respond after a period of time.';
      expect(replyFromExec(tcp, ran(1, '', late)).result).to.equal('timeout');
      expect(replyFromExec(tcp, ran(1, '', 'OTHER: dial tcp: lookup: REFUSED')).result).to.equal(
        'error',
      );
    });

    it('tells a lookup that timed out from a name that does not exist', () => {
      const slow =
        'DNS: lookup web-linux on 10.96.0.10:53: read udp 10.244.1.5:40000->10.96.0.10:53: i/o timeout';
      expect(replyFromExec(tcp, ran(1, '', slow))).to.deep.equal({
        result: 'timeout',
        error: slow,
      });
    });

    it('takes an output without a known prefix as an error, whatever it says, or the exit when silent', () => {
      const unknown = 'dial tcp 10.244.2.7:8080: connect: connection refused';
      expect(replyFromExec(tcp, ran(1, '', unknown))).to.deep.equal({
        result: 'error',
        error: unknown,
      });
      expect(replyFromExec(tcp, ran(2, ''))).to.deep.equal({
        result: 'error',
        error: 'agnhost connect exited 2',
      });
    });
  });
});
