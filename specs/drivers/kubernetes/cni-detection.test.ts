import { expect } from 'chai';
import { cniOf } from './cni-detection.ts';
import { discoverCluster } from './cluster-discovery.ts';
import { FakeCore } from '../../testing/kube-fake-core.ts';
import { V1Pod, V1PodStatus } from '@kubernetes/client-node';
import { fakeVersion, recorded } from '../../testing/kube-recorded-objects.ts';

const COMMON = ['coredns-5d78c9869d-8hx7k', 'kube-proxy-4xkzm', 'metrics-server-7c8f-2kq9p'];

describe('CNI detection from system pods', () => {
  it('AKS Azure CNI: azure-cns (azure-cns-win on Windows) or azure-cni pods in kube-system', () => {
    expect(
      cniOf({ 'kube-system': [...COMMON, 'azure-cns-7xk2p', 'azure-cns-win-q8v4d'] }),
    ).to.equal('azure-cni');
    expect(cniOf({ 'kube-system': ['azure-cni-m2x8s'] })).to.equal('azure-cni');
    // With Calico beside it for network policy, as AKS runs it: the pod network first.
    expect(
      cniOf({ 'kube-system': ['calico-node-4xbxs', 'azure-cns-7xk2p', 'calico-typha-77-ljrtg'] }),
    ).to.equal('azure-cni, calico');
  });

  it('AKS kubenet is not Azure CNI: azure-ip-masq-agent alone says nothing', () => {
    expect(cniOf({ 'kube-system': [...COMMON, 'azure-ip-masq-agent-g6xq8'] })).to.equal(undefined);
  });

  it('EKS: the aws-node DaemonSet in kube-system', () => {
    expect(cniOf({ 'kube-system': [...COMMON, 'aws-node-69nk7', 'aws-node-nq4nv'] })).to.equal(
      'amazon-vpc-cni (aws-node)',
    );
  });

  it('Calico by the operator (calico-system) and by manifest (kube-system)', () => {
    expect(
      cniOf({
        'kube-system': COMMON,
        'calico-system': ['calico-node-9fj2k', 'calico-typha-6c9d-x8n2p', 'csi-node-driver-7v2kq'],
      }),
    ).to.equal('calico');
    expect(cniOf({ 'kube-system': [...COMMON, 'calico-node-windows-k2x9p'] })).to.equal('calico');
    // Operator's other pods without calico-node: not enough.
    expect(cniOf({ 'calico-system': ['calico-kube-controllers-5f4-2x'] })).to.equal(undefined);
  });

  it('Cilium, Antrea, canal, weave, kube-router in kube-system', () => {
    expect(cniOf({ 'kube-system': ['cilium-8x2kq', 'cilium-operator-6d9-kq2x8'] })).to.equal(
      'cilium',
    );
    expect(cniOf({ 'kube-system': ['antrea-agent-2kx9p', 'antrea-controller-7c-9x'] })).to.equal(
      'antrea',
    );
    expect(cniOf({ 'kube-system': ['canal-x2k9p'] })).to.equal('canal');
    expect(cniOf({ 'kube-system': ['weave-net-2kx9p'] })).to.equal('weave');
    expect(cniOf({ 'kube-system': ['kube-router-2kx9p'] })).to.equal('kube-router');
  });

  it('flannel in kube-flannel or (older manifests) kube-system', () => {
    expect(cniOf({ 'kube-flannel': ['kube-flannel-ds-7x2kq'] })).to.equal('flannel');
    expect(cniOf({ 'kube-system': ['kube-flannel-ds-windows-amd64-x2k9p'] })).to.equal('flannel');
  });

  it('looks for a CNI only in its own namespaces', () => {
    expect(cniOf({ 'kube-flannel': ['aws-node-69nk7'] })).to.equal(undefined);
    expect(cniOf({ 'calico-system': ['cilium-8x2kq'] })).to.equal(undefined);
  });

  it('anything else is unknown, not flannel', () => {
    expect(cniOf({})).to.equal(undefined);
    expect(cniOf({ 'kube-system': COMMON, 'kube-flannel': [], 'calico-system': [] })).to.equal(
      undefined,
    );
  });

  it('cluster discovery lists calico-system too and names what runs there', async () => {
    const core = new FakeCore();
    core.podStatus = () => recorded(V1PodStatus, { phase: 'Running' });
    core.pods.push(
      recorded(V1Pod, { metadata: { name: 'calico-node-9fj2k', namespace: 'calico-system' } }),
    );
    const facts = await discoverCluster(core, fakeVersion);
    expect(facts.cni).to.equal('calico');
    expect(core.calls).to.include('listNamespacedPod calico-system');
  });
});
