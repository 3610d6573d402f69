// Unit level only: the node list is recorded (recorded-objects.ts); no real cluster exists here.
import { expect } from 'chai';
import { discoverCluster, notReadyReason } from './cluster-discovery.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import {
  fakeVersion,
  NODES,
  readyCondition,
  recordedNode,
} from '../../testing/kube-recorded-objects.ts';

describe('cluster discovery (recorded node list)', () => {
  it('takes os from kubernetes.io/os, role from the control-plane label, ip from InternalIP', async () => {
    const core = new FakeCore();
    core.nodes = [NODES.win1(), NODES.cp1(), NODES.lin1()];
    const facts = await discoverCluster(core, fakeVersion);
    expect(facts.nodes).to.deep.equal([
      { name: 'cp1', os: 'linux', role: 'control-plane', ip: '192.168.200.10' },
      { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
      { name: 'win1', os: 'windows', role: 'worker', ip: '192.168.200.12' },
    ]);
    expect(facts.kubernetesVersion).to.equal('v1.30.4');
    expect(facts.osBuilds.win1).to.equal('Windows Server 2022 Datacenter (10.0.20348.2582)');
    expect(facts.hostnames).to.deep.equal({ cp1: 'cp1', lin1: 'lin1', win1: 'win1' });
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
    core.nodes = [
      NODES.cp1(),
      recordedNode('win1', 'windows', '192.168.200.12', { noInternalIp: true }),
    ];
    const error = await discoverCluster(core, fakeVersion).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InfrastructureError);
    expect((error as Error).message).to.equal('node win1 reports no InternalIP address');
  });

  it('says why a node cannot carry pods', () => {
    expect(notReadyReason(NODES.lin1())).to.equal(undefined);
    expect(
      notReadyReason(recordedNode('lin1', 'linux', '192.168.200.11', { cordoned: true })),
    ).to.equal('cordoned (spec.unschedulable)');
    const lost = recordedNode('win1', 'windows', '192.168.200.12', {
      ready: readyCondition(
        'False',
        'KubeletNotReady',
        'container runtime network not ready: NetworkReady=false',
      ),
    });
    expect(notReadyReason(lost)).to.equal(
      'Ready=False (KubeletNotReady: container runtime network not ready: NetworkReady=false)',
    );
  });
});
