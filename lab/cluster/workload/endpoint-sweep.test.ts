import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import {
  SWEEP_CONNECT_MS,
  askOneConnection,
  askOneSocket,
  clientAddress,
  sweepEndpoints,
  tenths,
} from './endpoint-sweep.mjs';
import { withLookup } from '../../testing/probes-fixtures.ts';
import {
  startEndpointBackend,
  type BackendFaults,
  type EndpointBackend,
} from '../../testing/endpoint-backend.ts';

type Reply = Awaited<ReturnType<Parameters<typeof sweepEndpoints>[1]>>;

/** An ask that answers from `replies` in order and counts its calls. */
function scripted(replies: Reply[]) {
  const asked: number[] = [];
  const ask = (request: number) => {
    asked.push(request);
    return Promise.resolve(replies[request - 1] ?? { result: 'error', error: 'asked too often' });
  };
  return { ask, asked };
}

const answered = (endpoint: string, client = '10.244.1.5'): Reply => ({
  result: 'ok',
  answers: [{ endpoint, client }],
});

describe('endpoint sweep', () => {
  it('stops as soon as every expected endpoint answered', async () => {
    const { ask, asked } = scripted([answered('a'), answered('a'), answered('b'), answered('a')]);
    const reply = await sweepEndpoints({ expect: ['a', 'b'], maxRequests: 10 }, ask);
    expect(asked).to.deep.equal([1, 2, 3]);
    expect(reply).to.deep.include({
      result: 'ok',
      answers: [
        { endpoint: 'a', client: '10.244.1.5' },
        { endpoint: 'a', client: '10.244.1.5' },
        { endpoint: 'b', client: '10.244.1.5' },
      ],
    });
    expect(reply).to.have.property('requests').with.length(3);
  });

  it("keeps each answered request's timing as the asker measured it", async () => {
    const timed = (ms: number, connectMs?: number): Reply => ({
      ...answered('a'),
      ms,
      ...(connectMs === undefined ? {} : { connectMs }),
    });
    const { ask } = scripted([timed(12.5, 3.1), timed(7), answered('b')]);
    const reply = await sweepEndpoints({ expect: ['a', 'b'], maxRequests: 10 }, ask);
    const requests = (reply as { requests: { ms: number; connectMs?: number }[] }).requests;
    // Without a figure of its own, none: the time the ask took is not the request's.
    expect(requests).to.deep.equal([{ ms: 12.5, connectMs: 3.1 }, { ms: 7 }, {}]);
  });

  it('makes maxRequests requests and is still ok when an endpoint never answers', async () => {
    const { ask, asked } = scripted([answered('a'), answered('a'), answered('a')]);
    const reply = await sweepEndpoints({ expect: ['a', 'gone'], maxRequests: 3 }, ask);
    expect(asked).to.deep.equal([1, 2, 3]);
    expect(reply.result).to.equal('ok');
    expect(reply.answers).to.have.length(3);
  });

  it('goes on to minRequests after every endpoint answered, where a kept dead one fails it', async () => {
    const { ask, asked } = scripted([
      answered('a'),
      answered('b'),
      answered('a'),
      { result: 'timeout', error: 'no connection within 900 ms' },
      answered('b'),
    ]);
    const reply = await sweepEndpoints(
      { expect: ['a', 'b'], maxRequests: 10, minRequests: 5 },
      ask,
    );
    expect(asked).to.deep.equal([1, 2, 3, 4]);
    expect(reply).to.deep.include({
      result: 'timeout',
      error: 'request 4 of 10: no connection within 900 ms',
    });
  });

  it('makes exactly minRequests requests when every endpoint answered sooner', async () => {
    const always = () => Promise.resolve(answered('a'));
    for (const minRequests of [1, 2, 3, 7]) {
      const asked: number[] = [];
      const reply = await sweepEndpoints({ expect: ['a'], maxRequests: 10, minRequests }, (n) => {
        asked.push(n);
        return always();
      });
      expect(asked, `minRequests ${minRequests}`).to.have.length(minRequests);
      expect(reply.answers).to.have.length(minRequests);
    }
  });

  it('never goes past maxRequests, whatever minRequests says', async () => {
    const { ask, asked } = scripted(Array.from({ length: 9 }, () => answered('a')));
    await sweepEndpoints({ expect: ['a'], maxRequests: 4, minRequests: 9 }, ask);
    expect(asked).to.deep.equal([1, 2, 3, 4]);
  });

  it('refuses to sweep a Service with no endpoint to expect, asking nothing', async () => {
    const { ask, asked } = scripted([answered('a')]);
    let error: unknown;
    await sweepEndpoints({ expect: [], maxRequests: 4, service: 'web-linux' }, ask).catch(
      (e: unknown) => (error = e),
    );
    expect(error).to.be.instanceOf(RangeError);
    expect((error as Error).message).to.equal(
      'no endpoint to expect of web-linux: a sweep of none would pass unasked',
    );
    expect(asked).to.deep.equal([]);
    const base = await sweepEndpoints(
      { expect: [], maxRequests: 4, base: 'udp://10.96.0.20:8081' },
      ask,
    ).catch((e: unknown) => e);
    expect(String(base)).to.contain('of udp://10.96.0.20:8081:');
    const neither = await sweepEndpoints({ expect: [], maxRequests: 4 }, ask).catch(
      (e: unknown) => e,
    );
    expect(String(neither)).to.contain('of a Service:');
  });

  it('stops at the first failing request, naming it and keeping what answered before', async () => {
    const { ask, asked } = scripted([
      answered('a'),
      { result: 'timeout', error: 'no answer within 3000 ms' },
      answered('b'),
    ]);
    const reply = await sweepEndpoints({ expect: ['a', 'b'], maxRequests: 6 }, ask);
    expect(asked).to.deep.equal([1, 2]);
    expect(reply).to.deep.equal({
      result: 'timeout',
      error: 'request 2 of 6: no answer within 3000 ms',
      answers: [{ endpoint: 'a', client: '10.244.1.5' }],
    });
  });

  it('names the result when the failure carries no error text', async () => {
    const { ask } = scripted([{ result: 'refused' }]);
    const reply = await sweepEndpoints({ expect: ['a'], maxRequests: 2 }, ask);
    expect(reply).to.deep.equal({
      result: 'refused',
      error: 'request 1 of 2: refused',
      answers: [],
    });
  });

  it('keeps timings to a tenth of a millisecond', () => {
    expect([12.345, 0.04, 7].map(tenths)).to.deep.equal([12.3, 0, 7]);
  });

  it('reads the client IP out of what /clientip shows', () => {
    expect(clientAddress('10.244.1.5:43512')).to.equal('10.244.1.5');
    expect(clientAddress('[fd00:10:244::5]:43512')).to.equal('fd00:10:244::5');
    expect(clientAddress('fd00:10:244::5')).to.equal('fd00:10:244::5');
    expect(clientAddress('[fd00:10:244::5]')).to.equal('fd00:10:244::5');
    expect(clientAddress('10.244.1.5\n')).to.equal('10.244.1.5');
    expect(clientAddress('[::ffff:10.244.1.5]:80')).to.equal('10.244.1.5');
    expect(clientAddress('[::ffff:10.244.1.50]:80')).to.equal('10.244.1.50');
    expect(clientAddress('[::ffff:10.244.13.5]:80')).to.equal('10.244.13.5');
  });

  it('reads a bracketed address only when brackets and port are the whole text', () => {
    // Else a client that saw garbage around the right address would pass a source-ip check.
    expect(clientAddress('x[fd00:10:244::5]:80')).to.equal('x[fd00:10:244::5]');
    expect(clientAddress('[fd00:10:244::5]:80x')).to.equal('[fd00:10:244::5]:80x');
    // Only an IPv4-mapped address is read as IPv4; ::ffff: inside another one is part of it.
    expect(clientAddress('[fd00::ffff:10.244.1.5]:80')).to.equal('fd00::ffff:10.244.1.5');
    expect(clientAddress('[::ffff:10.244.1.5.6]:80')).to.equal('::ffff:10.244.1.5.6');
  });
});

