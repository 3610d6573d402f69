import { expect } from 'chai';
import { intentOf, plannedCni } from './open-driver.ts';
import { kubernetesSettings } from './kubernetes/kubernetes-settings.ts';

describe('openDriver: what a lab claims before discovery', () => {
  it('a cluster the harness did not make claims no CNI of its plan: CNI, else unknown', () => {
    const cni = { plugin: 'flannel', backend: 'vxlan' } as const;
    expect(plannedCni({ provider: 'existing', cni }, {})).to.equal('unknown');
    expect(plannedCni({ provider: 'existing', cni }, { CNI: 'azure-cni' })).to.equal('azure-cni');
    expect(plannedCni({ provider: 'netns', cni }, { CNI: 'x' })).to.equal('flannel/vxlan');
  });

  it('WINDOWS_DSR counts on clusters the harness did not make; OUTBOUND_NAT defaults to report there', () => {
    const settings = kubernetesSettings({ WINDOWS_DSR: 'on' });
    expect(intentOf(settings, 'existing')).to.deep.equal({
      windowsDsr: true,
      outboundNat: 'report',
    });
    // The project's labs: their plan says DSR; outbound NAT stays absent (node).
    expect(intentOf(settings, 'libvirt')).to.deep.equal({});
    expect(intentOf(kubernetesSettings({ OUTBOUND_NAT: 'report' }), 'netns')).to.deep.equal({
      outboundNat: 'report',
    });
    expect(intentOf(kubernetesSettings({ OUTBOUND_NAT: 'node' }), 'existing')).to.deep.equal({
      outboundNat: 'node',
    });
  });
});
