import { expect } from 'chai';
import { LabSpecError } from '../errors.ts';
import type { LabSpec } from '../spec/lab-spec-schema.ts';
import { loadSpec, parseSpecText } from '../spec/load-spec.ts';
import { planLab } from './plan-lab.ts';
import { LINUX_ONLY_IMAGE_PREFIX, WINDOWS_VERSION_FLOORS } from './windows-checks.ts';

/** A libvirt kubeadm lab with a Windows worker, with extra top-level YAML. */
const spec = (version: string, extra = ''): LabSpec =>
  parseSpecText(
    [
      'name: w',
      'provider: libvirt',
      `kubernetes: { version: "${version}" }`,
      'nodes:',
      '  - { name: cp1, os: linux, role: control-plane }',
      '  - { name: win1, os: windows }',
      extra,
    ].join('\n'),
    'w.yaml',
  );

/** The issues planning `text` raises (none when it plans). */
function issues(parsed: LabSpec): { path: string; message: string }[] {
  try {
    planLab(parsed);
    return [];
  } catch (error) {
    if (!(error instanceof LabSpecError)) throw error;
    return [...error.issues];
  }
}

const minorBefore = (since: string) => {
  const [major, minor] = since.split('.').map(Number);
  return `${major}.${minor! - 1}.0`;
};

describe('planner: Windows nodes and Kubernetes versions', () => {
  it('refuses a Windows node on Kubernetes 1.20.2, naming the field and the floor', () => {
    const found = issues(spec('1.20.2'));
    expect(found.map((i) => i.path)).to.deep.equal(['kubernetes.version']);
    expect(found[0]!.message).to.match(/^Windows nodes need Kubernetes >= 1\.23 \(HostProcess/);
    expect(found[0]!.message).to.include('got 1.20.2');
  });

  for (const floor of WINDOWS_VERSION_FLOORS) {
    it(`holds the floor of ${floor.feature}: ${floor.since}`, () => {
      const dsr = floor.usedWhen === 'windows-dsr' ? 'windows: { dsr: true }' : '';
      const before = issues(spec(minorBefore(floor.since), dsr));
      expect(
        before.some((i) => i.path === 'kubernetes.version' && i.message.includes(floor.feature)),
        `${minorBefore(floor.since)} is refused`,
      ).to.equal(true);
      const at = issues(spec(`${floor.since}.0`, dsr)).filter((i) =>
        i.message.includes(floor.feature),
      );
      expect(at, `${floor.since}.0 is accepted`).to.deep.equal([]);
    });
  }

  it('plans the libvirt-hybrid preset, and Windows nodes no kubeadm provisions at any version', () => {
    const preset = loadSpec('libvirt-hybrid', '/nonexistent');
    expect(issues(preset.spec)).to.deep.equal([]);
    const emulated = parseSpecText(
      'name: e\nprovider: netns\nkubernetes: { version: "1.20.2" }\nnodes:\n  - { name: cp1, os: linux, role: control-plane }\n  - { name: win1, os: windows }\n',
      'e.yaml',
    );
    expect(issues(emulated)).to.deep.equal([]);
  });

  it("refuses the project's Linux-only agnhost image for Windows nodes, and takes one per OS", () => {
    const linuxOnly = `${LINUX_ONLY_IMAGE_PREFIX}agnhost:2.25`;
    const one = issues(spec('1.30.4', `kubeadm: { agnhostImage: ${linuxOnly} }`));
    expect(one.map((i) => i.path)).to.deep.equal(['kubeadm.agnhostImage']);
    expect(one[0]!.message).to.include('Linux only').and.include('windows:');
    const perOs = issues(
      spec(
        '1.30.4',
        `kubeadm: { agnhostImage: { linux: ${linuxOnly}, windows: registry.example/e2e/agnhost:2.52 } }`,
      ),
    );
    expect(perOs).to.deep.equal([]);
    const wrongWindows = issues(
      spec('1.30.4', `kubeadm: { agnhostImage: { linux: ${linuxOnly}, windows: ${linuxOnly} } }`),
    );
    expect(wrongWindows.map((i) => i.path)).to.deep.equal(['kubeadm.agnhostImage.windows']);
  });
});
