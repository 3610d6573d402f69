import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ExecaRunner } from '../../exec/execa-runner.ts';
import { silentLogger } from '../../log/logger.ts';
import { planLab, serializePlan } from '../../plan/plan-lab.ts';
import { LabSpecSchema } from '../../spec/lab-spec-schema.ts';
import { VagrantProject, type ProjectFile } from './vagrant-project.ts';
import { missing, skipTest } from '../../testing/skip.ts';

/** `vagrant validate` of vagrant/Vagrantfile on a plan, as the provider runs vagrant. */
describe('vagrant/Vagrantfile', function () {
  this.timeout(60_000);
  const runner = new ExecaRunner(silentLogger());
  let dir = '';

  before(async function () {
    const plugins = await runner
      .run('vagrant', ['plugin', 'list'], { check: false })
      .catch(() => undefined);
    if (plugins === undefined || !plugins.stdout.includes('vagrant-libvirt')) {
      skipTest(
        this,
        missing('vagrant with the vagrant-libvirt plugin (apt-get install vagrant-libvirt)'),
      );
    }
    dir = mkdtempSync(join(tmpdir(), 'hl-vagrantfile-'));
  });

  after(function () {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  async function validate(spec: unknown, project: Partial<ProjectFile> = {}) {
    const plan = planLab(LabSpecSchema.parse(spec), 'test');
    const planFile = join(dir, `${plan.name}.json`);
    writeFileSync(planFile, serializePlan(plan));
    const vagrant = new VagrantProject(runner, join(dir, plan.name, 'hv1'), planFile, plan.id);
    mkdirSync(vagrant.dir, { recursive: true });
    vagrant.write({
      hypervisor: 'hv1',
      driver: 'qemu',
      managementNetwork: `${plan.id}_mgmt-hv1`,
      managementCidr: '192.168.121.0/24',
      labNetwork: `${plan.id}_lab`,
      consoleLogDir: dir,
      bootTimeoutSeconds: 600,
      ...project,
    });
    const env = vagrant.env();
    const validated = await runner.run('vagrant', ['validate'], { env, check: false });
    const machines = await runner.run('vagrant', ['status', '--machine-readable'], {
      env,
      check: false,
    });
    return { validated, machines: machines.stdout };
  }

  it("validates a Linux lab and defines exactly the plan's machines of the hypervisor", async function () {
    const { validated, machines } = await validate({
      name: 'vf-linux',
      provider: 'libvirt',
      cluster: 'emulated',
      nodes: [
        { name: 'cp1', os: 'linux', role: 'control-plane' },
        { name: 'win1', os: 'windows' },
      ],
    });
    expect(validated.exitCode, validated.stdout + validated.stderr).to.equal(0);
    const names = [...machines.matchAll(/^\d+,([^,]+),metadata,provider,libvirt$/gm)].map(
      (m) => m[1],
    );
    expect(names).to.deep.equal(['cp1', 'win1']);
  });

  // Bridged labs are validated against a live libvirtd (vagrant-libvirt looks the bridge up):
  // the integration test (ci/libvirt-integration.sh) brings one up for real.
  it('validates Windows guests with the OpenSSH communicator', async function () {
    const { validated } = await validate({
      name: 'vf-win',
      provider: 'libvirt',
      hypervisors: [
        { name: 'hv1', uri: 'qemu:///system' },
        { name: 'hv2', uri: 'qemu+ssh://root@hv2.example/system' },
      ],
      nodes: [
        { name: 'cp1', os: 'linux', role: 'control-plane', hypervisor: 'hv1' },
        { name: 'win1', os: 'windows', hypervisor: 'hv1', memory: 4096 },
      ],
    });
    expect(validated.exitCode, validated.stdout + validated.stderr).to.equal(0);
  });

  it('refuses to run without the plan, naming the variable', async function () {
    const vagrant = new VagrantProject(
      runner,
      join(dir, 'none'),
      join(dir, 'missing.json'),
      'hl-none',
    );
    mkdirSync(vagrant.dir, { recursive: true });
    const result = await runner.run('vagrant', ['validate'], { env: vagrant.env(), check: false });
    expect(result.exitCode).to.not.equal(0);
    expect(result.stdout + result.stderr).to.match(/HL_PLAN/);
  });
});
