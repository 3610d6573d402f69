// The Linux nodes, /version and the system pods are what a live v1.20.2 API server answered
// (kube-recorded-objects.ts); the Windows node is hand-written (no Windows node can run here).
import { expect } from 'chai';
import { discoverCluster, notReadyReason } from './cluster-discovery.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import {
  cordoned,
  fakeVersion,
  NODES,
  readyCondition,
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

  it('refuses a node without an InternalIP, naming it', async () => {
    const core = new FakeCore();
    core.nodes = [NODES.cp1(), withoutInternalIp(NODES.win1())];
    const error = await discoverCluster(core, fakeVersion).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as Error).message).to.equal('node win1 reports no InternalIP address');
  });

  it('says why a node cannot carry pods', () => {
    expect(notReadyReason(NODES.lin1())).to.equal(undefined);
    // The control plane's master taint does not make it unready.
    expect(notReadyReason(NODES.cp1())).to.equal(undefined);
    expect(notReadyReason(cordoned(NODES.lin2()))).to.equal('cordoned (spec.unschedulable)');
    const lost = withReady(
      NODES.win1(),
      readyCondition(
        'False',
        'KubeletNotReady',
        'container runtime network not ready: NetworkReady=false',
      ),
    );
    expect(notReadyReason(lost)).to.equal(
      'Ready=False (KubeletNotReady: container runtime network not ready: NetworkReady=false)',
    );
  });
});
