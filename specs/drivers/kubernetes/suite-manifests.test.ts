import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  podHostname,
  renderSuiteManifests,
  renderTemplate,
  type RenderInput,
} from './suite-manifests.ts';
import { HOST_NETEXEC_PORTS } from '../../../lab/cluster/runtime/workload-programs.ts';
import { stampOf } from '../../../lab/contracts/kubernetes-names.ts';
import { ENFORCE_LABEL, RUN_LEVEL } from './pod-security.ts';

const input: RenderInput = {
  namespace: 'hybrid-lab-20250101-abc123',
  runId: '20250101-abc123',
  lab: 'hybrid',
  stamp: { owner: 'ada', host: 'build1', startedAt: '2025-01-01T10:00:00.000Z', pid: 4242 },
  images: {
    linux: 'registry.example:5000/e2e/agnhost-linux:2.52',
    windows: 'registry.example:5000/e2e/agnhost:2.52',
  },
  pods: [
    { name: 'netexec-lin1-a', nodeHostname: 'lin1', os: 'linux', localBackend: false },
    { name: 'netexec-win1-a', nodeHostname: 'win1', os: 'windows', localBackend: false },
    { name: 'netexec-win1-b', nodeHostname: 'win1', os: 'windows', localBackend: true },
  ],
  serviceOses: ['linux', 'windows'],
  hairpin: [{ node: 'lin1', pod: 'netexec-lin1-a' }],
  hostNetwork: [
    { name: 'host-lin1', nodeHostname: 'lin1', os: 'linux' },
    { name: 'host-win1', nodeHostname: 'win1', os: 'windows' },
  ],
};

