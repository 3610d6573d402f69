import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { RunOptions, RunResult } from '../exec/command-runner.ts';
import { Redactor } from '../exec/redactor.ts';
import { SshNodeShell } from '../remote/ssh-node-shell.ts';
import { exitCodeOverOpenSsh } from '../testing/openssh-powershell.ts';
import { RecordingRunner } from '../testing/recording-runner.ts';
import { NodeLogs } from './node-log.ts';
import { ProvisionError } from './provision-error.ts';
import { isTransient, StepRunner, type ProvisionShell } from './step-runner.ts';

type Answer = Partial<RunResult>;

/** A shell that answers each exec from a script of answers and records the argv. */
class ScriptedShell implements ProvisionShell {
  /** A VM login: root's commands go through sudo. */
  readonly root = false;
  readonly hostFiles = false;
  readonly calls: { argv: string[]; options: RunOptions | undefined }[] = [];
  constructor(
    readonly node: string,
    private readonly answers: ((argv: readonly string[]) => Answer | undefined)[],
  ) {}
  exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    this.calls.push({ argv: [...argv], options });
    const answer = this.answers.map((a) => a(argv)).find((a) => a !== undefined) ?? {};
    return Promise.resolve({
      command: argv.join(' '),
      exitCode: 0,
      stdout: '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
      ...answer,
    });
  }
  upload(): Promise<RunResult> {
    return Promise.resolve({
      command: 'scp',
      exitCode: 0,
      stdout: '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
    });
  }
}

/** Answers the n-th call of a script with answers[n] (the last one repeats). */
function sequence(
  script: string,
  answers: Answer[],
): (argv: readonly string[]) => Answer | undefined {
  let n = 0;
  return (argv) =>
    argv.some((a) => a.endsWith(script)) ? answers[Math.min(n++, answers.length - 1)] : undefined;
}

describe('StepRunner', () => {
  let dir: string;
  let logs: NodeLogs;
  const redactor = new Redactor();
  const runner = () =>
    new StepRunner({ redactor, logs, attempts: 3, backoffMs: () => 1, rebootTimeoutMs: 1000 });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-steps-'));
    logs = new NodeLogs(dir, redactor);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the changes a script reports and logs its output per node', async () => {
    const shell = new ScriptedShell('lin1', [
      sequence('x.sh', [{ stdout: 'hl: changed: a\nhl: ok: b\nhl: changed: c\n' }]),
    ]);
    const report = await runner().script(shell, 'linux', { id: 'x', script: 'x.sh', args: ['y'] });
    expect(report).to.deep.equal({ node: 'lin1', step: 'x', changed: 2, attempts: 1, reboots: 0 });
    expect(shell.calls[0]!.argv).to.deep.equal([
      'sudo',
      'bash',
      '/opt/hybrid-lab/scripts/x.sh',
      'y',
    ]);
    expect(readFileSync(logs.file('lin1'), 'utf8')).to.match(/\[x\] hl: changed: a/);
  });

  it('retries transient failures (ssh 255, EX_TEMPFAIL, apt lock) up to the bound', async () => {
    const shell = new ScriptedShell('lin1', [
      sequence('x.sh', [
        {
          exitCode: 255,
          stderr: 'ssh: connect to host 192.168.200.11 port 22: Connection refused',
        },
        { exitCode: 100, stderr: 'E: Could not get lock /var/lib/dpkg/lock-frontend' },
        { stdout: 'hl: changed: done' },
      ]),
    ]);
    const report = await runner().script(shell, 'linux', { id: 'x', script: 'x.sh' });
    expect(report.attempts).to.equal(3);
    expect(report.changed).to.equal(1);
  });

  it('gives up after the bound with node, step, command and output tail', async () => {
    const shell = new ScriptedShell('lin1', [
      sequence('x.sh', [{ exitCode: 75, stderr: 'line 1\nhl: error: API not ready' }]),
    ]);
    const error = await runner()
      .script(shell, 'linux', { id: 'kubeadm-init', script: 'x.sh' })
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProvisionError);
    const e = error as ProvisionError;
    expect([e.node, e.step]).to.deep.equal(['lin1', 'kubeadm-init']);
    expect(e.message)
      .to.include('attempts: 3')
      .and.include('hl: error: API not ready')
      .and.include('sudo bash /opt/hybrid-lab/scripts/x.sh');
    expect(shell.calls).to.have.length(3);
  });

  it('does not retry a real failure (a missing artifact)', async () => {
    const message =
      'hl: error: artifact missing: kubernetes/v1.30.4/linux/amd64/kubeadm for Kubernetes v1.30.4 — stage it in /srv/cache';
    const shell = new ScriptedShell('cp1', [sequence('x.sh', [{ exitCode: 3, stderr: message }])]);
    const error = (await runner()
      .script(shell, 'linux', { id: 'kubernetes', script: 'x.sh' })
      .catch((e: unknown) => e)) as ProvisionError;
    expect(shell.calls).to.have.length(1);
    expect(error.message).to.include(message).and.include('exited 3');
  });

  it('reboots a Windows node that asks for it (3010), waits for SSH and runs the step again', async () => {
    const shell = new ScriptedShell('win1', [
      sequence('feature.ps1', [
        { exitCode: 3010, stdout: 'hl: changed: Containers' },
        { stdout: 'hl: ok: Containers' },
      ]),
    ]);
    const report = await runner().script(shell, 'windows', {
      id: 'containers-feature',
      script: 'feature.ps1',
      rebootExitCode: 3010,
    });
    expect(report).to.include({ reboots: 1, attempts: 1 });
    expect(shell.calls.map((c) => c.argv[0])).to.deep.equal([
      'powershell',
      'Restart-Computer',
      'hostname',
      'powershell',
    ]);
  });

  it("a Windows step's reboot request (3010) reaches it over OpenSSH's PowerShell shell", async () => {
    // The script asks for a reboot once, then finds its change active.
    const codes = [3010, 0];
    const ssh = new RecordingRunner().on(/set-hostname\.ps1/, (call) => ({
      exitCode: exitCodeOverOpenSsh(call.args.at(-1)!, { exitCode: codes.shift() ?? 0 }),
    }));
    const target = {
      node: 'win1',
      host: '10.0.0.5',
      port: 22,
      user: 'vagrant',
      identityFile: '/k',
    };
    const shell = new SshNodeShell('win1', { target }, ssh, { flavour: 'powershell' });
    const report = await runner().script(shell, 'windows', {
      id: 'hostname',
      script: 'set-hostname.ps1',
      rebootExitCode: 3010,
    });
    expect(report).to.include({ reboots: 1, attempts: 1 });
  });

  it('classifies failures', () => {
    const r = { exitCode: 1, timedOut: false, stdout: '', stderr: '' };
    expect(isTransient(r)).to.equal(false);
    expect(isTransient({ ...r, timedOut: true })).to.equal(true);
    expect(isTransient({ ...r, exitCode: 255 })).to.equal(true);
    expect(isTransient({ ...r, stderr: 'dial tcp: i/o timeout' })).to.equal(true);
  });
});
