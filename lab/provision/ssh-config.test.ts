import { expect } from 'chai';
import { ProvisionError } from './provision-error.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { targetsFromSshConfig } from './ssh-config.ts';

const CONFIG = ['cp1', 'lin1', 'win1']
  .map(
    (name, i) => `Host ${name}
  HostName 192.168.121.${20 + i}
  User vagrant
  Port 22
  UserKnownHostsFile /dev/null
  StrictHostKeyChecking no
  IdentityFile "/work/.lab/kt/hv1/.vagrant/machines/${name}/libvirt/private_key"
  IdentitiesOnly yes
`,
  )
  .join('\n');

describe('vagrant ssh-config targets', () => {
  it('gives one target per plan node', () => {
    const targets = targetsFromSshConfig(CONFIG, kubeadmPlan());
    expect(targets.map((t) => `${t.node} ${t.user}@${t.host}:${t.port}`)).to.deep.equal([
      'cp1 vagrant@192.168.121.20:22',
      'lin1 vagrant@192.168.121.21:22',
      'win1 vagrant@192.168.121.22:22',
    ]);
    expect(targets[0]!.identityFile).to.equal(
      '/work/.lab/kt/hv1/.vagrant/machines/cp1/libvirt/private_key',
    );
  });

  it('maps prefixed Vagrant machine names and names a node without an entry', () => {
    const prefixed = CONFIG.replace(/^Host /gm, 'Host hl-kt-');
    expect(
      targetsFromSshConfig(prefixed, kubeadmPlan(), (a) => a.replace(/^hl-kt-/, '')),
    ).to.have.length(3);
    expect(() => targetsFromSshConfig(CONFIG.split('\n\n')[0]!, kubeadmPlan())).to.throw(
      ProvisionError,
      /lin1: step connect/,
    );
  });
});
