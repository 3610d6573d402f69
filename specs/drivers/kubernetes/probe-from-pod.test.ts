// Exec is a fake (kube-fake-exec.ts): Linux probes replay the frames a live v1.20.2 cluster sent
// for the same commands; the Windows answer is hand-written (no Windows node can run here).
import { expect } from 'chai';
import { podNames } from '../../model/workload-names.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import type { ExecScript } from '../../testing/kube-fake-exec.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import { KubernetesDriver } from './kubernetes-driver.ts';
import { exitStatus, replay } from '../../testing/kube-recorded-objects.ts';

describe('KubernetesDriver.probeFromPod (through a fake Exec)', () => {
  it('probes from a pod through Exec: the pod OS picks the command, the status frame the result', async () => {
    const answers: Record<string, ExecScript> = {
      // Hand-written: curl.exe's output on a Windows node.
      'curl.exe': {
        stdout: '10.244.1.12:50312\n--hybrid-lab-status:200 17',
        status: exitStatus(0),
        delayMs: 20,
      },
      curl: replay('dns-kubernetes'),
      '/agnhost': replay('tcp-refused'),
    };
    const { kubeconfig, facts, exec, options } = driverFixture(
      (call) => answers[call.command[0]!] ?? { hang: true },
    );
    const driver = await KubernetesDriver.open(kubeconfig, facts, { ...options, execGraceMs: 20 });
    const workloads = await driver.deploy('r4', podNames(driver.nodes));
    exec.calls.length = 0; // the Windows host's /hostname, asked at deploy (host-identity.ts)
    try {
      const win = workloads.pods.find((p) => p.os === 'windows')!;
      const lin = workloads.pods.find((p) => p.os === 'linux')!;
      expect(
        await driver.probeFromPod(
          win,
          { kind: 'http', url: 'http://10.244.1.11:8080/clientip' },
          3000,
        ),
      ).to.deep.equal({ result: 'ok', status: 200, body: '10.244.1.12:50312', bytes: 17 });
      expect(exec.calls[0]).to.include({
        namespace: 'hybrid-lab-r4',
        pod: win.name,
        container: 'netexec',
      });
      expect(
        await driver.probeFromPod(lin, { kind: 'dns', name: 'kubernetes.default' }, 3000),
      ).to.deep.equal({ result: 'ok', addresses: ['10.96.0.1'] });
      expect(
        (await driver.probeFromPod(lin, { kind: 'tcp', host: '10.244.2.14', port: 8080 }, 3000))
          .result,
      ).to.equal('refused');
      answers.curl = { hang: true };
      const hung = await driver.probeFromPod(lin, { kind: 'dns', name: 'web-linux' }, 10);
      expect(hung.result).to.equal('timeout');
      expect(hung.error).to.contain('no exit status within 30 ms');
    } finally {
      await driver.cleanup();
    }
  });

  describe('endpoints: one exec per connection, swept by the driver', () => {
    const request = {
      kind: 'endpoints' as const,
      base: 'http://10.96.101.21:80',
      service: 'web-linux',
      expect: ['netexec-lin1-a', 'netexec-lin2-a'],
      maxRequests: 6,
    };
    /** curl's stdout for one connection answered by `backend`, seen from 10.244.1.5. */
    const answeredBy = (backend: string): ExecScript => ({
      stdout: [
        `${backend}\n--hybrid-lab-status:200 ${backend.length} 10.96.101.21 1 0.000012 0.000390\n`,
        '10.244.1.5:43512\n--hybrid-lab-status:200 16 10.96.101.21 0 0.000000 0.000000\n',
      ].join(''),
      status: exitStatus(0),
    });
    const refused: ExecScript = {
      stdout: '\n--hybrid-lab-status:000 0  1 0.000011 0.000000\n',
      stderr:
        "* connect to 10.96.101.21 port 80 failed: Connection refused\ncurl: (7) Failed to connect to 10.96.101.21 port 80 after 1 ms: Couldn't connect to server",
      status: exitStatus(7),
    };

    /** A driver whose curl execs answer `scripts` in order; returns it and its Exec fake. */
    async function sweepingDriver(scripts: ExecScript[]) {
      let curls = 0;
      const fixture = driverFixture((call) =>
        call.command[0] === 'curl' ? (scripts[curls++] ?? { hang: true }) : { hang: true },
      );
      const { kubeconfig, facts, options } = fixture;
      const driver = await KubernetesDriver.open(kubeconfig, facts, options);
      const workloads = await driver.deploy('r5', podNames(driver.nodes));
      const pod = workloads.pods.find((p) => p.os === 'linux')!;
      return { driver, pod, exec: fixture.exec };
    }

    it('stops once every expected endpoint answered, one new curl per connection', async () => {
      const { driver, pod, exec } = await sweepingDriver([
        answeredBy('netexec-lin1-a'),
        answeredBy('netexec-lin1-a'),
        answeredBy('netexec-lin2-a'),
        answeredBy('netexec-lin1-a'),
      ]);
      try {
        const reply = await driver.probeFromPod(pod, request, 3000);
        expect(reply.result).to.equal('ok');
        expect(reply.answers?.map((a) => a.endpoint)).to.deep.equal([
          'netexec-lin1-a',
          'netexec-lin1-a',
          'netexec-lin2-a',
        ]);
        expect(reply.answers?.[0]?.client).to.equal('10.244.1.5');
        expect(exec.calls.filter((c) => c.command[0] === 'curl')).to.have.length(3);
      } finally {
        await driver.cleanup();
      }
    });

    it('reports the first failing request as such, with what answered before it', async () => {
      const { driver, pod } = await sweepingDriver([answeredBy('netexec-lin1-a'), refused]);
      try {
        const reply = await driver.probeFromPod(pod, request, 3000);
        expect(reply.result).to.equal('refused');
        expect(reply.error).to.match(/^request 2 of 6: .*Connection refused/);
        expect(reply.answers).to.deep.equal([{ endpoint: 'netexec-lin1-a', client: '10.244.1.5' }]);
      } finally {
        await driver.cleanup();
      }
    });

    it('refuses a sweep that expects no endpoint as an infrastructure error naming the Service, before any exec', async () => {
      const { driver, pod, exec } = await sweepingDriver([answeredBy('netexec-lin1-a')]);
      try {
        const empty = { ...request, expect: [] };
        for (const probe of [
          () => driver.probeFromPod(pod, empty, 3000),
          () => driver.probeFromNode(pod.node, empty, 3000),
        ]) {
          let error: unknown;
          await probe().catch((e: unknown) => (error = e));
          expect(error).to.be.instanceOf(InfrastructureError);
          expect((error as Error).message).to.match(
            /^Service web-linux \(http:\/\/10\.96\.101\.21:80\) has no endpoint/,
          );
        }
        expect(exec.calls.filter((c) => c.command[0] === 'curl')).to.deep.equal([]);
      } finally {
        await driver.cleanup();
      }
    });
  });
});
