/**
 * Checks derived from the facts catalogue's platform rows (windows-platform-facts.ts): flannel's
 * network and kube-proxy's source VIP, the join's input, image staging, crictl, the box's keys,
 * strict mode, the kubelet's Windows refusals, HostProcess PATH and service account tokens.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { windowsCniConfig } from '../cni/windows-cni-config.ts';
import { planLab } from '../plan/plan-lab.ts';
import { loadSpec } from '../spec/load-spec.ts';
import { REPO_ROOT, windowsContainers } from '../testing/windows-scripts.ts';
import { artifactsFor, windowsImages } from './artifact-catalogue.ts';
import { componentVersions } from './component-versions.ts';
import { joinStep, REBOOT_REQUIRED } from './provision-steps.ts';
import { renderManifests, windowsNetConf } from './render-manifests.ts';
import { scriptCommand } from './step-runner.ts';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const plan = planLab(loadSpec('libvirt-hybrid', REPO_ROOT).spec);
const win = plan.nodes.find((n) => n.os === 'windows')!;
const versions = componentVersions(plan);

interface ManifestDoc {
  kind: string;
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
}

/** The ConfigMap start script and the container environment of a rendered Windows manifest. */
function rendered(name: string): { script: string; env: Record<string, string> } {
  const manifest = renderManifests(plan, versions).find((m) => m.file.endsWith(name))!;
  const docs = parseAllDocuments(manifest.text).map((d) => d.toJS() as ManifestDoc);
  const script = docs.find((d) => d.kind === 'ConfigMap')!.data!['start.ps1']!;
  const container = docs.find((d) => d.kind === 'DaemonSet')!.spec!.template.spec.containers[0]!;
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value ?? '']));
  return { script, env };
}

