/**
 * What probes.mjs makes of a probe's arguments, before any traffic: the exact usage error line
 * for each wrong command line, USAGE itself, and the result each socket or resolver error maps to.
 */
import { expect } from 'chai';
import { expectProbeUsage } from '../../testing/probes-fixtures.ts';
import { USAGE, fromError, runProbe } from './probes.mjs';

describe('fromError', () => {
  const withCode = (code: string) =>
    Object.assign(new Error(`connect ${code} 10.0.0.1:80`), { code });
  const cases: [string, unknown, string][] = [
    ['ECONNREFUSED', withCode('ECONNREFUSED'), 'refused'],
    ['EHOSTUNREACH', withCode('EHOSTUNREACH'), 'unreachable'],
    ['ENETUNREACH', withCode('ENETUNREACH'), 'unreachable'],
    ['EHOSTDOWN', withCode('EHOSTDOWN'), 'unreachable'],
    ['ENETDOWN', withCode('ENETDOWN'), 'unreachable'],
    ['ETIMEDOUT', withCode('ETIMEDOUT'), 'timeout'],
    ['ENOTFOUND', withCode('ENOTFOUND'), 'nxdomain'],
    ['ECONNRESET', withCode('ECONNRESET'), 'error'],
  ];
  for (const [code, err, result] of cases) {
    it(`maps ${code} onto ${result}, keeping the message`, () => {
      expect(fromError(err)).to.deep.equal({ result, error: `connect ${code} 10.0.0.1:80` });
    });
  }

  it("reads a happy-eyeballs AggregateError by its first attempt's code", () => {
    const err = new AggregateError([withCode('ENETDOWN'), withCode('ECONNREFUSED')], 'all failed');
    expect(fromError(err)).to.deep.equal({ result: 'unreachable', error: 'all failed' });
  });

  it('maps an error without a code, or anything thrown, onto error', () => {
    expect(fromError(new Error('boom'))).to.deep.equal({ result: 'error', error: 'boom' });
    expect(fromError('boom')).to.deep.equal({ result: 'error', error: 'boom' });
  });
});

describe('USAGE', () => {
  it('names every probe kind, every perf measure and every flag', () => {
    expectProbeUsage(USAGE);
  });
});

