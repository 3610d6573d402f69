// The API is a fake (kube-fake-core.ts, kube-fake-exec.ts) answering with recorded v1.20.2
// objects and exec status frames; the Linux node command runs for real with a stand-in nsenter.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { V1Namespace } from '@kubernetes/client-node';
import { expect } from 'chai';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import { FakeExec, type ExecCall, type ExecScript } from '../../testing/kube-fake-exec.ts';
import { recorded, runningStatus, statusFrame } from '../../testing/kube-recorded-objects.ts';
import { CommandError } from '../../../lab/errors.ts';
import { hostCommand, NodeShellPods, OUTPUT_CUT } from './node-shell-pods.ts';

const NAMESPACE = 'hybrid-lab-r1';

/** An exec answered with the recorded status frame `status` and `stdout`. */
const answered = (status: string, stdout = ''): ExecScript => ({
  stdout,
  status: statusFrame(status),
});

function shells(script: (call: ExecCall) => ExecScript) {
  const core = new FakeCore();
  core.podStatus = (pod) => runningStatus(core.podIp(pod));
  const exec = new FakeExec(script);
  const pods = new NodeShellPods(core, exec, {
    namespace: NAMESPACE,
    runId: 'r1',
    lab: 'existing',
    linuxImage: 'registry.example/debug/nsenter:1',
    windowsImage: 'registry.example/agnhost:2.52',
    nodes: [
      { name: 'lin1', nodeHostname: 'lin1.example', os: 'linux' },
      { name: 'win1', nodeHostname: 'win1', os: 'windows' },
    ],
    pollMs: 1,
  });
  return { core, exec, pods };
}

