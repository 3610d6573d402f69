// Unit level only: the Exec client is a recorded fake (fake-exec.ts); no real cluster exists here.
import { expect } from 'chai';
import { ExecError, execInPod, exitCodeOf } from './exec-in-pod.ts';
import { V1Status } from '@kubernetes/client-node';
import { FakeExec } from '../../testing/kube-fake-exec.ts';
import { exitStatus, recorded } from '../../testing/kube-recorded-objects.ts';

const target = { namespace: 'hybrid-lab-r1', pod: 'netexec-lin1-a', container: 'netexec' };

describe('execInPod (Exec wrapper; fake Exec with recorded status frames)', () => {
  it('resolves on the status callback, not when the websocket connects', async () => {
    const exec = new FakeExec(() => ({ stdout: 'hello', status: exitStatus(0), delayMs: 40 }));
    let settled = false;
    const running = execInPod(exec, target, ['echo', 'hello'], 1000).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(exec.connected).to.equal(1);
    expect(settled, 'settled before the status frame').to.equal(false);
    const result = await running;
    expect(result).to.include({ exitCode: 0, stdout: 'hello', stderr: '' });
    expect(exec.calls[0]).to.deep.equal({ ...target, command: ['echo', 'hello'] });
  });

  it('takes the exit code from a NonZeroExitCode status and keeps both streams', async () => {
    const exec = new FakeExec(() => ({
      stdout: '\n--hybrid-lab-status:000',
      stderr: 'curl: (7) Failed to connect',
      status: exitStatus(7),
    }));
    const result = await execInPod(exec, target, ['curl'], 1000);
    expect(result.exitCode).to.equal(7);
    expect(result.stderr).to.equal('curl: (7) Failed to connect');
    expect(result.stdout).to.contain('000');
  });

  it('reports an exec the API failed without an exit code as null', () => {
    const internal = recorded(V1Status, {
      status: 'Failure',
      reason: 'InternalError',
      message: 'executable file not found in $PATH',
    });
    expect(exitCodeOf(internal)).to.equal(null);
    expect(exitCodeOf(exitStatus(0))).to.equal(0);
    expect(exitCodeOf(exitStatus(28))).to.equal(28);
  });

  it('rejects when the socket closes without a status frame', async () => {
    const exec = new FakeExec(() => ({ stdout: 'partial' }));
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

  it('rejects when the exec cannot connect', async () => {
    const exec = new FakeExec(() => ({
      connectError: new Error('Unexpected server response: 403'),
    }));
    const error = await execInPod(exec, target, ['x'], 1000).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ExecError).with.property('kind', 'connect');
    expect((error as Error).message).to.contain('403');
  });
});