describe('Windows platform facts (facts catalogue)', () => {
  it("the Windows net-conf is one flannel's Windows VXLAN backend takes, with the MAC prefix win-overlay defaults to", () => {
    const conf = JSON.parse(windowsNetConf(plan)) as { Backend: Record<string, unknown> };
    expect(conf.Backend.Type).to.equal('vxlan');
    expect(conf.Backend.VNI).to.be.greaterThanOrEqual(4096);
    expect(conf.Backend.Port).to.equal(4789);
    expect(conf.Backend.Name).to.be.a('string').and.not.equal('');
    for (const refused of ['DirectRouting', 'GBP', 'MacPrefix'])
      expect(conf.Backend, refused).to.not.have.property(refused);
    expect(JSON.stringify(windowsCniConfig(plan, win))).to.not.match(/endpointMacPrefix/i);
  });

  it('the CNI config, the Windows net-conf and both DaemonSets name one HNS network', () => {
    const name = plan.cni.windowsNetworkName;
    expect(windowsCniConfig(plan, win).name).to.equal(name);
    expect(
      (JSON.parse(windowsNetConf(plan)) as { Backend: { Name: string } }).Backend.Name,
    ).to.equal(name);
    for (const file of ['flannel-hostprocess.yaml', 'kube-proxy-hostprocess.yaml'])
      expect(rendered(file).env.KUBE_NETWORK, file).to.equal(name);
    expect(rendered('kube-proxy-hostprocess.yaml').script).to.include(
      '"--network-name=$env:KUBE_NETWORK"',
    );
  });

  it("kube-proxy reserves its source VIP in the store and network of the pods' IPAM", () => {
    const { script } = rendered('kube-proxy-hostprocess.yaml');
    expect(script).to.match(/name = \$env:KUBE_NETWORK\s*\n\s*ipam = @\{ type = 'host-local'/);
    expect(script).to.include("dataDir = 'C:\\var\\lib\\cni\\networks'");
    // The pods' host-local has no dataDir of its own: the default, on the system drive.
    expect(JSON.stringify(windowsCniConfig(plan, win))).to.not.match(/dataDir|ipam/);
  });

  it('kube-proxy gets --source-vip on vxlan and no script makes an HNS endpoint', () => {
    const { script } = rendered('kube-proxy-hostprocess.yaml');
    expect(script).to.match(/if \(\$env:CNI_BACKEND -eq 'vxlan'\) \{[\s\S]*--source-vip=\$vip/);
    for (const file of [
      'manifests/windows/kube-proxy-hostprocess.yaml',
      'manifests/windows/flannel-hostprocess.yaml',
      'lab/cluster/windows-path-evidence.ps1',
    ])
      expect(read(file), file).to.not.match(/New-Hns\w+/);
  });

  it('the join secrets reach kubeadm-join.ps1 on standard input only, read with [Console]::In', () => {
    const step = joinStep(win, 'abcdef.0123456789abcdef\nsha256:00\n');
    expect(step.input).to.include('abcdef.0123456789abcdef');
    const argv = scriptCommand('windows', step.script, step.args);
    expect(argv).to.include('-NonInteractive');
    expect(argv.join(' ')).to.not.include('abcdef');
    const script = read('vagrant/scripts/windows/kubeadm-join.ps1');
    expect(script.match(/\[Console\]::In\.ReadLine\(\)/g)).to.have.length(2);
    expect(script).to.not.match(/Read-Host|\$input\b/i);
  });

  it('every Windows image is staged for windows/amd64 on pull and export', () => {
    const images = artifactsFor('windows', versions).filter((a) => a.kind === 'image');
    expect(images.length).to.equal(windowsImages(versions).length).and.greaterThan(0);
    for (const image of images) {
      expect(image.from, image.what).to.match(/images pull --platform windows\/amd64 /);
      expect(image.from, image.what).to.match(/images export --platform windows\/amd64 /);
    }
  });

  it('a Windows node joins without crictl and without ignoring a preflight error', () => {
    for (const artifact of artifactsFor('windows', versions))
      expect(artifact.path, artifact.what).to.not.match(/crictl/);
    const script = read('vagrant/scripts/windows/kubeadm-join.ps1');
    expect(script).to.not.match(/ignore-preflight-errors|ignorePreflightErrors/);
  });

  it("the box authorises Vagrant's key for the administrator in administrators_authorized_keys", () => {
    const script = read('vagrant/boxes/windows/scripts/setup-openssh.ps1');
    expect(script).to.include("$keys = 'C:\\ProgramData\\ssh\\administrators_authorized_keys'");
    expect(script).to.match(
      /icacls\.exe \$keys \/inheritance:r \/grant 'Administrators:F' \/grant 'SYSTEM:F'/,
    );
    expect(read('vagrant/boxes/windows/autounattend.xml')).to.match(
      /<Group>Administrators<\/Group>/,
    );
  });

  it('strict-mode scripts read only properties every HNS object has', () => {
    const always = new Set(['Name', 'Id', 'Type']);
    let reads = 0;
    for (const name of ['external-route.ps1', 'common.ps1', 'import-images.ps1']) {
      const text = read(`vagrant/scripts/windows/${name}`);
      for (const [, property = ''] of text.matchAll(/Get-Hns\w+[^\n]*?\$_\.(\w+)/g)) {
        reads++;
        expect(always.has(property), `${name} reads ${property}`).to.equal(true);
      }
    }
    expect(reads).to.be.greaterThan(0);
    // A node.json key that may be absent is tested before it is read.
    expect(read('vagrant/scripts/windows/common.ps1')).to.include(
      '$Hl.HL_UPSTREAM.PSObject.Properties[$Rel]',
    );
  });

  it("the kubelet wrapper overrides what the Windows kubelet refuses in kubeadm's Linux configuration", () => {
    const wrapper = /\$wrapper = @"\n([\s\S]*?)\n"@/.exec(
      read('vagrant/scripts/windows/install-kubernetes.ps1'),
    )![1]!;
    const kubeadmArgs = wrapper.indexOf('@kubeadmArgs');
    for (const flag of ["'--cgroups-per-qos=false'", "'--enforce-node-allocatable='"]) {
      expect(wrapper, flag).to.include(flag);
      expect(wrapper.indexOf(flag), `${flag} after kubeadm's flags`).to.be.greaterThan(kubeadmArgs);
    }
  });

  it('every HostProcess container starts powershell.exe by name and nothing else', () => {
    const hostProcess = windowsContainers().filter((c) =>
      /hostprocess|host-netexec|node-shell/.test(c.origin),
    );
    expect(hostProcess.length).to.be.greaterThanOrEqual(4);
    for (const { origin, argv } of hostProcess)
      expect(argv[0]!.toLowerCase(), origin).to.equal('powershell.exe');
  });

  it("flanneld's kubeconfig names the service account token's file, not its text", () => {
    const { script } = rendered('flannel-hostprocess.yaml');
    expect(script).to.match(/user: \{tokenFile: '\$\(\$tokenFile -replace/);
    expect(script).to.not.match(/user: \{token:/);
    expect(script).to.not.match(/Get-Content[^\n]*serviceaccount\\token/);
  });

  it('a script that needs a restart exits 3010, the code the step runner reboots on', () => {
    expect(REBOOT_REQUIRED).to.equal(3010);
    for (const path of [
      'vagrant/scripts/windows/install-containers-feature.ps1',
      'vagrant/scripts/windows/set-hostname.ps1',
    ]) {
      const codes = [...read(path).matchAll(/\bexit (\d+)/g)].map((m) => Number(m[1]));
      expect(codes, path).to.include(REBOOT_REQUIRED);
      expect(
        codes.filter((c) => c !== 0 && c !== REBOOT_REQUIRED),
        path,
      ).to.deep.equal([]);
    }
  });

  it('set-hostname.ps1 reads the active and the pending name, and asks for a restart until the new one is active', () => {
    const script = read('vagrant/scripts/windows/set-hostname.ps1');
    const at = (pattern: RegExp) => {
      const found = pattern.exec(script);
      expect(found, String(pattern)).to.not.equal(null);
      return found!.index;
    };
    expect(script).to.match(/Control\\ComputerName'/);
    expect(script).to.match(/\$key\\ActiveComputerName/);
    // -eq ignores case, as NetBIOS names compare; -ceq would not.
    expect(script).to.not.match(/-ceq/);
    const active = at(/if \(\$active -eq \$name\) \{[^}]*exit 0/);
    const pending = at(/if \(\$pending -eq \$name\) \{[^}]*exit 3010/);
    const rename = at(/Rename-Computer -NewName \$name[\s\S]*exit 3010\s*$/);
    expect(active).to.be.below(pending);
    expect(pending).to.be.below(rename);
  });

  it('import-images.ps1 imports for the host platform only and reports the images it added', () => {
    const script = read('vagrant/scripts/windows/import-images.ps1');
    expect(script).to.match(/images import \$path/);
    expect(script).to.not.match(/--all-platforms|--platform/);
    // What the archives hold is the Windows platform's image alone (the cache exports it so).
    for (const image of artifactsFor('windows', versions).filter((a) => a.kind === 'image'))
      expect(image.from, image.what).to.match(/images export --platform windows\/amd64 /);
    expect(script).to.match(/images list -q[\s\S]*images import[\s\S]*images list -q/);
  });
});
