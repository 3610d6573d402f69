// The Exec client is a fake replaying the websocket frames a live v1.20.2 API server sent
// (kube-fake-exec.ts, kube-recorded-objects.ts), channel by channel as client-node handles them.
import { expect } from 'chai';
import { ExecError, execInPod, exitCodeOf } from './exec-in-pod.ts';
import { FakeExec } from '../../testing/kube-fake-exec.ts';
import {
  execRun,
  recordedConnectError,
  replay,
  statusFrame,
} from '../../testing/kube-recorded-objects.ts';

const target = { namespace: 'hybrid-lab-r1', pod: 'netexec-lin1-a', container: 'netexec' };

describe('execInPod (Exec wrapper; fake Exec replaying recorded frames)', () => {
  it('resolves on the status frame, not when the websocket connects', async () => {
    const exec = new FakeExec(() => replay('stdout', 40));
    let settled = false;
    const command = execRun('stdout').command;
    const running = execInPod(exec, target, command, 1000).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(exec.connected).to.equal(1);
    expect(settled, 'settled before the status frame').to.equal(false);
    const result = await running;
    expect(result).to.include({ exitCode: 0, stdout: 'hello\nworld\n', stderr: '' });
    expect(exec.calls[0]).to.deep.equal({ ...target, command });
  });

  it('takes the exit code from the recorded NonZeroExitCode frame and keeps both streams', async () => {
    const exec = new FakeExec(() => replay('stdout-stderr-exit-3'));
    const result = await execInPod(exec, target, execRun('stdout-stderr-exit-3').command, 1000);
    expect(result.exitCode).to.equal(3);
    expect(result.stdout).to.equal('out\n');
    expect(result.stderr).to.equal('err\n');
    expect(result.status).to.include({ status: 'Failure', reason: 'NonZeroExitCode' });
  });

  it('joins the stderr frames (curl -v, recorded) as they came, up to the status frame', async () => {
    const run = execRun('http-refused');
    const stderr = run.frames.filter((f) => f.channel === 2).map((f) => f.text);
    const result = await execInPod(new FakeExec(() => replay(run.name)), target, run.command, 1000);
    expect(result.exitCode).to.equal(7);
    expect(result.stderr).to.equal(stderr.join(''));
    expect(result.stderr).to.match(/curl: \(7\) Failed to connect to .* port 9 after \d+ ms/);
  });

  it('reads exit codes off recorded status frames; an exec the runtime failed has none', () => {
    expect(exitCodeOf(statusFrame('stdout'))).to.equal(0);
    expect(exitCodeOf(statusFrame('http-timeout'))).to.equal(28);
    expect(exitCodeOf(statusFrame('tcp-refused'))).to.equal(1);
    const missing = statusFrame('missing-executable');
    expect(missing).to.include({ status: 'Failure', reason: 'InternalError' });
    expect(missing.message).to.contain('executable file not found in $PATH');
    expect(exitCodeOf(missing)).to.equal(null);
  });

  it('resolves with exit code null when the runtime cannot start the command', async () => {
    const run = execRun('missing-executable');
    const result = await execInPod(new FakeExec(() => replay(run.name)), target, run.command, 1000);
    expect(result.exitCode).to.equal(null);
    expect(result.status.reason).to.equal('InternalError');
  });

  it('rejects when the socket closes without a status frame', async () => {
    const frames = execRun('stdout').frames.filter((f) => f.channel !== 3);
    const exec = new FakeExec(() => ({ frames }));
    const error = await execInPod(exec, target, ['x'], 1000).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ExecError).with.property('kind', 'closed');
  });

  it('rejects after the timeout and closes the socket', async () => {
    const exec = new FakeExec(() => ({ hang: true }));
    const error = await execInPod(exec, target, ['sleep', '60'], 30).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ExecError).with.property('kind', 'timeout');
    expect((error as Error).message).to.contain('within 30 ms');
    expect(exec.sockets[0]?.closed).to.equal(true);
  });

  it('rejects when the exec cannot connect (recorded: the upgrade to a missing pod is refused)', async () => {
    const exec = new FakeExec(() => ({ connectError: recordedConnectError() }));
    const error = await execInPod(exec, target, ['x'], 1000).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ExecError).with.property('kind', 'connect');
    // ws rejects with an ErrorEvent (no Error): its message, not "[object Object]".
    expect((error as Error).message).to.equal(
      'exec in hybrid-lab-r1/netexec-lin1-a could not start: Unexpected server response: 404',
    );
    expect((error as ExecError).cause).to.have.property(
      'message',
      'Unexpected server response: 404',
    );
  });
});
