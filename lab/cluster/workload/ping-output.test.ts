import { expect } from 'chai';
import { parsePing } from './ping-output.mjs';

describe('ping output', () => {
  it("reads iputils' reply, silence and an unreachable report", () => {
    expect(
      parsePing(
        'PING 10.244.1.3 (10.244.1.3) 56(84) bytes of data.\n64 bytes from 10.244.1.3: icmp_seq=1 ttl=63 time=0.1 ms\n\n--- 10.244.1.3 ping statistics ---\n1 packets transmitted, 1 received, 0% packet loss, time 0ms\n',
      ),
    ).to.deep.equal({ result: 'ok', peer: '10.244.1.3' });
    expect(
      parsePing(
        'PING 10.244.9.9 (10.244.9.9) 56(84) bytes of data.\n\n--- 10.244.9.9 ping statistics ---\n1 packets transmitted, 0 received, 100% packet loss, time 0ms\n',
      ),
    ).to.deep.include({ result: 'timeout' });
    expect(
      parsePing(
        'PING 10.244.1.9 (10.244.1.9) 56(84) bytes of data.\nFrom 10.244.1.1 icmp_seq=1 Destination Host Unreachable\n',
      ),
    ).to.deep.equal({
      result: 'unreachable',
      error: 'From 10.244.1.1 icmp_seq=1 Destination Host Unreachable',
    });
  });

  it("reads Windows ping.exe: a reply, a time-out, and a router's unreachable (not a reply)", () => {
    expect(
      parsePing(
        '\r\nPinging 10.244.3.4 with 32 bytes of data:\r\nReply from 10.244.3.4: bytes=32 time<1ms TTL=128\r\n',
      ),
    ).to.deep.equal({ result: 'ok', peer: '10.244.3.4' });
    expect(
      parsePing('\r\nPinging 198.51.100.1 with 32 bytes of data:\r\nRequest timed out.\r\n'),
    ).to.deep.include({ result: 'timeout' });
    expect(
      parsePing(
        '\r\nPinging 10.0.0.9 with 32 bytes of data:\r\nReply from 10.0.0.5: Destination host unreachable.\r\n',
      ).result,
    ).to.equal('unreachable');
  });

  it('quotes the last two lines said when no reply came, as iputils and ping.exe print them', () => {
    expect(
      parsePing(
        'PING 10.244.9.9 (10.244.9.9) 56(84) bytes of data.\n\n--- 10.244.9.9 ping statistics ---\n1 packets transmitted, 0 received, 100% packet loss, time 0ms\n\n',
      ),
    ).to.deep.equal({
      result: 'timeout',
      error:
        'no echo reply (--- 10.244.9.9 ping statistics ---; 1 packets transmitted, 0 received, 100% packet loss, time 0ms)',
    });
    expect(
      parsePing(
        '\r\nPinging 198.51.100.1 with 32 bytes of data:\r\nRequest timed out.\r\n\r\nPing statistics for 198.51.100.1:\r\n    Packets: Sent = 1, Received = 0, Lost = 1 (100% loss),\r\n',
      ),
    ).to.deep.equal({
      result: 'timeout',
      error:
        'no echo reply (Ping statistics for 198.51.100.1:; Packets: Sent = 1, Received = 0, Lost = 1 (100% loss),)',
    });
  });

  it('says only "no echo reply" when ping printed nothing', () => {
    expect(parsePing('')).to.deep.equal({ result: 'timeout', error: 'no echo reply' });
    expect(parsePing(' \n\r\n')).to.deep.equal({ result: 'timeout', error: 'no echo reply' });
  });

  it('reads a reply only from a line that starts with it', () => {
    expect(
      parsePing('ping: warning: 64 bytes from 10.244.1.3: icmp_seq=1 looked odd\n'),
    ).to.deep.include({ result: 'timeout' });
    expect(parsePing('Last: Reply from 10.244.3.4: bytes=32 time<1ms TTL=128\r\n')).to.deep.include(
      { result: 'timeout' },
    );
  });

  it('reads an unreachable report whatever stands between "Destination net" and "unreachable"', () => {
    expect(parsePing('Reply from 10.0.0.5: Destination net is unreachable.\r\n')).to.deep.equal({
      result: 'unreachable',
      error: 'Reply from 10.0.0.5: Destination net is unreachable',
    });
  });
});
