import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { V1Status } from '@kubernetes/client-node';
import { exitStatus, recorded } from '../../testing/kube-recorded-objects.ts';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { missing, skipTest } from '../../../lab/testing/skip.ts';
import { AGNHOST_WINDOWS } from '../../../lab/provision/windows-image-commands.ts';
import {
  iperfFigures,
  iperfServerCommand,
  perfCommand,
  perfReply,
  perfUnsupportedReason,
  requestFigures,
} from './perf-in-pod.ts';

type PerfRequest = Extract<ProbeRequest, { kind: 'perf' }>;
const OURS = 'hybrid-lab/agnhost:2.25';
const ok = exitStatus(0);

describe('perf in pods: which cells the Kubernetes driver measures', () => {
  it('measures Linux to Linux on every network with the Debian-built image', () => {
    for (const network of ['pod', 'host'] as const)
      for (const measure of ['tcp-rr', 'tcp-crr', 'tcp-stream', 'udp-stream'] as const)
        expect(perfUnsupportedReason({ from: 'linux', to: 'linux', network, measure }, OURS)).to.be
          .undefined;
    expect(
      perfUnsupportedReason(
        { from: 'linux', to: 'linux', network: 'service', measure: 'tcp-rr' },
        OURS,
      ),
    ).to.be.undefined;
  });

  it('skips Windows sources, streams to Windows, Service streams and other images, saying why', () => {
    const cell = { from: 'linux', to: 'linux', network: 'pod', measure: 'tcp-stream' } as const;
    // The fact it rests on (windows-facts.ts, agnhost-windows-image): no iperf3 known in the image.
    expect(AGNHOST_WINDOWS.unknown.map((u) => u.name)).to.include('iperf3.exe');
    expect(AGNHOST_WINDOWS.programs.map((p) => p.name)).not.to.include('iperf3.exe');
    expect(perfUnsupportedReason({ ...cell, from: 'windows' }, OURS)).to.match(/no iperf3/);
    expect(perfUnsupportedReason({ ...cell, to: 'windows' }, OURS)).to.match(
      /Windows agnhost image has no iperf3 server/,
    );
    expect(perfUnsupportedReason({ ...cell, to: 'windows', measure: 'tcp-rr' }, OURS)).to.be
      .undefined;
    expect(perfUnsupportedReason({ ...cell, network: 'service' }, OURS)).to.match(
      /control and data connections/,
    );
    expect(perfUnsupportedReason(cell, 'registry.k8s.io/e2e-test-images/agnhost:2.52')).to.match(
      /registry\.k8s\.io\/e2e-test-images\/agnhost:2\.52 is not the project's/,
    );
  });
});

describe('perf in pods: reading iperf3 -J', () => {
  const tcp = (reverse: boolean) =>
    JSON.stringify({
      start: { tcp_mss_default: 1448 },
      end: {
        sum_sent: { seconds: 1.0, bytes: 1_448_000, bits_per_second: 11.6e6, retransmits: 70 },
        sum_received: { seconds: 1.002, bytes: 1_440_000, bits_per_second: 11.5e6 },
        ...(reverse ? {} : {}),
      },
    });

  it('takes the rate that arrived, in Mbit/s, and the run time iperf3 reports', () => {
    const f = iperfFigures('tcp-stream', tcp(false));
    expect(f).to.deep.equal({ durationMs: 1002, mbps: 11.5, failed: 0, attempts: 1 });
  });

  it("a reverse stream's server retransmissions, its segments from bytes over the MSS", () => {
    const f = iperfFigures('tcp-stream-reverse', tcp(true));
    expect(f.serverRetransmitted).to.equal(70);
    expect(f.serverSent).to.equal(1000);
  });

  it('UDP: datagrams the receiver counted lost of those sent', () => {
    const json = JSON.stringify({
      end: {
        sum: { seconds: 1, packets: 417, lost_packets: 300, bits_per_second: 1.1e6 },
        sum_received: { seconds: 1.01, packets: 417, lost_packets: 310, bits_per_second: 1.0e6 },
      },
    });
    expect(iperfFigures('udp-stream', json)).to.deep.equal({
      durationMs: 1010,
      mbps: 1,
      failed: 310,
      attempts: 417,
    });
  });

  it("iperf3's own error is the reply's, refused stays refused", () => {
    const stdout = `--hl-perf-iperf3\n${JSON.stringify({ error: 'unable to connect to server: Connection refused' })}\n--hl-perf-iperf3-exit:1\n`;
    const reply = perfReply(request('tcp-stream'), { exitCode: 0, stdout, stderr: '', status: ok });
    expect(reply.result).to.equal('refused');
    expect(reply.error).to.match(/^iperf3: unable to connect/);
    expect(() => iperfFigures('tcp-stream', '{"end":{}}')).to.throw(/no sum_received/);
  });
});

