import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LabSpecError } from '../errors.ts';
import { planLab } from '../plan/plan-lab.ts';
import { LabStore } from '../state/lab-store.ts';
import { labUp } from '../lifecycle/lab-lifecycle.ts';
import { loadSpec } from './load-spec.ts';

const GOOD = `
name: t
provider: netns
nodes:
  - { name: cp1, os: linux, role: control-plane }
  - { name: win1, os: windows }
`;

/** [what, spec YAML, field path the error must name, text the message must contain] */
const CASES: [string, string, string, string][] = [
  ['not YAML', 'name: [t', '', 'YAML'],
  ['not a mapping', '- a\n- b', '', 'expected object'],
  ['missing name', 'provider: netns\nnodes: []', 'name', 'required'],
  ['name not a DNS label', GOOD.replace('name: t', 'name: Bad_Name'), 'name', 'DNS label'],
  ['name too long', GOOD.replace('name: t', `name: ${'a'.repeat(21)}`), 'name', 'at most 20'],
  [
    'unknown provider',
    GOOD.replace('provider: netns', 'provider: docker'),
    'provider',
    'netns|libvirt|existing',
  ],
  ['unknown top-level field', `${GOOD}colour: blue\n`, 'colour', 'unknown field'],
  [
    'node os wrong',
    GOOD.replace('os: windows', 'os: macos'),
    'nodes[1].os',
    'expected linux|windows',
  ],
  [
    'node role wrong',
    GOOD.replace('role: control-plane', 'role: master'),
    'nodes[0].role',
    'control-plane|worker',
  ],
  [
    'node name not a label',
    GOOD.replace('name: win1', 'name: WIN_1'),
    'nodes[1].name',
    'DNS label',
  ],
  [
    'node unknown field',
    GOOD.replace('os: windows', 'os: windows, ram: 4'),
    'nodes[1].ram',
    'unknown field',
  ],
  [
    'cpus not an integer',
    GOOD.replace('os: windows', 'os: windows, cpus: 1.5'),
    'nodes[1].cpus',
    'int',
  ],
  ['cpus zero', GOOD.replace('os: windows', 'os: windows, cpus: 0'), 'nodes[1].cpus', '>=1'],
  [
    'memory a string',
    GOOD.replace('os: windows', 'os: windows, memory: lots'),
    'nodes[1].memory',
    'expected number',
  ],
  [
    'memory huge',
    GOOD.replace('os: windows', 'os: windows, memory: 9999999'),
    'nodes[1].memory',
    '<=262144',
  ],
  [
    'pod CIDR not a CIDR',
    `${GOOD}kubernetes: { podCIDR: 10.244.0.0 }\n`,
    'kubernetes.podCIDR',
    'IPv4 CIDR',
  ],
  [
    'service CIDR host bits',
    `${GOOD}kubernetes: { serviceCIDR: 10.96.0.1/12 }\n`,
    'kubernetes.serviceCIDR',
    'host bits',
  ],
  ['version malformed', `${GOOD}kubernetes: { version: v1.30 }\n`, 'kubernetes.version', '1.30.4'],
  [
    'pod and service CIDR overlap',
    `${GOOD}kubernetes: { serviceCIDR: 10.244.128.0/17 }\n`,
    'kubernetes.serviceCIDR',
    'overlaps kubernetes.podCIDR',
  ],
  [
    'lab network overlaps pods',
    `${GOOD}network: { cidr: 10.244.10.0/24 }\n`,
    'kubernetes.podCIDR',
    'overlaps network.cidr',
  ],
  [
    'external overlaps services (Linux nodes only)',
    `${GOOD.replace('  - { name: win1, os: windows }\n', '')}external: { cidr: 10.96.5.0/24 }\n`,
    'external.cidr',
    'overlaps kubernetes.serviceCIDR',
  ],
  [
    'external overlaps services (a Windows node: in its ExceptionList)',
    `${GOOD}external: { cidr: 10.96.5.0/24 }\n`,
    'external.cidr',
    'Windows pods reach 10.96.0.0/12 un-NATed',
  ],
  [
    'external target in the Windows ExceptionList (host-gw: the lab network)',
    `${GOOD}cni: { backend: host-gw }\nexternal: { target: 192.168.200.5 }\n`,
    'external.target',
    'un-NATed (OutBoundNAT ExceptionList)',
  ],
  [
    'external CIDR in the Windows ExceptionList (the pod CIDR)',
    `${GOOD}external: { cidr: 10.244.128.0/24 }\n`,
    'external.cidr',
    'Windows pods reach 10.244.0.0/16 un-NATed',
  ],
  [
    'external target inside pods',
    `${GOOD.replace('  - { name: win1, os: windows }\n', '')}external: { target: 10.244.3.3 }\n`,
    'external.target',
    'outside the cluster',
  ],
  [
    'pod CIDR too small per node',
    `${GOOD}kubernetes: { podCIDR: 10.244.0.0/26 }\n`,
    'kubernetes.podCIDR',
    'smaller than one /24',
  ],
  [
    'pod CIDR too few subnets',
    `${GOOD.replace('nodes:', 'nodes:\n  - { name: lin9, os: linux }')}kubernetes: { podCIDR: 10.244.0.0/23 }\n`,
    'kubernetes.podCIDR',
    'holds 2 node subnets',
  ],
  [
    'lab network too small',
    `${GOOD}network: { cidr: 192.168.5.0/29 }\n`,
    'network.cidr',
    'no room',
  ],
  ['cni backend unknown', `${GOOD}cni: { backend: geneve }\n`, 'cni.backend', 'vxlan|host-gw'],
  ['cni plugin unknown', `${GOOD}cni: { plugin: calico }\n`, 'cni.plugin', 'flannel'],
  [
    'duplicate node names',
    GOOD.replace('name: win1', 'name: cp1'),
    'nodes[1].name',
    'duplicate of nodes[0]',
  ],
  [
    'windows control plane',
    GOOD.replace('os: linux, role: control-plane', 'os: windows, role: control-plane'),
    'nodes[0].role',
    'cannot be a control plane',
  ],
  [
    'no linux control plane',
    GOOD.replace('role: control-plane', 'role: worker'),
    'nodes',
    'no Linux control plane',
  ],
  ['no nodes', 'name: t\nprovider: netns\n', 'nodes', 'at least one node'],
  [
    'netns kubeadm with a Windows node',
    `${GOOD}cluster: kubeadm\n`,
    'nodes[1].os',
    'a Windows node needs a Windows VM',
  ],
  [
    'netns kubeadm with flannel',
    `${GOOD}cluster: kubeadm\n`,
    'cni.plugin',
    'use the CNI bridge plugin',
  ],
  [
    'netns kubeadm without a cache folder',
    `${GOOD}cluster: kubeadm\n`,
    'artifacts',
    'cache folder',
  ],
  [
    'containerd pin not a version',
    `${GOOD.replace('provider: netns', 'provider: libvirt')}kubeadm: { versions: { containerd: latest } }\n`,
    'kubeadm.versions.containerd',
    'version such as v1.7.22',
  ],
  [
    'containerd pin older than 1.6',
    `${GOOD.replace('provider: netns', 'provider: libvirt')}kubeadm: { versions: { containerd: v1.5.18 } }\n`,
    'kubeadm.versions.containerd',
    'containerd 1.6 or later',
  ],
  [
    'containerd pin on namespace nodes',
    `${GOOD}cluster: kubeadm\nkubeadm: { versions: { containerd: v1.7.22 } }\n`,
    'kubeadm.versions.containerd',
    "this host's containerd",
  ],
  [
    'bridge CNI on the emulated dataplane',
    `${GOOD}cni: { plugin: bridge, backend: host-gw }\n`,
    'cni.plugin',
    'emulates flannel',
  ],
  [
    'bridge CNI over vxlan',
    `${GOOD}cluster: kubeadm\ncni: { plugin: bridge, backend: vxlan }\n`,
    'cni.backend',
    'like host-gw',
  ],
  [
    'netns with hypervisors',
    `${GOOD}hypervisors: [{ name: hv1, uri: "qemu:///system" }]\n`,
    'hypervisors',
    'uses no hypervisors',
  ],
  [
    'unknown hypervisor',
    GOOD.replace('provider: netns', 'provider: libvirt').replace(
      'os: windows',
      'os: windows, hypervisor: hv9',
    ),
    'nodes[1].hypervisor',
    'unknown hypervisor "hv9"',
  ],
  [
    'bad hypervisor uri',
    `${GOOD.replace('provider: netns', 'provider: libvirt')}hypervisors: [{ name: hv1, uri: "http://x" }]\n`,
    'hypervisors[0].uri',
    'libvirt URI',
  ],
  [
    'duplicate hypervisor',
    `${GOOD.replace('provider: netns', 'provider: libvirt')}hypervisors: [{ name: hv1, uri: "qemu:///system" }, { name: hv1, uri: "qemu:///system" }]\n`,
    'hypervisors[1].name',
    'duplicate',
  ],
  [
    'two hypervisors without bridge',
    `${GOOD.replace('provider: netns', 'provider: libvirt')}hypervisors: [{ name: hv1, uri: "qemu:///system" }, { name: hv2, uri: "qemu+ssh://root@h2/system" }]\n`,
    'network.mode',
    'bridge',
  ],
  [
    'bridge mode without bridge',
    `${GOOD.replace('provider: netns', 'provider: libvirt')}network: { mode: bridge }\n`,
    'network.bridge',
    'required',
  ],
  [
    'windows memory too small for kubeadm',
    GOOD.replace('provider: netns', 'provider: libvirt').replace(
      'os: windows',
      'os: windows, memory: 1024',
    ),
    'nodes[1].memory',
    'below the 2048 MiB',
  ],
  [
    'kubeadm control plane with 1 cpu',
    GOOD.replace('provider: netns', 'provider: libvirt').replace(
      'role: control-plane',
      'role: control-plane, cpus: 1',
    ),
    'nodes[0].cpus',
    'at least 2 CPUs',
  ],
  [
    'unknown box',
    GOOD.replace('provider: netns', 'provider: libvirt').replace(
      'os: windows',
      'os: windows, box: win11',
    ),
    'nodes[1].box',
    'unknown box "win11"',
  ],
  [
    'linux box on a windows node',
    GOOD.replace('provider: netns', 'provider: libvirt').replace(
      'os: windows',
      'os: windows, box: debian-12',
    ),
    'nodes[1].box',
    'carries linux',
  ],
  [
    'windows box in an emulated cluster',
    `${GOOD.replace('provider: netns', 'provider: libvirt').replace('os: windows', 'os: windows, box: windows-2022')}cluster: emulated\n`,
    'nodes[1].box',
    'emulated cluster',
  ],
  [
    'existing with nodes',
    GOOD.replace('provider: netns', 'provider: existing'),
    'nodes',
    'finds nodes in the cluster',
  ],
  [
    'kubeconfig on netns',
    `${GOOD}kubeconfig: /tmp/k\n`,
    'kubeconfig',
    'only the existing provider',
  ],
];