describe('node shell pods (path evidence on a cluster the harness did not make)', () => {
  it('makes one privileged pod per node on first use, and runs each command on the node', async () => {
    const { core, exec, pods } = shells(() => answered('stdout', 'default via 10.0.0.1\n'));
    const lin1 = pods.shell('lin1');
    const [a, b] = await Promise.all([
      lin1.exec(['ip', 'route', 'show']),
      lin1.exec(['ip', 'neigh', 'show']),
    ]);
    expect(a).to.include({
      exitCode: 0,
      stdout: 'default via 10.0.0.1\n',
      command: 'ip route show',
    });
    expect(b.exitCode).to.equal(0);
    expect(core.pods.map((p) => p.metadata?.name)).to.deep.equal(['shell-lin1']);
    const spec = core.pods[0]!.spec!;
    expect(spec).to.include({ hostNetwork: true, hostPID: true });
    expect(spec.nodeSelector).to.deep.equal({
      'kubernetes.io/os': 'linux',
      'kubernetes.io/hostname': 'lin1.example',
    });
    expect(spec.containers[0]!.securityContext?.privileged).to.equal(true);
    expect(exec.calls[0]).to.deep.include({
      namespace: NAMESPACE,
      pod: 'shell-lin1',
      container: 'shell',
    });
    expect(exec.calls[0]!.command).to.deep.equal(hostCommand(['ip', 'route', 'show']));
  });

  it('runs Windows commands as they are, in a HostProcess pod as SYSTEM; input is refused there', async () => {
    const { core, exec, pods } = shells(() => answered('stdout'));
    const win1 = pods.shell('win1');
    await win1.exec(['powershell.exe', '-NoProfile', '-Command', 'Get-HnsNetwork']);
    expect(exec.calls[0]!.command).to.deep.equal([
      'powershell.exe',
      '-NoProfile',
      '-Command',
      'Get-HnsNetwork',
    ]);
    expect(core.pods[0]!.spec?.securityContext?.windowsOptions).to.deep.equal({
      hostProcess: true,
      runAsUserName: 'NT AUTHORITY\\SYSTEM',
    });
    let refused: unknown;
    await win1.exec(['cmd'], { input: 'x' }).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.include('a Windows node shell pod takes no input');
    expect(core.pods[0]!.spec?.containers[0]?.image).to.equal('registry.example/agnhost:2.52');
  });

  it('throws a CommandError naming the node on a non-zero exit unless check is false, then returns it', async () => {
    const { pods } = shells(() => answered('tcp-refused'));
    const lin1 = pods.shell('lin1');
    let thrown: unknown;
    await lin1.exec(['nft', 'list', 'ruleset']).catch((error: unknown) => (thrown = error));
    expect(thrown).to.be.instanceOf(CommandError).and.include({ node: 'lin1', exitCode: 1 });
    expect(String(thrown)).to.include('command on lin1 exited 1: nft list ruleset');
    const result = await lin1.exec(['nft', 'list', 'ruleset'], { check: false });
    expect(result).to.include({ exitCode: 1, timedOut: false });
  });

  it('says an exec that gave no status in time timed out (exit 124), as the execa runner does', async () => {
    const { pods } = shells(() => ({ hang: true }));
    const result = await pods
      .shell('lin1')
      .exec(['conntrack', '-L'], { check: false, timeoutMs: 20 });
    expect(result).to.include({ exitCode: 124, timedOut: true, stdout: '' });
    expect(result.stderr).to.include('gave no exit status within 20 ms');
  });

  it('ends an output it had to cut with a line that says so', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const { pods } = shells(() => answered('stdout', big));
    const result = await pods.shell('lin1').exec(['conntrack', '-L']);
    expect(result.stdout.endsWith(`\n${OUTPUT_CUT}\n`)).to.equal(true);
    expect(result.stdout.length).to.equal(4 * 1024 * 1024 + OUTPUT_CUT.length + 2);
  });

  it('stop() deletes every pod it made, once, and the next use makes a new one', async () => {
    const { core, pods } = shells(() => answered('stdout'));
    await Promise.all([pods.shell('lin1').exec(['true']), pods.shell('win1').exec(['cmd'])]);
    await pods.stop();
    await pods.stop();
    expect(core.calls.filter((c) => c.startsWith('deleteNamespacedPod'))).to.deep.equal([
      `deleteNamespacedPod ${NAMESPACE}/shell-lin1`,
      `deleteNamespacedPod ${NAMESPACE}/shell-win1`,
    ]);
    await pods.shell('lin1').exec(['true']);
    expect(core.calls.filter((c) => c.startsWith('createNamespacedPod'))).to.have.length(3);
  });

  it('tries a create the API answered 5xx again at the next use; a refused one (403) stays refused', async () => {
    const { core, pods } = shells(() => answered('stdout'));
    core.createsTooEarly = 1;
    const lin1 = pods.shell('lin1');
    const first = await lin1.exec(['true']).catch((error: unknown) => error);
    expect(String(first)).to.match(
      /cannot create node shell pod hybrid-lab-r1\/shell-lin1: HTTP 500/,
    );
    expect((await lin1.exec(['true'])).exitCode).to.equal(0);

    const refused = shells(() => answered('stdout'));
    refused.core.serviceAccountLag = 1;
    await refused.core.createNamespace({
      body: recorded(V1Namespace, { metadata: { name: NAMESPACE } }),
    });
    for (let i = 0; i < 2; i++) {
      const error = await refused.pods
        .shell('lin1')
        .exec(['true'])
        .catch((e: unknown) => e);
      expect(String(error)).to.match(/shell-lin1: HTTP 403/);
    }
    const creates = (calls: string[]) => calls.filter((c) => c.startsWith('createNamespacedPod'));
    expect(creates(core.calls)).to.have.length(2);
    expect(creates(refused.core.calls)).to.have.length(1);
  });

  it('goes to no node the run does not use', () => {
    const { pods } = shells(() => answered('stdout'));
    expect(() => pods.shell('lin9')).to.throw(
      'no node lin9 among those the run uses: no node shell pod goes there',
    );
  });

  it('hands input to the command on its stdin, after entering the node (nsenter stand-in)', () => {
    const bin = mkdtempSync(join(tmpdir(), 'hl-nsenter-'));
    try {
      // Prints where it was asked to enter, then runs what follows `--`.
      writeFileSync(
        join(bin, 'nsenter'),
        '#!/bin/sh\necho "entered $1 $2 $3"\nwhile [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n',
      );
      chmodSync(join(bin, 'nsenter'), 0o755);
      const [file, ...args] = hostCommand(['cat'], 'table inet x { }\n');
      const ran = spawnSync(file!, args, {
        encoding: 'utf8',
        env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
      });
      // The kubelet of this network namespace, else the host PID 1.
      expect(ran.stdout).to.match(/^entered --target \d+ --mount\ntable inet x \{ \}\n$/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
