import { expect } from 'chai';
import { clusterIntent, outboundNatOf } from './cluster-intent.ts';
import { kubernetesSettings } from './kubernetes-settings.ts';
import { SettingError } from '../../model/settings.ts';

describe('cluster intent: WINDOWS_DSR and OUTBOUND_NAT', () => {
  it('leaves both unknown when unset or empty', () => {
    expect(clusterIntent({})).to.deep.equal({});
    expect(clusterIntent({ WINDOWS_DSR: ' ', OUTBOUND_NAT: '' })).to.deep.equal({});
    expect(kubernetesSettings({}).intent).to.deep.equal({});
  });

  it('reads what the user states', () => {
    expect(clusterIntent({ WINDOWS_DSR: 'on' })).to.deep.equal({ windowsDsr: true });
    expect(clusterIntent({ WINDOWS_DSR: 'off', OUTBOUND_NAT: 'preserve' })).to.deep.equal({
      windowsDsr: false,
      outboundNat: 'preserve',
    });
    for (const mode of ['node', 'preserve', 'report'])
      expect(clusterIntent({ OUTBOUND_NAT: ` ${mode} ` }).outboundNat).to.equal(mode);
    expect(kubernetesSettings({ WINDOWS_DSR: 'off' }).intent).to.deep.equal({ windowsDsr: false });
  });

  it('names the setting and what it allows for a bad value', () => {
    expect(() => clusterIntent({ WINDOWS_DSR: 'true' }))
      .to.throw(SettingError, 'WINDOWS_DSR must be one of on, off, got "true"')
      .with.property('hint', 'unset WINDOWS_DSR to leave it unknown');
    expect(() => kubernetesSettings({ OUTBOUND_NAT: 'snat' })).to.throw(
      SettingError,
      'OUTBOUND_NAT must be one of node, preserve, report, got "snat"',
    );
  });

  it('reports outbound NAT on clusters the harness did not make unless told, node on its own labs', () => {
    expect(outboundNatOf({}, 'existing')).to.equal('report');
    expect(outboundNatOf({}, 'netns')).to.equal(undefined);
    expect(outboundNatOf({}, 'libvirt')).to.equal(undefined);
    expect(outboundNatOf({ outboundNat: 'node' }, 'existing')).to.equal('node');
    expect(outboundNatOf({ outboundNat: 'report' }, 'netns')).to.equal('report');
  });
});
