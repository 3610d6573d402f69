import { expect } from 'chai';
import { Program } from '../../testing/spawned-program.ts';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { Agent, get as httpGet } from 'node:http';
import { createServer, type Socket } from 'node:net';

const NETEXEC = new URL('./netexec.mjs', import.meta.url);

/** Starts netexec on free loopback ports and returns the ports it printed. */
async function startNetexec(
  bind: string,
  started: Program[],
): Promise<{ program: Program; http: number; udp: number }> {
  const args = ['--http-port', '0', '--udp-port', '0', '--hostname', 'pod-a', '--bind', bind];
  const program = Program.start(NETEXEC, args);
  started.push(program);
  const line = await program.nextLine();
  const match = /^listening http=(\d+) udp=(\d+)$/.exec(line);
  if (match === null) throw new Error(`unexpected first line: ${line}`);
  return { program, http: Number(match[1]), udp: Number(match[2]) };
}

async function udpAsk(port: number, message: string): Promise<string> {
  const socket = createSocket('udp4');
  try {
    const reply = once(socket, 'message', { signal: AbortSignal.timeout(2000) });
    socket.send(message, port, '127.0.0.1');
    const [data] = (await reply) as [Buffer];
    return data.toString('utf8');
  } finally {
    socket.close();
  }
}

/** GETs `url` through `agent`: the body and the connection it came over. */
function getOver(agent: Agent, url: string): Promise<{ body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent }, (res) => {
      const socket = res.socket; // null once the response ended
      let body = '';
      res.setEncoding('utf8').on('data', (text: string) => (body += text));
      res.on('end', () => {
        resolve({ body, socket });
      });
    }).on('error', reject);
  });
}

describe('netexec', function () {
  this.timeout(10_000);
  const started: Program[] = [];
  let http = 0;
  let udp = 0;
  const get = (path: string) => fetch(`http://127.0.0.1:${http}${path}`);

  before(async () => {
    ({ http, udp } = await startNetexec('127.0.0.1', started));
  });

  after(() => {
    started.forEach((p) => {
      p.stop();
    });
  });

  it('answers /hostname with the given name', async () => {
    const res = await get('/hostname');
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('pod-a');
  });

  it('answers /clientip with the peer address and port', async () => {
    expect(await (await get('/clientip')).text()).to.match(/^127\.0\.0\.1:\d+$/);
  });

  // The endpoints probe asks both over one connection so both answers come from one backend.
  it('answers /hostname and then /clientip over one keep-alive connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const hostname = await getOver(agent, `http://127.0.0.1:${http}/hostname`);
      const clientip = await getOver(agent, `http://127.0.0.1:${http}/clientip`);
      expect(hostname.body).to.equal('pod-a');
      expect(clientip.socket, 'the same connection').to.equal(hostname.socket);
      expect(clientip.body).to.equal(`127.0.0.1:${hostname.socket.localPort}`);
    } finally {
      agent.destroy();
    }
  });

  it('echoes msg on /echo', async () => {
    expect(await (await get('/echo?msg=hello%20world')).text()).to.equal('hello world');
  });

  it('answers ok on /healthz', async () => {
    expect(await (await get('/healthz')).text()).to.equal('ok');
  });

  it('sends N bytes of x on /big', async () => {
    const body = await (await get('/big?bytes=100000')).text();
    expect(body).to.have.length(100_000);
    expect(body.replaceAll('x', '')).to.equal('');
  });

  it('rejects /big above 1,000,000 bytes', async () => {
    expect((await get('/big?bytes=1000001')).status).to.equal(400);
  });

  it('answers 404 for unknown paths', async () => {
    expect((await get('/nope')).status).to.equal(404);
  });

  it('answers the UDP hostname, echo and clientip commands', async () => {
    expect(await udpAsk(udp, 'hostname')).to.equal('pod-a');
    expect(await udpAsk(udp, 'echo hello there')).to.equal('hello there');
    expect(await udpAsk(udp, 'clientip')).to.match(/^127\.0\.0\.1:\d+$/);
  });

  it('strips ::ffff: from IPv4 peers of a dual-stack socket', async () => {
    const dual = await startNetexec('::', started);
    const res = await fetch(`http://127.0.0.1:${dual.http}/clientip`);
    expect(await res.text()).to.match(/^127\.0\.0\.1:\d+$/);
  });

  it('exits 0 on SIGTERM', async () => {
    const { program } = await startNetexec('127.0.0.1', started);
    program.child.kill('SIGTERM');
    expect(await program.exited).to.equal(0);
  });

  it('exits 1 naming the address when the HTTP port is taken', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const program = Program.start(NETEXEC, ['--http-port', `${port}`, '--bind', '127.0.0.1']);
      started.push(program);
      expect(await program.exited).to.equal(1);
      expect(await program.stderrAfterExit()).to.include(`127.0.0.1:${port}`);
    } finally {
      blocker.close();
    }
  });

  it('exits 2 on an unknown flag', async () => {
    const program = Program.start(NETEXEC, ['--nope', '1']);
    started.push(program);
    expect(await program.exited).to.equal(2);
    expect(await program.stderrAfterExit()).to.include('unknown flag --nope');
  });
});
