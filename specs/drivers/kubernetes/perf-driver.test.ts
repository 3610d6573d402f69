// The driver's side of the perf measures (perf-in-pod.ts): where it starts iperf3 servers, and
// which cells it skips, over the fake API of kube-driver-fixture.ts.
import { expect } from 'chai';
import { podNames, hostNetworkPod } from '../../model/workload-names.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import { exitStatus } from '../../testing/kube-recorded-objects.ts';
import type { ExecScript } from '../../testing/kube-fake-exec.ts';
import { KubernetesDriver } from './kubernetes-driver.ts';

const IPERF_OUT = [
  '--hl-perf-iperf3',
  JSON.stringify({ end: { sum_received: { seconds: 1, bits_per_second: 9e8 } } }),
  '--hl-perf-iperf3-exit:0',
].join('\n');

describe('KubernetesDriver perf measures (through a fake Exec)', () => {
  it('starts one iperf3 server per target pod or host-network pod, then measures from the source', async () => {
    let serverAnswer: ExecScript = { status: exitStatus(0) };
    const { kubeconfig, facts, exec, options } = driverFixture((call) =>
      call.command[0] === 'iperf3' ? serverAnswer : { stdout: IPERF_OUT, status: exitStatus(0) },
    );
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      images: { linux: 'hybrid-lab/agnhost:2.25' },
      execGraceMs: 50,
    });
    const workloads = await driver.deploy('p1', podNames(driver.nodes));
    try {
      const [from, to] = workloads.pods.filter((p) => p.os === 'linux');
      const stream = (host: string) =>
        ({
          kind: 'perf',
          measure: 'tcp-stream',
          base: `http://${host}:8080`,
          durationMs: 250,
        }) as const;
      for (let i = 0; i < 2; i++) {
        const reply = await driver.probeFromPod(from!, stream(to!.ip), 3000);
        expect(reply).to.deep.include({ result: 'ok' });
        expect(reply.perf?.mbps).to.equal(900);
      }
      const node = driver.nodes.find((n) => n.os === 'linux' && n.name !== from!.node)!;
      await driver.probeFromPod(from!, stream(node.ip), 3000);
      const started = exec.calls.filter((c) => c.command[0] === 'iperf3');
      expect(started.map((c) => c.pod)).to.deep.equal([to!.name, hostNetworkPod(node.name)]);
      // Each server listens on the address measured only: on a node, the node's, not every one.
      expect(started.map((c) => c.command.slice(3, 5))).to.deep.equal([
        ['-B', to!.ip],
        ['-B', node.ip],
      ]);
      const measured = exec.calls.filter((c) => c.command[0] === 'bash');
      expect(measured.map((c) => c.pod)).to.deep.equal([from!.name, from!.name, from!.name]);
      expect(measured[0]!.command.slice(4, 8)).to.deep.equal([
        'tcp-stream',
        `http://${to!.ip}:8080`,
        '250',
        to!.ip,
      ]);
      // rr/crr need no server.
      await driver.probeFromPod(
        from!,
        { kind: 'perf', measure: 'tcp-rr', base: `http://${to!.ip}:8080`, durationMs: 250 },
        3000,
      );
      expect(exec.calls.filter((c) => c.command[0] === 'iperf3')).to.have.length(2);
      // A server that cannot start is the cell's error, naming the pod.
      serverAnswer = { stderr: 'iperf3: error - unable to start listener', status: exitStatus(1) };
      const other = workloads.pods.find((p) => p.os === 'linux' && p !== to && p !== from)!;
      const failed = await driver.probeFromPod(from!, stream(other.ip), 3000);
      expect(failed.result).to.equal('error');
      expect(failed.error).to.equal(
        `iperf3 server in ${other.name} did not start: iperf3: error - unable to start listener`,
      );
      expect((await driver.probeFromPod(from!, stream('10.9.9.9'), 3000)).error).to.equal(
        'no suite pod at 10.9.9.9 to run an iperf3 server in',
      );
    } finally {
      await driver.cleanup();
    }
  });

  it('skips by the image: upstream agnhost has no iperf3, the Debian-built one runs Linux cells', async () => {
    const { kubeconfig, facts, options } = driverFixture();
    const cell = { from: 'linux', to: 'linux', network: 'pod', measure: 'tcp-rr' } as const;
    const upstream = await KubernetesDriver.open(kubeconfig, facts, options);
    expect(upstream.perfUnsupported(cell)).to.match(
      /mirror\.local:5000\/e2e\/agnhost:[^ ]+ is not the project's/,
    );
    const ours = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      images: { linux: 'hybrid-lab/agnhost:2.25' },
    });
    expect(ours.perfUnsupported(cell)).to.be.undefined;
    expect(ours.perfUnsupported({ ...cell, from: 'windows' })).to.match(/Windows agnhost image/);
  });
});
