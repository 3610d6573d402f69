import { copyFileSync, chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ProviderError, WaitTimeoutError } from '../../errors.ts';
import type { RunOptions, RunResult } from '../../exec/command-runner.ts';
import { ExecaRunner } from '../../exec/execa-runner.ts';
import { RecordingRunner } from '../../testing/recording-runner.ts';
import { silentLogger } from '../../log/logger.ts';
import type { NodeShell } from '../../remote/node-shell.ts';
import { listNamespaces } from '../dataplane/namespace-cleanup.ts';
import { netnsSkipReason } from '../../testing/netns-host.ts';
import { ShellPodRuntime, VM_PATHS } from './shell-pod-runtime.ts';
import {
  LOCAL_WORKLOADS,
  READY_LINE,
  RELOADED_LINE,
  dnsServerArgv,
  netexecArgv,
} from './workload-programs.ts';
import { skipIf } from '../../testing/skip.ts';

/** A NodeShell over a runner: argv runs on this host, as it would on a VM through ssh. */
class LocalShell implements NodeShell {
  readonly node = 'local';
  constructor(private readonly runner: RecordingRunner | ExecaRunner) {}
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    const [file, ...args] = argv;
    return this.runner.run(file!, args, options);
  }
}

describe('ShellPodRuntime (pods of a node reached through its shell)', function () {
  it('starts a program with one helper call and returns its pid and ready line', async function () {
    const runner = new RecordingRunner().on(/ start /, {
      stdout: 'pid=4242\nready=listening http=8080 udp=8081\n',
    });
    const runtime = new ShellPodRuntime(new LocalShell(runner));
    const started = await runtime.start(
      'hl-x-pod_a_b',
      ['/usr/bin/node', 'netexec.mjs'],
      '/var/log/p.log',
      READY_LINE,
    );
    expect(started).to.deep.equal({ pid: 4242, readyLine: 'listening http=8080 udp=8081' });
    expect(runner.calls).to.have.length(1);
    expect(runner.calls[0]!.args).to.deep.equal([
      'start',
      'hl-x-pod_a_b',
      '/var/log/p.log',
      '^listening ',
      '180000',
      '--',
      '/usr/bin/node',
      'netexec.mjs',
    ]);
    expect(runner.calls[0]!.file).to.equal(VM_PATHS.helper);
  });

  it('fails a start with the program output, as a timeout when the helper timed out', async function () {
    const runner = new RecordingRunner()
      .on(/ start hl-a /, { exitCode: 1, stderr: 'exited before it was ready; output:\nboom' })
      .on(/ start hl-b /, { exitCode: 124, stderr: 'not ready after 60000 ms' });
    const runtime = new ShellPodRuntime(new LocalShell(runner));
    const crashed = await runtime.start('hl-a', ['x'], '/l', READY_LINE).catch((e: unknown) => e);
    expect(crashed).to.be.instanceOf(ProviderError);
    expect(String(crashed)).to.match(/boom/);
    const silent = await runtime.start('hl-b', ['x'], '/l', READY_LINE).catch((e: unknown) => e);
    expect(silent).to.be.instanceOf(WaitTimeoutError);
  });

  it('maps signal-wait exit codes: 0 reloaded, 3 not running, 124 timeout', async function () {
    const runner = new RecordingRunner()
      .on(/signal-wait 1 /, { exitCode: 0 })
      .on(/signal-wait 2 /, { exitCode: 3 })
      .on(/signal-wait 3 /, { exitCode: 124, stderr: 'no line' });
    const runtime = new ShellPodRuntime(new LocalShell(runner));
    expect(await runtime.signalAndWait(1, 'SIGHUP', '/l', RELOADED_LINE, 100)).to.equal(true);
    expect(await runtime.signalAndWait(2, 'SIGHUP', '/l', RELOADED_LINE, 100)).to.equal(false);
    const late = await runtime
      .signalAndWait(3, 'SIGHUP', '/l', RELOADED_LINE, 100)
      .catch((e: unknown) => e);
    expect(late).to.be.instanceOf(WaitTimeoutError);
  });

  it("adds the round-trip allowance to callers' timeouts and never throws on a failed exec", async function () {
    const runner = new RecordingRunner().on(/probe/, { exitCode: 7, stdout: '{}' });
    const runtime = new ShellPodRuntime(new LocalShell(runner), { overheadMs: 1000 });
    const result = await runtime.exec('hl-ns', ['probe'], { timeoutMs: 500 });
    expect(result.exitCode).to.equal(7);
    expect(runner.calls[0]!.line).to.equal('ip netns exec hl-ns probe');
    expect(runner.calls[0]!.options).to.include({ timeoutMs: 1500, check: false });
  });

  describe('with the real pod helper in real namespaces', function () {
    this.timeout(60_000);
    const runner = new ExecaRunner(silentLogger());
    const ns = `hl-itph${process.pid.toString(36)}-pod_t_p`;
    const dir = mkdtempSync(join(tmpdir(), 'hl-helper-'));
    // Installed as on a VM: a copy with mode 0755, whatever mode the checkout gave the source.
    const helper = join(dir, 'hl-pod');
    copyFileSync(fileURLToPath(new URL('pod-helper.sh', import.meta.url)), helper);
    chmodSync(helper, 0o755);
    const runtime = new ShellPodRuntime(new LocalShell(runner), {
      readyTimeoutMs: 20_000,
      paths: {
        helper,
        workloads: LOCAL_WORKLOADS,
        dataDir: dir,
      },
    });

    before(async function () {
      skipIf(this, await netnsSkipReason(runner));
    });

    after(async function () {
      await runtime.removeSandboxes([ns]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates a sandbox, runs a DNS server in it, reloads it by signal and removes it all', async function () {
      await runtime.createSandbox(ns, 'nameserver 10.96.0.10\nsearch default.svc.cluster.local\n');
      expect(readFileSync(`/etc/netns/${ns}/resolv.conf`, 'utf8')).to.match(/10\.96\.0\.10/);
      const zone = join(dir, 'zone.json');
      await runtime.writeFile(zone, JSON.stringify({ domain: 'cluster.local', records: {} }));
      await runtime.exec(ns, ['ip', 'link', 'set', 'lo', 'up'], { check: true });
      const log = join(dir, 'logs', 'dns.log');
      const dns = await runtime.start(
        ns,
        dnsServerArgv(zone, '127.0.0.1', LOCAL_WORKLOADS),
        log,
        READY_LINE,
      );
      expect(dns.readyLine).to.match(/^listening dns=/);
      expect(await runtime.signalAndWait(dns.pid, 'SIGHUP', log, RELOADED_LINE, 10_000)).to.equal(
        true,
      );
      const removed = await runtime.removeSandboxes([ns]);
      expect(removed).to.deep.equal([`removed netns ${ns}`]);
      expect(await listNamespaces(runner)).to.not.include(ns);
      expect(await runtime.signalAndWait(dns.pid, 'SIGHUP', log, RELOADED_LINE, 1000)).to.equal(
        false,
      );
    });

    it('reports a program that exits before it is ready, with its output', async function () {
      const bad = [...netexecArgv('x', LOCAL_WORKLOADS), '--http-port', 'not-a-port'];
      const error = await runtime
        .start(undefined, bad, join(dir, 'logs', 'bad.log'), READY_LINE)
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ProviderError);
      expect(String(error)).to.match(/netexec/);
    });
  });
});
