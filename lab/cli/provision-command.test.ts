import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { serializePlan } from '../plan/plan-lab.ts';
import { LabStore } from '../state/lab-store.ts';
import { provisionCommand, provisionPreflight } from './provision-command.ts';
import { ProvisionError } from '../provision/provision-error.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { libvirtDir, sshConfigFile } from '../providers/libvirt/libvirt-names.ts';
import { LibvirtStateStore } from '../providers/libvirt/libvirt-state.ts';

describe('lab provision', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'hl-store-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  function storeWith(specExtra: string): LabStore {
    const store = new LabStore(join(root, '.lab'));
    const cache = join(root, 'cache');
    mkdirSync(cache, { recursive: true });
    store.create(
      'kt',
      `name: kt\nprovider: libvirt\n${specExtra.replace('CACHE', cache)}`,
      serializePlan(kubeadmPlan()),
    );
    return store;
  }

  it('--preflight is empty without a cache', async () => {
    expect(await provisionPreflight(storeWith(''), 'kt')).to.deep.equal([]);
  });

  it('--preflight lists each missing artifact with where to get it', async () => {
    const lines = await provisionPreflight(storeWith('artifacts: { dir: CACHE }\n'), 'kt');
    expect(lines[0]).to.match(
      /^artifact missing: debian\/bookworm\/amd64\/containerd_\*\.deb .* for Kubernetes v1\.30\.4 — stage it in .*cache$/,
    );
    expect(lines.join('\n')).to.include(
      'https://dl.k8s.io/release/v1.30.4/bin/linux/amd64/kubeadm',
    );
  });

  it('refuses a bad artifacts field naming it, and a lab without SSH targets', async () => {
    const bad = storeWith('artifacts: { dir: CACHE, url: "http://x" }\n');
    await provisionPreflight(bad, 'kt').then(
      () => expect.fail('resolved'),
      (e: unknown) => expect(String(e)).to.match(/artifacts/),
    );
    const store = storeWith('');
    const notUp = await provisionCommand(store, 'kt').catch((e: unknown) => e);
    expect(String(notUp)).to.match(/lab kt is unknown, not up/);
    store.writeState('kt', { phase: 'up', provider: 'libvirt' });
    new LibvirtStateStore(libvirtDir(store.paths('kt').dir)).write({
      format: 1,
      labId: 'hl-kt',
      hypervisors: [],
      sshConfig: sshConfigFile(store.paths('kt').dir),
      masters: {},
      timings: {},
    });
    const error = await provisionCommand(store, 'kt').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProvisionError);
    expect(String(error)).to.include('ssh_config does not exist');
  });
});