describe('runProbe usage errors: exit 2 and one line naming the kind and what is wrong', () => {
  const maxRequests0 = "--max-requests must be an integer from 1 to 10000, got '0'";
  const duration0 = "--duration-ms must be an integer from 1 to 10000, got '0'";
  const cases: [string[], string | null, string][] = [
    [[], null, 'missing probe kind'],
    [['ping', '127.0.0.1'], 'ping', "unknown probe 'ping'"],
    [['http'], 'http', 'http takes URL'],
    [['http', 'xhttp://127.0.0.1/'], 'http', 'not an http(s) URL: xhttp://127.0.0.1/'],
    [['http', 'http://'], 'http', 'not an http(s) URL: http://'],
    [['tcp', '127.0.0.1'], 'tcp', 'tcp takes HOST PORT'],
    [['tcp', '127.0.0.1', '70000'], 'tcp', "PORT must be an integer from 1 to 65535, got '70000'"],
    [['udp', '127.0.0.1', '9'], 'udp', 'udp takes HOST PORT MESSAGE'],
    [['dns'], 'dns', 'dns takes NAME'],
    [['icmp'], 'icmp', 'icmp takes HOST'],
    [['dns-tcp'], 'dns-tcp', 'dns-tcp takes NAME'],
    [['dns-tcp', 'a..b'], 'dns-tcp', 'not a DNS name: a..b'],
    [
      ['dns', 'localhost', '--timeout-ms', 'soon'],
      'dns',
      "--timeout-ms must be an integer from 1 to 600000, got 'soon'",
    ],
    [['tcp', '127.0.0.1', '80', '--expect', 'a'], 'tcp', '--expect is for endpoints only'],
    [['tcp', '127.0.0.1', 'x', '--duration-ms', '5'], 'tcp', '--duration-ms is for perf only'],
    [['tcp', '127.0.0.1', 'x', '--rate-mbps', '5'], 'tcp', '--rate-mbps is for perf only'],
    [['endpoints'], 'endpoints', 'endpoints takes http://HOST:PORT or udp://HOST:PORT'],
    [
      ['endpoints', 'xhttp://127.0.0.1:1', '--expect', 'a', '--max-requests', '0'],
      'endpoints',
      'not http://HOST:PORT or udp://HOST:PORT (no path): xhttp://127.0.0.1:1',
    ],
    [
      ['endpoints', 'http://127.0.0.1:1/hostname', '--expect', 'a', '--max-requests', '0'],
      'endpoints',
      'not http://HOST:PORT or udp://HOST:PORT (no path): http://127.0.0.1:1/hostname',
    ],
    [
      ['endpoints', 'udp://127.0.0.1', '--expect', 'a', '--max-requests', '0'],
      'endpoints',
      'udp://HOST:PORT needs its PORT: udp://127.0.0.1',
    ],
    // Past the base: a udp:// base with its port, an http:// one without.
    [
      ['endpoints', 'udp://127.0.0.1:9/', '--expect', 'a', '--max-requests', '0'],
      'endpoints',
      maxRequests0,
    ],
    [
      ['endpoints', 'http://127.0.0.1', '--expect', 'a', '--max-requests', '0'],
      'endpoints',
      maxRequests0,
    ],
    [
      ['endpoints', 'http://127.0.0.1:1', '--max-requests', '2'],
      'endpoints',
      'endpoints needs --expect NAME[,NAME…]',
    ],
    [
      ['endpoints', 'http://127.0.0.1:1', '--expect', ',', '--max-requests', '2'],
      'endpoints',
      'endpoints needs --expect NAME[,NAME…]',
    ],
    [
      ['endpoints', 'http://127.0.0.1:1', '--expect', 'a'],
      'endpoints',
      'endpoints needs --max-requests N',
    ],
    [
      [
        'endpoints',
        'http://127.0.0.1:1',
        '--expect',
        'a',
        '--max-requests',
        '2',
        '--min-requests',
        '0',
      ],
      'endpoints',
      "--min-requests must be an integer from 1 to 10000, got '0'",
    ],
    [
      ['perf', 'tcp-rr'],
      'perf',
      'perf takes MEASURE http://HOST:PORT (udp://HOST:PORT for udp-stream)',
    ],
    [
      ['perf', 'tcp-nosuch', 'http://127.0.0.1:9', '--duration-ms', '0'],
      'perf',
      "unknown perf measure 'tcp-nosuch'",
    ],
    [
      ['perf', 'udp-stream', 'http://127.0.0.1:9', '--duration-ms', '0'],
      'perf',
      'udp-stream measures udp://HOST:PORT, got http://127.0.0.1:9',
    ],
    [
      ['perf', 'tcp-rr', 'udp://127.0.0.1:9', '--duration-ms', '0'],
      'perf',
      'tcp-rr measures http://HOST:PORT, got udp://127.0.0.1:9',
    ],
    [
      ['perf', 'tcp-rr', 'http://127.0.0.1:9/path', '--duration-ms', '0'],
      'perf',
      'tcp-rr measures http://HOST:PORT, got http://127.0.0.1:9/path',
    ],
    [
      ['perf', 'tcp-rr', 'xhttp://127.0.0.1:9', '--duration-ms', '0'],
      'perf',
      'tcp-rr measures http://HOST:PORT, got xhttp://127.0.0.1:9',
    ],
    [
      ['perf', 'tcp-rr', 'http://a b:9', '--duration-ms', '0'],
      'perf',
      'tcp-rr measures http://HOST:PORT, got http://a b:9',
    ],
    [
      ['perf', 'tcp-rr', 'http://127.0.0.1:9'],
      'perf',
      "--duration-ms must be an integer from 1 to 10000, got ''",
    ],
    [['perf', 'tcp-rr', 'http://127.0.0.1:9/', '--duration-ms', '0'], 'perf', duration0],
    [['perf', 'udp-stream', 'udp://127.0.0.1:9', '--duration-ms', '0'], 'perf', duration0],
    [
      ['perf', 'tcp-rr', 'http://127.0.0.1:9', '--duration-ms', '100', '--rate-mbps', '0'],
      'perf',
      "--rate-mbps must be an integer from 1 to 10000, got '0'",
    ],
  ];
  for (const [argv, kind, error] of cases) {
    it(`${argv.join(' ') || '(nothing)'}: ${error}`, async () => {
      expect(await runProbe(argv)).to.deep.equal({
        line: { kind, result: 'error', error },
        code: 2,
        lingering: false,
        usage: error,
      });
    });
  }
});