describe('suite manifests (rendered from manifests/suite)', () => {
  it('pins each pod to its node and OS, tolerates control-plane and Windows taints', () => {
    const { pods } = renderSuiteManifests(input);
    const win = pods[1]!;
    expect(win.metadata?.name).to.equal('netexec-win1-a');
    expect(win.metadata?.labels).to.deep.equal({
      app: 'netexec',
      os: 'windows',
      'hybrid-lab/slot': 'a',
      'hybrid-lab/pod': 'netexec-win1-a',
      'hybrid-lab/local-backend': 'false',
      'hybrid-lab/run': input.runId,
      'hybrid-lab/lab': 'hybrid',
    });
    expect(win.spec?.nodeSelector).to.deep.equal({
      'kubernetes.io/os': 'windows',
      'kubernetes.io/hostname': 'win1',
    });
    expect(win.spec?.tolerations).to.deep.equal([
      { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
      { key: 'os', operator: 'Equal', value: 'Windows', effect: 'NoSchedule' },
    ]);
    expect(pods[0]!.spec?.tolerations).to.deep.equal([
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
      // kubeadm before 1.24 taints control planes "master" (seen on the real 1.20 cluster).
      { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    // TOLERATIONS and the pull secret reach every pod, host-network ones too.
    const extra = { key: 'CriticalAddonsOnly', operator: 'Exists' as const };
    const more = renderSuiteManifests({ ...input, tolerations: [extra], pullSecret: 'regcred' });
    for (const pod of [...more.pods, ...more.hostNetwork]) {
      expect(pod.spec?.tolerations).to.deep.include(extra);
      expect(pod.spec?.imagePullSecrets).to.deep.equal([{ name: 'regcred' }]);
    }
    expect(win.spec).to.include({ hostname: 'netexec-win1-a', subdomain: 'netexec' });
    const container = win.spec!.containers[0]!;
    // Images are per OS: a Linux-only image never lands on a Windows node.
    expect(container.image).to.equal(input.images.windows);
    expect(pods[0]!.spec!.containers[0]!.image).to.equal(input.images.linux);
    const { hostNetwork } = renderSuiteManifests(input);
    expect(hostNetwork.map((p) => p.spec!.containers[0]!.image)).to.deep.equal([
      input.images.linux,
      input.images.windows,
    ]);
    expect(container.args).to.deep.equal(['netexec', '--http-port=8080', '--udp-port=8081']);
    expect(container.readinessProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 8080 });
  });

  it('renders the headless Service, one NodePort Service per OS (b pods only) and the labelled namespace', () => {
    const { namespace, services } = renderSuiteManifests(input);
    expect(namespace.metadata?.labels).to.deep.equal({
      'hybrid-lab/run': input.runId,
      'hybrid-lab/lab': 'hybrid',
      // Every node gets a host-network pod (HostProcess on Windows): only privileged admits it.
      'pod-security.kubernetes.io/enforce': 'privileged',
      'pod-security.kubernetes.io/enforce-version': 'latest',
      'pod-security.kubernetes.io/audit': 'privileged',
      'pod-security.kubernetes.io/audit-version': 'latest',
      'pod-security.kubernetes.io/warn': 'privileged',
      'pod-security.kubernetes.io/warn-version': 'latest',
    });
    expect(namespace.metadata?.labels?.[ENFORCE_LABEL]).to.equal(RUN_LEVEL);
    // Whose run it is, for `lab reap`; free text, so annotations.
    expect(namespace.metadata?.annotations).to.deep.equal({
      'hybrid-lab/owner': 'ada',
      'hybrid-lab/host': 'build1',
      'hybrid-lab/started-at': '2025-01-01T10:00:00.000Z',
      'hybrid-lab/pid': '4242',
    });
    expect(stampOf(namespace.metadata?.annotations)).to.deep.equal(input.stamp);
    const [headless, linux, windows] = services;
    expect(headless?.metadata?.name).to.equal('netexec');
    expect(headless?.spec).to.include({ clusterIP: 'None' });
    expect(headless?.spec?.selector).to.deep.equal({
      app: 'netexec',
      'hybrid-lab/run': input.runId,
    });
    expect(linux?.metadata?.name).to.equal('web-linux');
    expect(windows?.metadata?.name).to.equal('web-windows');
    expect(windows?.spec?.type).to.equal('NodePort');
    expect(windows?.spec?.selector).to.deep.equal({
      app: 'netexec',
      os: 'windows',
      'hybrid-lab/slot': 'b',
      'hybrid-lab/run': input.runId,
    });
    expect(windows?.spec?.ports).to.deep.equal([
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      { name: 'udp', port: 8081, targetPort: 8081, protocol: 'UDP' },
    ]);
  });

  it('renders one externalTrafficPolicy Local NodePort Service per OS, selecting the pods marked to back it', () => {
    const { local, pods } = renderSuiteManifests(input);
    expect(local.map((s) => s.metadata?.name)).to.deep.equal(['local-linux', 'local-windows']);
    const windows = local[1]!;
    expect(windows.spec).to.include({ type: 'NodePort', externalTrafficPolicy: 'Local' });
    expect(windows.spec?.selector).to.deep.equal({
      app: 'netexec',
      os: 'windows',
      'hybrid-lab/local-backend': 'true',
      'hybrid-lab/run': input.runId,
    });
    expect(windows.spec?.ports).to.deep.equal([
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
    ]);
    const selected = pods.filter((p) =>
      Object.entries(windows.spec!.selector!).every(([k, v]) => p.metadata?.labels?.[k] === v),
    );
    expect(selected.map((p) => p.metadata?.name)).to.deep.equal(['netexec-win1-b']);
  });

  it("renders a netexec on every node's own network: hostNetwork on Linux, HostProcess on Windows", () => {
    const { hostNetwork } = renderSuiteManifests(input);
    const [linux, windows] = hostNetwork;
    expect(linux?.metadata?.name).to.equal('host-lin1');
    expect(linux?.spec).to.deep.include({ hostNetwork: true });
    expect(linux?.spec?.nodeSelector).to.deep.equal({
      'kubernetes.io/os': 'linux',
      'kubernetes.io/hostname': 'lin1',
    });
    const container = linux!.spec!.containers[0]!;
    // The ports the suite's cells address (HOST_NETEXEC_PORTS), clear of the pods' own.
    expect(container.args).to.deep.equal(['netexec', '--http-port=8085', '--udp-port=8086']);
    expect(container.readinessProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 8085 });
    expect(HOST_NETEXEC_PORTS).to.deep.equal({ http: 8085, udp: 8086 });
    expect(windows?.spec?.securityContext?.windowsOptions).to.deep.include({ hostProcess: true });
    expect(windows?.spec).to.deep.include({ hostNetwork: true });
    const command = windows!.spec!.containers[0]!.command!;
    expect(command.slice(0, 3)).to.deep.equal(['powershell.exe', '-NoProfile', '-Command']);
    // The image's agnhost has no extension; CreateProcess starts it by full path.
    expect(command[3]).to.include('FileName = "$env:CONTAINER_SANDBOX_MOUNT_POINT\\agnhost";');
    expect(command[3]).to.include("Arguments = 'netexec --http-port=8085 --udp-port=8086'");
    expect(command[3]).to.include('UseShellExecute = $false');
    // Not a Service backend: no Service selects app=host-netexec.
    expect(linux?.metadata?.labels).to.include({ app: 'host-netexec' });
  });

  it('makes a DNS-label hostname out of pod names built from dotted node names', () => {
    expect(podHostname('netexec-ip-10-0-0-5.ec2.internal-a')).to.equal(
      'netexec-ip-10-0-0-5-ec2-internal-a',
    );
    expect(podHostname(`netexec-${'n'.repeat(70)}-a`)).to.have.length.at.most(63);
  });

  it('refuses a template placeholder nobody fills', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hl-manifests-'));
    writeFileSync(join(dir, 't.yaml'), 'metadata:\n  name: ${nmae}\n');
    expect(() => renderTemplate(join(dir, 't.yaml'), { name: 'x' })).to.throw(
      /unknown placeholder \$\{nmae\}/,
    );
  });
});