describe('askOneConnection (against a backend on 127.0.0.1)', () => {
  const backends: EndpointBackend[] = [];
  const start = async (faults?: BackendFaults) => {
    const backend = await startEndpointBackend('pod-a', faults);
    backends.push(backend);
    return backend.base;
  };
  const classify = (err: unknown) => ({ result: 'error' as const, error: String(err) });
  after(() => {
    backends.forEach((b) => {
      b.close();
    });
  });

  it('answers with the backend name and the client IP, over one new connection each time', async () => {
    const base = await start();
    const before = performance.now();
    const reply = await askOneConnection(base, classify);
    const took = performance.now() - before;
    expect(reply).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
    // Its own timing: the two GETs, and the connect within them.
    const { ms, connectMs } = reply as { ms: number; connectMs: number };
    expect(connectMs).to.be.a('number').and.at.least(0);
    expect(ms)
      .to.be.a('number')
      .and.at.least(connectMs)
      .and.at.most(took + 0.1);
  });

  it('reports a 404 on /clientip as http-error naming the path', async () => {
    const base = await start({ missing: ['/clientip'] });
    expect(await askOneConnection(base, classify)).to.deep.equal({
      result: 'http-error',
      status: 404,
      body: 'not found',
      error: 'GET /clientip: HTTP 404',
    });
  });

  it('a 3xx on /hostname is an http-error too, and /clientip is never asked', async () => {
    const base = await start({ statusOf: { '/hostname': 300 } });
    expect(await askOneConnection(base, classify)).to.deep.equal({
      result: 'http-error',
      status: 300,
      body: 'pod-a',
      error: 'GET /hostname: HTTP 300',
    });
  });

  it('a status under 200 is no success either (node hands a 099 to the caller as a response)', async () => {
    const server = createServer((socket) => {
      socket.on('data', () => socket.end('HTTP/1.1 099 Odd\r\nContent-Length: 5\r\n\r\npod-a'));
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      expect(await askOneConnection(`http://127.0.0.1:${port}`, classify)).to.deep.equal({
        result: 'http-error',
        status: 99,
        body: 'pod-a',
        error: 'GET /hostname: HTTP 99',
      });
    } finally {
      server.close();
    }
  });

  it('leaves no connection open once it answered: each request is a connection of its own', async () => {
    const base = await start();
    expect(await askOneConnection(base, classify)).to.have.property('result', 'ok');
    const backend = backends.at(-1)!;
    // The server would keep an idle keep-alive connection for 5 s; this one is closed at once.
    const deadline = Date.now() + 2000;
    while ((await backend.openConnections()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await backend.openConnections()).to.equal(0);
  });

  it('refuses to pair answers from two connections when the server closes after /hostname', async () => {
    const reply = await askOneConnection(await start({ closeEach: true }), classify);
    expect(reply).to.include({ result: 'error' });
    expect(reply).to.have.property('error').that.contains('went over a new one');
  });

  it("keeps a backend's name trimmed and cut to 4 KiB, as probe.mjs keeps bodies", async () => {
    const base = await start();
    const long = await startEndpointBackend(`\n  ${'p'.repeat(5000)} \n`);
    backends.push(long);
    const reply = await askOneConnection(long.base, classify);
    expect(reply).to.have.nested.property('answers[0].endpoint', 'p'.repeat(4096));
    expect(await askOneConnection(base, classify)).to.have.nested.property(
      'answers[0].endpoint',
      'pod-a',
    );
  });

  it('hands a body cut short by the server to the classifier', async () => {
    const server = createServer((socket) => {
      socket.on('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npod-a');
        setImmediate(() => socket.destroy());
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      expect(await askOneConnection(`http://127.0.0.1:${port}`, classify)).to.deep.equal({
        result: 'error',
        error: 'Error: aborted',
      });
    } finally {
      server.close();
    }
  });

  it('stops at once when the signal was aborted before it began', async () => {
    const base = await start();
    const reply = await askOneConnection(base, classify, AbortSignal.abort());
    expect(reply).to.include({ result: 'error' });
    expect(reply).to.have.property('error').that.contains('AbortError');
  });

  it('times the connect to a name from its lookup on', async () => {
    const base = (await start()).replace('127.0.0.1', 'localhost');
    const reply = await askOneConnection(base, classify);
    expect(reply).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
    // Connected, so within the connect limit: a clock started anywhere else would show more.
    expect(reply).to.have.property('connectMs').that.is.a('number').within(0, SWEEP_CONNECT_MS);
  });

  it('does not count a connect as late when only a starved event loop saw it late', async () => {
    const base = await start();
    const asked = askOneConnection(base, classify);
    // After the ticks queued so far the SYN is out and the timer runs; the kernel connects
    // while this process stays busy past the timer.
    process.nextTick(() => {
      const busyUntil = performance.now() + SWEEP_CONNECT_MS + 100;
      while (performance.now() < busyUntil);
    });
    expect(await asked).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
  });

  it('leaves no connect timer behind when the connection is refused', async () => {
    const base = await start();
    backends.at(-1)!.close();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const reply = await askOneConnection(base, classify);
    expect(reply).to.have.property('error').that.contains('ECONNREFUSED');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(timers()).to.equal(before);
  });

  it('hands socket errors to the classifier', async () => {
    const base = await start();
    backends.at(-1)!.close();
    const reply = await askOneConnection(base, classify);
    expect(reply).to.include({ result: 'error' });
    expect(reply).to.have.property('error').that.contains('ECONNREFUSED');
  });

  it('bounds a connect from its SYN: a name that takes longer than the bound to resolve is no lost SYN', async function () {
    const base = new URL(await start());
    const slowLookup: Parameters<typeof withLookup>[0] =
      (original) => (host, options, callback) => {
        setTimeout(() => {
          original(host, { ...(options as object), family: 4 }, callback);
        }, SWEEP_CONNECT_MS + 300);
      };
    const reply = await withLookup(slowLookup, () =>
      askOneConnection(`http://localhost:${base.port}`, classify),
    );
    expect(reply).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
    // The lookup counts in the request's time, not in its connect's.
    const { ms, connectMs } = reply as { ms: number; connectMs: number };
    expect(ms).to.be.at.least(SWEEP_CONNECT_MS + 300);
    expect(connectMs).to.be.below(SWEEP_CONNECT_MS);
  });

  it('counts a connect that needs a retransmitted SYN as a timeout: a dropped first SYN hides a dead endpoint', async function () {
    // A listener that never accepts, its accept queue full: the kernel drops every further SYN.
    const listener = spawn(
      'python3',
      [
        '-c',
        'import socket,sys,time\ns=socket.socket();s.bind(("127.0.0.1",0));s.listen(0)\n' +
          'print(s.getsockname()[1],flush=True);time.sleep(30)',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(listener.stdout, 'data')) as [Buffer];
      const port = Number(line.toString().trim());
      const filler = connect(port, '127.0.0.1');
      await once(filler, 'connect');
      // probe.mjs classifies ETIMEDOUT as a timeout.
      const byCode = (err: unknown) => ({
        result: (err as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? 'timeout' : 'error',
        error: String(err),
      });
      const reply = await askOneConnection(`http://127.0.0.1:${port}`, byCode);
      filler.destroy();
      expect(reply).to.include({ result: 'timeout' });
      expect(reply)
        .to.have.property('error')
        .that.contains(`no connection within ${SWEEP_CONNECT_MS} ms`);
    } finally {
      listener.kill();
    }
  });
});

describe('askOneSocket (against a UDP backend on 127.0.0.1)', () => {
  const sockets: Socket[] = [];
  /** A backend answering `hostname` and `clientip` as netexec does; `seen` lists each sender. */
  const start = async (answer = true, name = 'pod-a') => {
    const server = createSocket('udp4');
    sockets.push(server);
    const seen: string[] = [];
    server.on('message', (msg, from) => {
      seen.push(`${msg.toString()} from ${from.port}`);
      if (!answer) return;
      const text = msg.toString() === 'hostname' ? name : `${from.address}:${from.port}`;
      server.send(text, from.port, from.address);
    });
    server.bind(0, '127.0.0.1');
    await once(server, 'listening');
    return { base: `udp://127.0.0.1:${server.address().port}`, seen };
  };
  const classify = (err: unknown) => ({
    result: 'error' as const,
    error: `${(err as { code?: string }).code ?? ''} ${String(err)}`,
  });
  after(() => {
    sockets.forEach((s) => {
      s.close();
    });
  });

  it('asks hostname then clientip from one source port, and pairs the two answers', async () => {
    const { base, seen } = await start();
    const reply = await askOneSocket(base, classify);
    expect(reply).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
    expect((reply as { ms?: number }).ms).to.be.a('number');
    const [hostname = '', clientip = ''] = seen;
    expect(hostname).to.match(/^hostname from \d+$/);
    expect(clientip.replace('clientip', 'hostname')).to.equal(hostname);
    // The next request is a new socket: kube-proxy would pick an endpoint anew.
    await askOneSocket(base, classify);
    expect(seen[2]).to.not.equal(hostname);
  });

  it("keeps a backend's name trimmed and cut to 4 KiB, as probe.mjs keeps bodies", async () => {
    const { base } = await start(true, `\n  ${'p'.repeat(5000)} \n`);
    expect(await askOneSocket(base, classify)).to.deep.include({
      result: 'ok',
      answers: [{ endpoint: 'p'.repeat(4096), client: '127.0.0.1' }],
    });
  });

  it('reads an ICMP port-unreachable as a refusal (the socket is connected)', async () => {
    const { base } = await start();
    sockets.at(-1)!.close();
    sockets.pop();
    const reply = await askOneSocket(base, classify);
    expect(reply).to.have.property('error').that.contains('ECONNREFUSED');
  });

  it('ends with a timeout once the caller aborts a socket nothing answers on', async () => {
    const { base, seen } = await start(false);
    const reply = await askOneSocket(base, classify, AbortSignal.timeout(200));
    expect(reply)
      .to.have.property('error')
      .that.matches(/^ETIMEDOUT .*no answer to hostname/);
    expect(seen).to.have.length(1);
  });
});
