// The Linux nodes, /version and the system pods are what a live v1.20.2 API server answered
// (kube-recorded-objects.ts); the Windows node is hand-written (no Windows node can run here).
import { expect } from 'chai';
import { V1Taint } from '@kubernetes/client-node';
import { discoverCluster } from './cluster-discovery.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import {
  cordoned,
  fakeVersion,
  NODES,
  readyCondition,
  recorded,
  withoutInternalIp,
  withReady,
} from '../../testing/kube-recorded-objects.ts';

describe('cluster discovery (recorded node list)', () => {
  it('takes os from kubernetes.io/os, role from the control-plane label, ip from InternalIP', async () => {
    const core = new FakeCore();
    core.nodes = [NODES.win1(), NODES.lin2(), NODES.cp1(), NODES.lin1()];
    const facts = await discoverCluster(core, fakeVersion);
    expect(facts.nodes).to.deep.equal([
      // kubeadm 1.20 labels its control plane both master and control-plane; the latter counts.
      { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
      { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
      { name: 'lin2', os: 'linux', role: 'worker', ip: '192.168.200.12' },
      { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.13' },
    ]);
    expect(facts.kubernetesVersion).to.equal('v1.20.2');
    const kernel = NODES.lin1().status?.nodeInfo?.kernelVersion;
    expect(facts.osBuilds.lin1).to.equal(`Debian GNU/Linux 12 (bookworm) (${kernel})`);
    expect(facts.osBuilds.win1).to.equal('Windows Server 2022 Datacenter (10.0.20348.2582)');
    expect(facts.hostnames).to.deep.equal({ cp1: 'cp1', lin1: 'lin1', lin2: 'lin2', win1: 'win1' });
  });

  it('reads the cluster DNS and CNI off the recorded kube-system and kube-flannel pods', async () => {
    const facts = await discoverCluster(new FakeCore(), fakeVersion);
    // The recorded cluster runs hl-cluster-dns as kube-dns and a bridge CNI without pods.
    expect(facts.clusterDns).to.match(/^hl-cluster-dns \(a stand-in for CoreDNS: .+\)$/);
    expect(facts).not.to.have.property('cni');
  });

  it('keeps the kubernetes.io/hostname label for node selectors when it differs from the name', async () => {
    const core = new FakeCore();
    const node = NODES.lin1();
    node.metadata!.labels!['kubernetes.io/hostname'] = 'lin1.lab.example';
    core.nodes = [NODES.cp1(), node];
    expect((await discoverCluster(core, fakeVersion)).hostnames.lin1).to.equal('lin1.lab.example');
  });

  it('leaves out a node without an InternalIP, naming it, and uses the rest', async () => {
    const core = new FakeCore();
    core.nodes = [NODES.cp1(), withoutInternalIp(NODES.win1())];
    const facts = await discoverCluster(core, fakeVersion);
    expect(facts.nodes.map((n) => n.name)).to.deep.equal(['cp1']);
    expect(facts.leftOut).to.deep.equal([
      {
        node: { name: 'win1', os: 'windows', role: 'worker', ip: '' },
        why: "reports no InternalIP address (kubectl get node win1 -o jsonpath='{.status.addresses}')",
      },
    ]);
  });

  it("leaves out cordoned, NotReady and tainted nodes; the control plane's master taint is tolerated", async () => {
    const core = new FakeCore();
    const tainted = NODES.lin2();
    tainted.spec!.taints = [
      recorded(V1Taint, { key: 'dedicated', value: 'infra', effect: 'NoSchedule' }),
    ];
    const lost = withReady(
      NODES.win1(),
      readyCondition(
        'False',
        'KubeletNotReady',
        'container runtime network not ready: NetworkReady=false',
      ),
    );
    core.nodes = [NODES.cp1(), cordoned(NODES.lin1()), tainted, lost];
    const facts = await discoverCluster(core, fakeVersion);
    expect(facts.nodes.map((n) => n.name)).to.deep.equal(['cp1']);
    expect(facts.leftOut?.map((l) => `${l.node.name} ${l.why}`)).to.deep.equal([
      'lin1 is cordoned (spec.unschedulable; kubectl uncordon lin1 to use it)',
      "lin2 has taint dedicated=infra:NoSchedule, which the suite's pods do not tolerate (TOLERATIONS to add one)",
      'win1 is not Ready (Ready=False: KubeletNotReady: container runtime network not ready: NetworkReady=false)',
    ]);
    // With the taint tolerated, lin2 is back.
    const tolerated = await discoverCluster(core, fakeVersion, {
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
    });
    expect(tolerated.nodes.map((n) => n.name)).to.deep.equal(['cp1', 'lin2']);
  });

  it('refuses a run with no usable node, or NODES naming a node the cluster lacks', async () => {
    const core = new FakeCore();
    core.nodes = [cordoned(NODES.lin1())];
    const none = await discoverCluster(core, fakeVersion).catch((e: unknown) => e);
    expect(none).to.be.instanceOf(InfrastructureError);
    expect((none as Error).message).to.equal(
      'the cluster has no node the suite can use: lin1 is cordoned (spec.unschedulable; kubectl uncordon lin1 to use it)',
    );
    core.nodes = [NODES.lin1()];
    const unknown = await discoverCluster(core, fakeVersion, { names: ['lin1', 'win7'] }).catch(
      (e: unknown) => e,
    );
    expect((unknown as Error).message).to.equal(
      'NODES names win7, which the cluster does not have',
    );
  });

  it("asks for the Windows image's variants only with a Windows node, and leaves out one without its build", async () => {
    let asked = 0;
    const variants = (list: string[]) => () => {
      asked++;
      return Promise.resolve({ image: 'agnhost:2.52', variants: list });
    };
    const core = new FakeCore();
    core.nodes = [NODES.cp1(), NODES.lin1(), NODES.win1()];
    // win1 runs 10.0.20348 (Windows Server 2022): an ltsc2019-only image cannot start there.
    const facts = await discoverCluster(core, fakeVersion, {}, variants(['10.0.17763.5830']));
    expect(facts.nodes.map((n) => n.name)).to.deep.equal(['cp1', 'lin1']);
    expect(facts.leftOut!.map((l) => `${l.node.name} ${l.why}`)).to.deep.equal([
      'win1 runs Windows build 10.0.20348, and agnhost:2.52 has variants for 10.0.17763.5830 only: a Windows container starts only on its own build (AGNHOST_IMAGE_WINDOWS to name an image that has one)',
    ]);
    const fits = await discoverCluster(core, fakeVersion, {}, variants(['10.0.20348.2582']));
    expect(fits.nodes.map((n) => n.name)).to.include('win1');
    expect(asked).to.equal(2);
    core.nodes = [NODES.cp1(), NODES.lin1()];
    await discoverCluster(core, fakeVersion, {}, variants([]));
    expect(asked, 'asked on a Linux-only cluster').to.equal(2);
  });
});
