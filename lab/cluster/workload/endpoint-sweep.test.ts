import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import {
  SWEEP_CONNECT_MS,
  askOneConnection,
  clientAddress,
  sweepEndpoints,
} from './endpoint-sweep.mjs';
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
    expect(reply).to.deep.equal({
      result: 'ok',
      answers: [
        { endpoint: 'a', client: '10.244.1.5' },
        { endpoint: 'a', client: '10.244.1.5' },
        { endpoint: 'b', client: '10.244.1.5' },
      ],
    });
  });

  it('makes maxRequests requests and is still ok when an endpoint never answers', async () => {
    const { ask, asked } = scripted([answered('a'), answered('a'), answered('a')]);
    const reply = await sweepEndpoints({ expect: ['a', 'gone'], maxRequests: 3 }, ask);
    expect(asked).to.deep.equal([1, 2, 3]);
    expect(reply.result).to.equal('ok');
    expect(reply.answers).to.have.length(3);
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

  it('reads the client IP out of what /clientip shows', () => {
    expect(clientAddress('10.244.1.5:43512')).to.equal('10.244.1.5');
    expect(clientAddress('[fd00:10:244::5]:43512')).to.equal('fd00:10:244::5');
    expect(clientAddress('fd00:10:244::5')).to.equal('fd00:10:244::5');
    expect(clientAddress('10.244.1.5\n')).to.equal('10.244.1.5');
    expect(clientAddress('[::ffff:10.244.1.5]:80')).to.equal('10.244.1.5');
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
    expect(await askOneConnection(base, classify)).to.deep.equal({
      result: 'ok',
      answers: [{ endpoint: 'pod-a', client: '127.0.0.1' }],
    });
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

  it('refuses to pair answers from two connections when the server closes after /hostname', async () => {
    const reply = await askOneConnection(await start({ closeEach: true }), classify);
    expect(reply).to.include({ result: 'error' });
    expect(reply).to.have.property('error').that.contains('went over a new one');
  });

  it('hands socket errors to the classifier', async () => {
    const base = await start();
    backends.at(-1)!.close();
    const reply = await askOneConnection(base, classify);
    expect(reply).to.include({ result: 'error' });
    expect(reply).to.have.property('error').that.contains('ECONNREFUSED');
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
