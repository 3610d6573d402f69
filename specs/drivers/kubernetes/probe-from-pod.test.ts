// Exec is a fake (kube-fake-exec.ts): Linux probes replay the frames a live v1.20.2 cluster sent
// for the same commands; the Windows answer is hand-written (no Windows node can run here).
import { expect } from 'chai';
import { podNames } from '../../model/workload-names.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import type { ExecScript } from '../../testing/kube-fake-exec.ts';
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
});