describe('malformed lab specs', () => {
  const work = mkdtempSync(join(tmpdir(), 'hl-spec-'));
  const store = new LabStore(join(work, '.lab'));

  for (const [what, yaml, path, fragment] of CASES) {
    it(`rejects ${what} at ${path === '' ? '(document)' : path}`, async () => {
      const file = join(work, 'lab.yaml');
      writeFileSync(file, yaml);
      let caught: unknown;
      try {
        const loaded = loadSpec(file, work);
        planLab(loaded.spec, loaded.source);
        await labUp(loaded, { store });
      } catch (error) {
        caught = error;
      }
      expect(caught, 'no error').to.be.instanceOf(LabSpecError);
      const error = caught as LabSpecError;
      const issue = error.issues.find((i) => i.path === path);
      expect(issue, `no issue at "${path}" in:\n${error.message}`).to.not.equal(undefined);
      expect(issue!.message).to.contain(fragment);
      expect(error.message).to.contain(path === '' ? '(document)' : `${path}:`);
      expect(existsSync(join(work, '.lab')), 'something was written under .lab/').to.equal(false);
    });
  }

  it('has at least 30 cases', () => {
    expect(CASES.length).to.be.at.least(30);
  });

  it('accepts the good spec the cases are made from', () => {
    const file = join(work, 'good.yaml');
    writeFileSync(file, GOOD);
    expect(planLab(loadSpec(file, work).spec).nodes).to.have.length(2);
  });
});
