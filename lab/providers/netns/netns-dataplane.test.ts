/**
 * Integration: a hybrid fixture lab (1 Linux control plane, 1 Linux worker, 2 Windows
 * workers) per flannel backend, probed with real packets. Needs root and `ip netns`.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { noProber } from '../../cluster/runtime/prober-client.ts';
import { windowsCniConfig } from '../../cni/windows-cni-config.ts';
import type { CniBackend } from '../../plan/lab-plan.ts';
import type { ProbeReply } from '../../contracts/probe-reply.ts';
import { fixturePlan } from '../../testing/fixture-plan.ts';
import { nodeNamespace, podNamespace } from '../../cluster/dataplane/names.ts';
import { pidsIn, proberFiles } from '../../cluster/dataplane/namespace-cleanup.ts';
import { pollFor } from '../../wait/poll.ts';
import { macForIp } from '../../cluster/dataplane/pod-network.ts';
import { NetnsProvider } from './netns-provider.ts';
import { skipIf } from '../../testing/skip.ts';
import type { StartedLab } from '../lab-provider.ts';
import {
  emulatedCluster,
  reapStaleTestLabs,
  removeTestStateDirs,
  alivePids,
  labNamespaces,
  labPids,
  netnsSkipReason,
  rootNetnsSnapshot,
  testContext,
  testLabId,
} from '../../testing/netns-host.ts';

const NS = 'conf';
const EXTERNAL = 'http://198.51.100.1:8080/clientip';

/** 16 fresh connections (no keep-alive, so each is balanced anew); prints the hostnames seen. */
const SPREAD = `
import { get } from 'node:http';
const seen = new Set();
for (let i = 0; i < 16; i++) {
  seen.add(await new Promise((resolve, reject) => get(process.argv[1], { agent: false }, (res) => {
    let body = '';
    res.on('data', (chunk) => (body += chunk)).on('end', () => resolve(body));
  }).on('error', reject)));
}
console.log(JSON.stringify([...seen].sort()));
`;

function sourceIp(outcome: ProbeReply): string {
  expect(outcome.result, JSON.stringify(outcome)).to.equal('ok');
  return String(outcome.body).split(':')[0] ?? '';
}

