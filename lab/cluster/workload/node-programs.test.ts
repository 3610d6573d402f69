/**
 * The node workloads of emulated labs: kube-proxy's health-check server and the API server's TLS
 * stand-in, run as the lab runs them and asked as the suite's probe asks them.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Program } from '../../testing/spawned-program.ts';
import { missing, skipTest } from '../../testing/skip.ts';
import { certificateArgs } from '../apiserver-standin.ts';
import { fixturePlan } from '../../testing/fixture-plan.ts';
import { runProbe } from './probes.mjs';

const HEALTH = new URL('./health-server.mjs', import.meta.url);
const STANDIN = new URL('./apiserver-standin.mjs', import.meta.url);

/** GET http://127.0.0.1:port/path: status, headers and body (a refused connection rejects). */
function ask(port: number, path = '/healthz') {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body });
      });
    }).on('error', reject);
  });
}

/** Ports the kernel says are free now (the server binds them right after). */
async function freePorts(n: number): Promise<number[]> {
  const { createServer } = await import('node:net');
  const servers = await Promise.all(
    Array.from({ length: n }, async () => {
      const server = createServer().listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      return server;
    }),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

describe('node workloads of emulated labs', function () {
  this.timeout(15_000);
  let dir = '';
  const started: Program[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-programs-test-'));
  });
  after(async () => {
    started.forEach((p) => {
      p.stop();
    });
    await rm(dir, { recursive: true, force: true });
  });

  it("health-server: kube-proxy's answer per port, 200 with local endpoints and 503 without; SIGHUP reopens", async () => {
    const [a = 0, b = 0] = await freePorts(2);
    const config = join(dir, 'health.json');
    const entry = (port: number, name: string, localEndpoints: number) => ({
      port,
      namespace: 'ns',
      name,
      localEndpoints,
    });
    await writeFile(config, JSON.stringify({ services: [entry(a, 'health-linux', 1)] }));
    const server = Program.start(HEALTH, ['--config', config, '--bind', '127.0.0.1']);
    started.push(server);
    expect(await server.nextLine()).to.equal('listening health=1');
    const ok = await ask(a);
    expect(ok).to.include({ status: 200, type: 'application/json' });
    expect(JSON.parse(ok.body)).to.deep.equal({
      service: { namespace: 'ns', name: 'health-linux' },
      localEndpoints: 1,
    });
    await writeFile(config, JSON.stringify({ services: [entry(b, 'health-windows', 0)] }));
    server.child.kill('SIGHUP');
    expect(await server.nextLine()).to.equal('reloaded health=1');
    const none = await ask(b, '/anything');
    expect(none.status).to.equal(503);
    expect(JSON.parse(none.body)).to.deep.include({ localEndpoints: 0 });
    // The Service that left closed its port: refused, as kube-proxy closes its listener.
    const gone = await ask(a).then(
      () => 'answered',
      (error: unknown) => (error as NodeJS.ErrnoException).code,
    );
    expect(gone).to.equal('ECONNREFUSED');
  });

  it('health-server: keeps running without a Service, and refuses a bad list naming the file', async () => {
    const empty = join(dir, 'empty.json');
    await writeFile(empty, JSON.stringify({ services: [] }));
    const idle = Program.start(HEALTH, ['--config', empty]);
    started.push(idle);
    expect(await idle.nextLine()).to.equal('listening health=0');
    await new Promise((r) => setTimeout(r, 300));
    expect(idle.child.exitCode).to.equal(null);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ services: [{ port: 'x' }] }));
    const refused = Program.start(HEALTH, ['--config', bad]);
    started.push(refused);
    expect(await refused.exited).to.equal(1);
    expect(await refused.stderrAfterExit()).to.include(`${bad}: services[0] needs port`);
  });

  it("apiserver stand-in: TLS at the API server's port, a 403 Status that says it is the stand-in; the probe takes it as an answer", async function () {
    if (spawnSync('openssl', ['version']).status !== 0)
      skipTest(this, missing('openssl is not installed (apt-get install openssl)'));
    const plan = fixturePlan();
    const made = spawnSync('openssl', certificateArgs(plan, plan.nodes[0]!, dir), {
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).to.equal(0);
    const standin = Program.start(STANDIN, [
      '--cert',
      join(dir, 'tls.crt'),
      '--key',
      join(dir, 'tls.key'),
      '--bind',
      '127.0.0.1',
      '--port',
      '0',
    ]);
    started.push(standin);
    const port = Number(
      /^listening apiserver=127\.0\.0\.1:(\d+)$/.exec(await standin.nextLine())?.[1],
    );
    const { line } = await runProbe(['http', `https://127.0.0.1:${port}/version`]);
    expect(line).to.include({ result: 'http-error', status: 403, peer: '127.0.0.1' });
    const body = JSON.parse(String(line.body)) as { kind: string; code: number; message: string };
    expect(body).to.include({ kind: 'Status', code: 403 });
    expect(body.message).to.include('emulated API server stand-in, not kube-apiserver');
    // Plain HTTP is no way in: the stand-in speaks TLS only.
    const { line: plain } = await runProbe([
      'http',
      `http://127.0.0.1:${port}/version`,
      '--timeout-ms',
      '2000',
    ]);
    expect(plain.result).to.not.equal('ok');
    const cert = spawnSync(
      'openssl',
      ['x509', '-noout', '-ext', 'subjectAltName', '-in', join(dir, 'tls.crt')],
      {
        encoding: 'utf8',
      },
    );
    expect(cert.stdout)
      .to.include('IP Address:10.96.0.1')
      .and.include('kubernetes.default.svc.cluster.local');
  });
});
