import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createTcp, type Server as TcpServer } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { askArgv, heldReply, holdArgv, holdFailure } from './held-connection.ts';

const run = promisify(execFile);

/** held-connection.sh on this host: a holder started detached, asked like a pod's would be. */
async function hold(dir: string, kind: 'http' | 'udp', port: number): Promise<string> {
  const [file, ...args] = holdArgv(dir, { kind, host: '127.0.0.1', port });
  const child = execFile(file!, args);
  return new Promise((resolve) => {
    let out = '';
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (/^(holding|failed) /m.test(out)) resolve(out.trim());
    });
    child.on('exit', () => {
      resolve(out.trim());
    });
  });
}

async function ask(dir: string, seq: number, verb: 'http' | 'udp' | 'close', arg = '') {
  const [file, ...args] = askArgv(dir, seq, 1000, verb, arg);
  const { stdout } = await run(file!, args);
  return heldReply(stdout);
}

describe('held connections (held-connection.sh)', function () {
  this.timeout(30_000);
  let dir: string;
  let http: Server;
  let silent: TcpServer;
  let udp: Socket;
  const ports = { http: 0, silent: 0, udp: 0 };

  before(async () => {
    http = createHttp((req, res) => {
      const body =
        req.url === '/clientip'
          ? `${req.socket.remoteAddress}:${req.socket.remotePort}`
          : 'server-a';
      res.writeHead(200, { 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    http.keepAliveTimeout = 0;
    // Accepts and never answers: what a silent drop looks like from the client.
    silent = createTcp(() => undefined);
    udp = createSocket('udp4');
    udp.on('message', (m, from) => {
      udp.send(`got ${m.toString()}`, from.port, from.address);
    });
    await Promise.all([
      new Promise<void>((r) => http.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => silent.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => udp.bind(0, '127.0.0.1', r)),
    ]);
    ports.http = (http.address() as { port: number }).port;
    ports.silent = (silent.address() as { port: number }).port;
    ports.udp = udp.address().port;
  });
  after(() => {
    http.closeAllConnections();
    http.close();
    silent.close();
    udp.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-held-'));
  });
  afterEach(async () => {
    // Holders still holding are closed; one whose folder is gone ends by itself too.
    for (const name of ['r', 's', 'u'])
      await ask(join(dir, name), 99, 'close').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks on one connection: the server sees the same client port each time', async () => {
    expect(await hold(join(dir, 'h'), 'http', ports.http)).to.match(
      /^holding tcp 127\.0\.0\.1:\d+/,
    );
    const first = await ask(join(dir, 'h'), 1, 'http', '/clientip');
    await new Promise((r) => setTimeout(r, 1200));
    const again = await ask(join(dir, 'h'), 2, 'http', '/clientip');
    expect(first.result).to.equal('ok');
    expect(again).to.deep.equal(first);
    expect(await ask(join(dir, 'h'), 3, 'http', '/hostname')).to.deep.equal({
      result: 'ok',
      body: 'server-a',
    });
    expect(await ask(join(dir, 'h'), 4, 'close')).to.deep.equal({ result: 'ok', body: 'closed' });
    // The holder is gone: a request is not taken, within its timeout.
    expect((await ask(join(dir, 'h'), 5, 'http', '/hostname')).result).to.equal('timeout');
  });

  it('reads a reset as refused, and silence as a timeout', async () => {
    await hold(join(dir, 'r'), 'http', ports.http);
    expect((await ask(join(dir, 'r'), 1, 'http', '/hostname')).result).to.equal('ok');
    http.closeAllConnections();
    const reset = await ask(join(dir, 'r'), 2, 'http', '/hostname');
    expect(reset.result).to.equal('refused');
    await hold(join(dir, 's'), 'http', ports.silent);
    const quiet = await ask(join(dir, 's'), 1, 'http', '/hostname');
    expect(quiet).to.deep.include({ result: 'timeout' });
  });

  it('sends datagrams from one socket and reads each reply whole', async () => {
    expect(await hold(join(dir, 'u'), 'udp', ports.udp)).to.match(/^holding udp /);
    expect(await ask(join(dir, 'u'), 1, 'udp', 'hostname')).to.deep.equal({
      result: 'ok',
      body: 'got hostname',
    });
    expect(await ask(join(dir, 'u'), 2, 'udp', 'clientip')).to.deep.equal({
      result: 'ok',
      body: 'got clientip',
    });
  });

  it('says why it could not connect', async () => {
    const line = await hold(join(dir, 'f'), 'http', ports.silent + 1);
    expect(line).to.match(/^failed /);
    expect(holdFailure(line).result).to.equal('refused');
  });

  it('reads every answer line, and anything else as an error', () => {
    expect(heldReply('ok a b\n')).to.deep.equal({ result: 'ok', body: 'a b' });
    expect(heldReply('timeout no answer')).to.deep.equal({ result: 'timeout', error: 'no answer' });
    expect(heldReply('refused reset')).to.deep.equal({ result: 'refused', error: 'reset' });
    expect(heldReply('bash: oops').result).to.equal('error');
  });
});