describe('netns provider: hybrid dataplane with real packets', function () {
  this.timeout(60_000);

  before(async function () {
    skipIf(this, await netnsSkipReason(testContext().runner));
    await reapStaleTestLabs(new NetnsProvider(testContext()));
  });

  after(removeTestStateDirs);

  for (const backend of ['vxlan', 'host-gw'] satisfies CniBackend[]) {
    describe(`flannel ${backend}`, () => {
      const context = testContext();
      const plan = fixturePlan({ id: testLabId(backend === 'vxlan' ? 'vx' : 'hg'), backend });
      const node = Object.fromEntries(plan.nodes.map((n) => [n.name, n]));
      const ip: Record<string, string> = {};
      let started: StartedLab | undefined;
      const lab = {
        get cluster() {
          if (started === undefined) throw new Error('the lab did not come up');
          return emulatedCluster(started);
        },
      };
      let rootBefore: Record<string, string>;
      let clusterIp: Record<string, string> = {};
      let nodePort = 0;
      const probe = (from: string, ...args: string[]) => lab.cluster.probe(`p-${from}`, NS, args);

      before(async () => {
        rootBefore = await rootNetnsSnapshot(context.runner);
        started = await new NetnsProvider(context).up(plan);
        const cluster = emulatedCluster(started);
        await Promise.all(
          plan.nodes.map(async (n) => {
            const labels = { os: n.os, node: n.name, conformance: 'yes' };
            ip[n.name] = await cluster.createPod({
              name: `p-${n.name}`,
              namespace: NS,
              node: n.name,
              hostname: `p-${n.name}`,
              subdomain: 'pods',
              labels,
            });
          }),
        );
        const http = { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' as const };
        const winWeb = await cluster.createService({
          name: 'win-web',
          namespace: NS,
          type: 'ClusterIP',
          selector: { os: 'windows' },
          ports: [http, { name: 'udp', port: 81, targetPort: 8081, protocol: 'UDP' }],
        });
        const linWeb = await cluster.createService({
          name: 'lin-web',
          namespace: NS,
          type: 'NodePort',
          selector: { os: 'linux' },
          ports: [http],
        });
        const solo = await cluster.createService({
          name: 'solo',
          namespace: NS,
          type: 'ClusterIP',
          selector: { node: 'win1' },
          ports: [http],
        });
        await cluster.createService({
          name: 'pods',
          namespace: NS,
          type: 'Headless',
          selector: { conformance: 'yes' },
          ports: [],
        });
        clusterIp = { winWeb: winWeb.clusterIP!, linWeb: linWeb.clusterIP!, solo: solo.clusterIP! };
        nodePort = linWeb.nodePorts.http!;
      });

      after(async () => {
        await started?.down();
      });

      for (const [from, to, title] of [
        ['lin1', 'win1', 'linux-to-windows'],
        ['win1', 'lin1', 'windows-to-linux'],
        ['win1', 'win2', 'windows-to-windows'],
        ['cp1', 'lin1', 'linux-to-linux'],
      ] as const) {
        it(`pod-to-pod ${title} cross-node: the target sees the source pod IP`, async () => {
          expect(sourceIp(await probe(from, 'http', `http://${ip[to]}:8080/clientip`))).to.equal(
            ip[from],
          );
        });
      }

      it('ClusterIP reaches a Windows backend from a Linux pod, which keeps its pod IP (TCP and UDP)', async () => {
        expect(
          sourceIp(await probe('lin1', 'http', `http://${clusterIp.winWeb}/clientip`)),
        ).to.equal(ip.lin1);
        const udp = await probe('lin1', 'udp', clusterIp.winWeb!, '81', 'hostname');
        expect(udp.result).to.equal('ok');
        expect(['p-win1', 'p-win2']).to.include(udp.body);
      });

      it('ClusterIP spreads connections over every endpoint', async () => {
        const result = await lab.cluster.exec('p-cp1', NS, [
          process.execPath,
          '--input-type=module',
          '-e',
          SPREAD,
          `http://${clusterIp.winWeb}/hostname`,
        ]);
        expect(JSON.parse(result.stdout), result.stderr).to.deep.equal(['p-win1', 'p-win2']);
      });

      it('hairpin: a pod reaches itself through its own Service (masqueraded to its gateway)', async () => {
        const self = await probe('win1', 'http', `http://${clusterIp.solo}/hostname`);
        expect(self.body).to.equal('p-win1');
        expect(sourceIp(await probe('win1', 'http', `http://${clusterIp.solo}/clientip`))).to.equal(
          node.win1!.podGateway,
        );
      });

      it('a pod re-created on a reused IP answers at once: its MAC follows the IP, so neighbour caches stay right', async () => {
        const cluster = lab.cluster;
        const first = await cluster.createPod({
          name: 'reuse-1',
          namespace: NS,
          node: 'cp1',
          labels: {},
        });
        // p-cp1 (same bridge) and cp1's cni0 (kept up by the DNS pod) now cache first's MAC.
        expect((await probe('cp1', 'http', `http://${first}:8080/hostname`)).body).to.equal(
          'reuse-1',
        );
        expect((await probe('lin1', 'http', `http://${first}:8080/hostname`)).body).to.equal(
          'reuse-1',
        );
        await cluster.deletePod('reuse-1', NS);
        const second = await cluster.createPod({
          name: 'reuse-2',
          namespace: NS,
          node: 'cp1',
          labels: {},
        });
        expect(second).to.equal(first);
        for (const from of ['cp1', 'lin1'])
          expect(
            (await probe(from, 'http', `http://${second}:8080/hostname`, '--timeout-ms', '2000'))
              .body,
            from,
          ).to.equal('reuse-2');
        await cluster.deletePod('reuse-2', NS);
        // Ports came and went; the bridge kept the MAC every pod caches for its gateway.
        const bridge = await context.runner.run('ip', [
          '-n',
          nodeNamespace(plan.prefix, 'cp1'),
          '-j',
          'link',
          'show',
          'cni0',
        ]);
        const [cni0] = JSON.parse(bridge.stdout) as { address: string }[];
        expect(cni0?.address).to.equal(macForIp(node.cp1!.podGateway));
        expect(
          (await probe('cp1', 'http', `http://${ip.lin1}:8080/hostname`)).body,
          'p-cp1 through its gateway',
        ).to.equal('p-lin1');
      });

      it('NodePort answers on every node IP from the outside namespace', async () => {
        for (const n of plan.nodes) {
          const outcome = await lab.cluster.probeOutside([
            'http',
            `http://${n.ip}:${nodePort}/hostname`,
          ]);
          expect(outcome.result, `${n.name}: ${JSON.stringify(outcome)}`).to.equal('ok');
          expect(['p-cp1', 'p-lin1']).to.include(outcome.body);
        }
      });

      it('outbound NAT: the external echo sees the node IP of Linux and Windows pods', async () => {
        for (const from of ['cp1', 'lin1', 'win1', 'win2']) {
          expect(sourceIp(await probe(from, 'http', EXTERNAL)), from).to.equal(node[from]!.ip);
        }
      });

      it('a Windows CNI config without the pod CIDR in ExceptionList SNATs Windows pod→pod to the node IP', async () => {
        const good = windowsCniConfig(plan, node.win1!);
        const broken = structuredClone(good);
        const nat = broken.delegate.policies[0]!.value as { Settings: { Exceptions: string[] } };
        nat.Settings.Exceptions = nat.Settings.Exceptions.filter(
          (c) => c !== plan.kubernetes.podCIDR,
        );
        await lab.cluster.setWindowsCniConfig('win1', broken);
        try {
          expect(sourceIp(await probe('win1', 'http', `http://${ip.lin1}:8080/clientip`))).to.equal(
            node.win1!.ip,
          );
          expect(sourceIp(await probe('win2', 'http', `http://${ip.lin1}:8080/clientip`))).to.equal(
            ip.win2,
          );
        } finally {
          await lab.cluster.setWindowsCniConfig('win1', good);
        }
        expect(sourceIp(await probe('win1', 'http', `http://${ip.lin1}:8080/clientip`))).to.equal(
          ip.win1,
        );
      });

      it('without the service CIDR in ExceptionList, Windows pod→Service is judged by the service IP and SNATed', async () => {
        const good = windowsCniConfig(plan, node.win2!);
        const broken = structuredClone(good);
        const nat = broken.delegate.policies[0]!.value as { Settings: { Exceptions: string[] } };
        nat.Settings.Exceptions = nat.Settings.Exceptions.filter(
          (c) => c !== plan.kubernetes.serviceCIDR,
        );
        await lab.cluster.setWindowsCniConfig('win2', broken);
        try {
          expect(
            sourceIp(await probe('win2', 'http', `http://${clusterIp.linWeb}/clientip`)),
          ).to.equal(node.win2!.ip);
          expect(sourceIp(await probe('win2', 'http', `http://${ip.lin1}:8080/clientip`))).to.equal(
            ip.win2,
          );
        } finally {
          await lab.cluster.setWindowsCniConfig('win2', good);
        }
      });

      it('DNS answers Services (short name, FQDN), headless pods, kubernetes.default, and NXDOMAIN', async () => {
        for (const from of ['lin1', 'win1']) {
          expect((await probe(from, 'dns', 'win-web')).addresses, from).to.deep.equal([
            clusterIp.winWeb,
          ]);
          expect(
            (await probe(from, 'dns', `lin-web.${NS}.svc.cluster.local`)).addresses,
          ).to.deep.equal([clusterIp.linWeb]);
          expect(
            (await probe(from, 'dns', `p-win2.pods.${NS}.svc.cluster.local`)).addresses,
          ).to.deep.equal([ip.win2]);
          expect((await probe(from, 'dns', 'kubernetes.default')).addresses).to.deep.equal([
            plan.kubernetes.apiServiceIP,
          ]);
          expect((await probe(from, 'dns', `nope.${NS}.svc.cluster.local`)).result).to.equal(
            'nxdomain',
          );
        }
      });

      it('probes go to one prober in the pod: started at the first probe, again after it died, gone with the pod', async () => {
        const cluster = lab.cluster;
        await cluster.createPod({ name: 'prober', namespace: 'tmp', node: 'lin1', labels: {} });
        const netns = podNamespace(plan.prefix, 'tmp', 'prober');
        const { socket, log } = proberFiles(netns);
        const probers = async () =>
          alivePids(await pidsIn(context.runner, [netns])).filter((pid) =>
            readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('prober.mjs'),
          );
        expect(socket, 'the test names fit in a socket path').to.be.a('string');
        expect(existsSync(socket!), 'no prober before the first probe').to.equal(false);
        const target = `http://${ip.win1}:8080/hostname`;
        // A generous deadline: this checks the prober's life cycle, not the path's speed under load.
        const probe = async () =>
          cluster.probe('prober', 'tmp', ['http', target, '--timeout-ms', '5000'], {
            timeoutMs: 15_000,
          });
        expect(await probe()).to.include({ result: 'ok', body: 'p-win1' });
        const [first, ...more] = await probers();
        expect(more, 'one prober').to.deep.equal([]);
        process.kill(first!, 'SIGKILL');
        // A dying process loses its command line before its files: until its listening socket
        // is closed, a connection is accepted and then reset. Gone means refused.
        const refused = () =>
          new Promise<boolean>((resolve) => {
            const c = connect({ path: socket! });
            c.once('connect', () => {
              c.destroy();
              resolve(false);
            });
            c.once('error', (error) => {
              resolve(noProber(error));
            });
          });
        await pollFor(
          'the killed prober to exit and its socket to refuse',
          async () => (await probers()).length === 0 && (await refused()),
          { timeoutMs: 5000, intervalMs: 20 },
        );
        const again = await probe();
        expect(again, JSON.stringify(again)).to.include({ result: 'ok', body: 'p-win1' });
        expect(await probers())
          .to.have.length(1)
          .and.not.include(first);
        await cluster.deleteNamespace('tmp');
        expect([existsSync(socket!), existsSync(log)], 'socket and log').to.deep.equal([
          false,
          false,
        ]);
      });

      it('Windows pods get nameservers and search list from the CNI config, their namespace first', async () => {
        const result = await lab.cluster.exec('p-win2', NS, ['cat', '/etc/resolv.conf']);
        expect(result.stdout).to.equal(
          `nameserver 10.96.0.10\nsearch ${NS}.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n`,
        );
      });

      it('a process that attaches later sees the cluster and changes it; DNS follows at once', async () => {
        const other = await new NetnsProvider({
          ...testContext(),
          stateDir: context.stateDir,
        }).attach(plan);
        const late = await emulatedCluster(other).createPod({
          name: 'late',
          namespace: 'tmp',
          node: 'win2',
          labels: { app: 'late' },
        });
        const svc = await emulatedCluster(other).createService({
          name: 'late',
          namespace: 'tmp',
          type: 'ClusterIP',
          selector: { app: 'late' },
          ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
        });
        expect((await lab.cluster.list()).pods.map((p) => p.ip)).to.include(late);
        expect((await probe('cp1', 'dns', 'late.tmp')).addresses).to.deep.equal([svc.clusterIP]);
        expect(sourceIp(await probe('cp1', 'http', `http://${svc.clusterIP}/clientip`))).to.equal(
          ip.cp1,
        );
        await emulatedCluster(other).deleteNamespace('tmp');
        expect(
          (await probe('cp1', 'http', `http://${svc.clusterIP}/clientip`, '--timeout-ms', '300'))
            .result,
        ).to.equal('timeout');
        expect((await probe('cp1', 'dns', 'late.tmp.svc.cluster.local')).result).to.equal(
          'nxdomain',
        );
        expect(await labNamespaces(context.runner, `${plan.prefix}pod_tmp_`)).to.deep.equal([]);
      });

      it('creates a batch of Services all or nothing: one bad spec leaves none of them', async () => {
        const http = { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' as const };
        const good = {
          name: 'batch-a',
          namespace: NS,
          type: 'ClusterIP' as const,
          selector: {},
          ports: [http],
        };
        const taken = { ...good, name: 'solo' };
        let error: unknown;
        await lab.cluster.createServices([good, taken]).catch((e: unknown) => (error = e));
        expect(String(error)).to.contain(`service ${NS}/solo already exists`);
        const names = (await lab.cluster.list()).services.map((s) => s.name);
        expect(names).to.include('solo').and.not.include('batch-a');
        const [a, b] = await lab.cluster.createServices([good, { ...good, name: 'batch-b' }]);
        expect(a!.clusterIP).to.be.a('string').and.not.equal(b!.clusterIP);
        const ready = (await lab.cluster.list()).services.map((s) => s.name);
        expect(ready).to.include.members(['batch-a', 'batch-b']);
        await lab.cluster.deleteService('batch-a', NS);
        await lab.cluster.deleteService('batch-b', NS);
      });

      it('reports an emulated, ready lab', async () => {
        const status = await started!.status();
        expect(status).to.include({ provider: 'netns', emulated: true, ready: true });
        expect(status.nodes.map((n) => n.name)).to.deep.equal(['cp1', 'lin1', 'win1', 'win2']);
      });

      it('down (twice) leaves no namespace, process or /etc/netns dir, and the root netns unchanged', async () => {
        const pids = await labPids(context.runner, plan.prefix);
        expect(pids.length).to.be.greaterThan(5);
        await started!.down();
        await started!.down();
        expect(await labNamespaces(context.runner, plan.prefix)).to.deep.equal([]);
        expect(alivePids(pids)).to.deep.equal([]);
        expect(existsSync(`/etc/netns/${plan.prefix}pod_${NS}_p-cp1`)).to.equal(false);
        expect(await rootNetnsSnapshot(context.runner)).to.deep.equal(rootBefore);
      });
    });
  }
});