describe('perf in pods: reading the request lines', () => {
  const lines = (...rs: string[]) =>
    [
      'x',
      ...rs.map((r) => `--hl-perf-request:${r}`),
      '--hl-perf-backend:web-lin1-a',
      '--hl-perf-elapsed:500',
    ].join('\n');

  it('percentiles of the answered, waited from 200 ms, failed by status or the request limit', () => {
    const f = requestFigures(
      lines(
        '200 0.001000',
        '200 0.002000',
        '200 0.250000',
        '000 0.000000',
        '200 1.600000',
        '500 0.001',
      ),
      250,
    );
    expect(f.transactions).to.equal(3);
    expect(f.attempts).to.equal(6);
    expect(f.failed).to.equal(3);
    expect(f.waited).to.equal(1);
    expect([f.p50Ms, f.p90Ms, f.p99Ms]).to.deep.equal([2, 250, 250]);
    // Per second of what ran (500 ms), not of the duration asked.
    expect(f.ratePerS).to.equal(6);
    expect(f.durationMs).to.equal(500);
    expect(f.backend).to.equal('web-lin1-a');
  });

  it('nothing answered is a timeout with the figures, not a pass', () => {
    const stdout = lines('000 1.500000', '000 1.500000');
    const reply = perfReply(request('tcp-rr'), { exitCode: 0, stdout, stderr: '', status: ok });
    expect(reply.result).to.equal('timeout');
    expect(reply.perf?.failed).to.equal(2);
  });

  it("the client namespace's segments between the two /proc/net/snmp dumps", () => {
    const snmp = (when: string, out: number, re: number) =>
      [
        `--hl-perf-${when}:Tcp: RtoAlgorithm RtoMin OutSegs RetransSegs InErrs`,
        `--hl-perf-${when}:Tcp: 1 200 ${out} ${re} 0`,
      ].join('\n');
    const stdout = [snmp('before', 1000, 3), lines('200 0.001'), snmp('after', 1400, 23)].join(
      '\n',
    );
    const reply = perfReply(request('tcp-crr'), { exitCode: 0, stdout, stderr: '', status: ok });
    expect(reply.perf).to.include({ sent: 400, retransmitted: 20 });
  });

  it('an exec the API failed is an error naming why', () => {
    const status = recorded(V1Status, { status: 'Failure', message: 'container not found' });
    const reply = perfReply(request('tcp-rr'), { exitCode: null, stdout: '', stderr: '', status });
    expect(reply).to.deep.equal({ result: 'error', error: 'exec failed: container not found' });
  });
});

function request(measure: PerfRequest['measure'], base = 'http://127.0.0.1:1'): PerfRequest {
  return { kind: 'perf', measure, base, durationMs: 250, rateMbps: 4 };
}

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function run(argv: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ exitCode: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
    });
  });
}

describe('perf in pods: the commands run for real (bash, curl, iperf3 on loopback)', function () {
  this.timeout(30_000);
  let web: Server | undefined;
  let base: string;
  let iperfPort: number;
  const pidFile = join(tmpdir(), `hl-perf-in-pod-${process.pid}.pid`);

  before(async function () {
    for (const tool of ['bash', 'curl', 'iperf3'])
      if (spawnSync(tool, ['--version']).status !== 0)
        skipTest(this, missing(`${tool} is not installed (apt-get install ${tool})`));
    const server = createServer((req, res) => {
      if (req.url === '/hostname') res.end('web-test');
      else if (req.url?.startsWith('/echo?msg=')) res.end(req.url.slice('/echo?msg='.length));
      else res.writeHead(404).end();
    });
    web = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
    iperfPort = await freePort();
    const started = await run([...iperfServerCommand('127.0.0.1', iperfPort), '-I', pidFile]);
    expect(started.exitCode, started.stderr).to.equal(0);
    await sleep(300);
  });

  after(async () => {
    // Skipped before the server started: nothing to close.
    if (web !== undefined) await new Promise((resolve) => web!.close(resolve));
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()));
    } catch {
      // not started
    }
    rmSync(pidFile, { force: true });
  });

  const measure = async (r: PerfRequest) => {
    const out = await run(perfCommand(r, iperfPort));
    return perfReply(r, { ...out, status: ok });
  };

  it('tcp-rr: many requests, ten per connection, named backend, no failures', async () => {
    const reply = await measure(request('tcp-rr', base));
    expect(reply.result, reply.error).to.equal('ok');
    expect(reply.perf?.transactions).to.be.greaterThan(10);
    expect(reply.perf?.failed).to.equal(0);
    expect(reply.perf?.backend).to.equal('web-test');
    expect(reply.perf?.sent).to.be.greaterThan(0);
  });

  it('tcp-crr: a request per connection', async () => {
    const reply = await measure(request('tcp-crr', base));
    expect(reply.result, reply.error).to.equal('ok');
    expect(reply.perf?.transactions).to.be.greaterThan(0);
    expect(reply.perf?.p50Ms).to.be.greaterThan(0);
  });

  it('tcp-stream and its reverse: Mbit/s through the iperf3 server, the reverse with its retransmissions', async () => {
    const forward = await measure(request('tcp-stream', base));
    expect(forward.result, forward.error).to.equal('ok');
    expect(forward.perf?.mbps).to.be.greaterThan(10);
    expect(forward.perf?.durationMs).to.be.within(900, 1500);
    const reverse = await measure(request('tcp-stream-reverse', base));
    expect(reverse.result, reverse.error).to.equal('ok');
    expect(reverse.perf?.serverSent).to.be.greaterThan(50);
  });

  it('udp-stream: the asked rate arrives, nothing lost on loopback', async () => {
    const reply = await measure({ ...request('udp-stream', `udp://127.0.0.1:${iperfPort}`) });
    expect(reply.result, reply.error).to.equal('ok');
    expect(reply.perf?.mbps).to.be.within(3.5, 4.5);
    expect(reply.perf?.attempts).to.be.within(400, 430);
    expect(reply.perf?.failed).to.equal(0);
  });

  it('no iperf3 server there: refused', async () => {
    const reply = await run(perfCommand(request('tcp-stream', base), await freePort()));
    expect(perfReply(request('tcp-stream'), { ...reply, status: ok }).result).to.equal('refused');
  });
});
