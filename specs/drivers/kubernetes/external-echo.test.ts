// Traffic in these tests goes to 127.0.0.1 only.
import { createServer, type Server } from 'node:net';
import { expect } from 'chai';
import { RecordingRunner } from '../../../lab/testing/recording-runner.ts';
import { ExternalEcho, routeSourceAddress } from './external-echo.ts';
import { probeFromHost } from './outside-probe.ts';

describe('external echo and probes from the harness host (127.0.0.1 only)', () => {
  it('answers /clientip with the address and port it saw, and stops idempotently', async () => {
    const echo = await ExternalEcho.start('127.0.0.1', 0);
    const url = `http://127.0.0.1:${echo.port}`;
    const reply = await probeFromHost({ kind: 'http', url: `${url}/clientip` }, 2000);
    expect(reply.result).to.equal('ok');
    expect(reply.body).to.match(/^127\.0\.0\.1:\d+$/);
    expect(await probeFromHost({ kind: 'http', url: `${url}/nope` }, 2000)).to.include({
      result: 'http-error',
      status: 404,
    });
    expect(
      await probeFromHost({ kind: 'tcp', host: '127.0.0.1', port: echo.port }, 2000),
    ).to.include({ result: 'ok' });
    await echo.stop();
    await echo.stop();
    expect((await probeFromHost({ kind: 'http', url: `${url}/clientip` }, 2000)).result).to.equal(
      'refused',
    );
  });

  it('reports a server that never answers as timeout within the deadline', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const started = performance.now();
    const reply = await probeFromHost(
      { kind: 'http', url: `http://127.0.0.1:${port}/clientip` },
      80,
    );
    expect(reply.result).to.equal('timeout');
    expect(performance.now() - started).to.be.below(1000);
    silent.close();
  });

  it('finds its address on the route to the first node without sending traffic', async () => {
    const runner = new RecordingRunner().on(/^ip route get 192\.168\.200\.10$/, {
      stdout: '192.168.200.10 via 10.0.0.1 dev eth0 src 10.0.0.42 uid 0 \n    cache \n',
    });
    expect(await routeSourceAddress(runner, '192.168.200.10')).to.equal('10.0.0.42');
    expect(runner.lines()).to.deep.equal(['ip route get 192.168.200.10']);
  });

  it('without iproute2 (a macOS laptop), asks the kernel through a connected UDP socket instead', async () => {
    // 127 is the shell's "command not found", as execa reports a missing `ip`.
    const runner = new RecordingRunner().on(/^ip route get /, {
      exitCode: 127,
      stderr: 'ip: command not found',
    });
    expect(await routeSourceAddress(runner, '127.0.0.1')).to.equal('127.0.0.1');
  });

  it('says what to set when the echo cannot listen', async () => {
    const first = await ExternalEcho.start('127.0.0.1', 0);
    const error = await ExternalEcho.start('127.0.0.1', first.port).catch((e: unknown) => e);
    expect((error as Error).message).to.contain(`127.0.0.1:${first.port}`);
    expect(error).to.have.property('hint').that.contains('EXTERNAL_ECHO_PORT');
    await first.stop();
  });
});
