/**
 * Checks derived from the facts catalogue on the Windows node scripts and the box: the session
 * environment over OpenSSH, the box's buses, the HNS network's lifecycle, a containerd pin on a
 * joined node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../testing/windows-scripts.ts';

const script = (name: string) =>
  readFileSync(join(REPO_ROOT, 'vagrant/scripts/windows', name), 'utf8');
const box = (name: string) => readFileSync(join(REPO_ROOT, 'vagrant/boxes/windows', name), 'utf8');

/** Where `pattern` first matches in `text`, failing the test when it does not. */
function at(text: string, pattern: RegExp, what: string): number {
  const index = text.search(pattern);
  expect(index, what).to.be.greaterThanOrEqual(0);
  return index;
}

/** The body of the first `while (…) { … }` loop of a script (braces balanced). */
function whileBody(text: string): string {
  const start = at(text, /\nwhile \(/, 'a while loop');
  const open = text.indexOf('{', text.indexOf(')', start));
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return text.slice(open, i + 1);
  }
  throw new Error('unbalanced while loop');
}

describe('Windows node scripts and box (facts catalogue)', () => {
  it('kubeadm-join.ps1 takes the Machine PATH, where install-kubernetes.ps1 put C:\\k, before kubeadm runs kubelet by name', () => {
    expect(script('install-kubernetes.ps1')).to.match(/\$k = 'C:\\k'[\s\S]*Add-HlMachinePath \$k/);
    const common = script('common.ps1');
    const update = /function Update-HlSessionPath \{[\s\S]*?\n\}/.exec(common)?.[0] ?? '';
    expect(update, 'common.ps1 Update-HlSessionPath').to.match(
      /\$env:Path = [\s\S]*GetEnvironmentVariable\('Path', \$_\)/,
    );
    expect(update).to.include("'Machine'");
    const join = script('kubeadm-join.ps1');
    const refreshed = at(join, /^Update-HlSessionPath$/m, 'kubeadm-join.ps1 refreshes its PATH');
    const checked = at(join, /Get-Command kubelet\.exe/, 'and finds kubelet.exe on it');
    const joined = at(join, /kubeadm\.exe' join/, 'kubeadm join');
    expect(refreshed).to.be.lessThan(checked);
    expect(checked).to.be.lessThan(joined);
  });

  it('the Windows box boots on the disk bus and NIC it was installed on: one devices.json for Packer and the Vagrantfile', () => {
    const devices = JSON.parse(box('devices.json')) as Record<string, string>;
    const template = JSON.parse(box('windows-2022.json')) as {
      variables: Record<string, unknown>;
      builders: Record<string, unknown>[];
    };
    for (const key of ['disk_interface', 'net_device']) {
      expect(template.builders[0]![key], `Packer's ${key}`).to.equal(`{{user \`${key}\`}}`);
      // null: Packer refuses to build unless a value is given (build.sh gives devices.json).
      expect(template.variables[key], `Packer variable ${key}`).to.equal(null);
    }
    expect(box('build.sh')).to.match(/packer build -var-file=devices\.json /);
    // Values both Packer 1.6.6's qemu builder (no sata) and libvirt's disk bus take.
    expect(devices.disk_interface).to.be.oneOf(['ide', 'scsi', 'virtio']);
    const vagrantfile = readFileSync(join(REPO_ROOT, 'vagrant/Vagrantfile'), 'utf8');
    expect(vagrantfile).to.match(
      /WINDOWS_BOX_DEVICES = JSON\.parse\(File\.read\(File\.join\(__dir__, 'boxes', 'windows', 'devices\.json'\)\)\)/,
    );
    expect(vagrantfile).to.include("lv.disk_bus = WINDOWS_BOX_DEVICES['disk_interface']");
    expect(vagrantfile).to.include("lv.nic_model_type = WINDOWS_BOX_DEVICES['net_device']");
    expect(vagrantfile, 'no bus named in the Vagrantfile itself').to.not.match(
      /disk_bus = '|nic_model_type = '/,
    );
  });

  it("external-route.ps1 looks for the node address inside its deadline loop, as flannel waits for its vNIC's address", () => {
    const text = script('external-route.ps1');
    const loop = whileBody(text);
    expect(loop).to.match(/Get-HnsNetwork/);
    expect(loop).to.match(/Get-NetIPAddress [^\n]*-IPAddress \$Hl\.HL_NODE_IP/);
    expect(loop).to.match(/\$deadline/);
    const after = text.slice(text.indexOf(loop) + loop.length);
    expect(after, 'no lookup outside the loop').to.not.match(/Get-NetIPAddress/);
  });

  it("external-route.ps1 keeps its route in the active store and runs again at startup: flannel's HNS network is not persistent", () => {
    const text = script('external-route.ps1');
    expect(text).to.match(/New-ScheduledTaskTrigger -AtStartup/);
    expect(text).to.match(/-File `"\$PSCommandPath`"/);
    expect(text).to.match(/Register-ScheduledTask -TaskName \$task/);
    for (const call of text.match(/New-NetRoute [^\n]*/g) ?? [])
      expect(call).to.include('-PolicyStore ActiveStore');
    expect(text, 'routes an earlier run persisted are removed').to.match(
      /Get-NetRoute -DestinationPrefix \$prefix -PolicyStore PersistentStore/,
    );
  });

  it('install-containerd.ps1 refuses another containerd pin on a joined node before it touches the running containerd', () => {
    const text = script('install-containerd.ps1');
    const refused = at(
      text,
      /if \(\$have -ne '' -and \$have -ne \$want -and \(Test-Path 'C:\\etc\\kubernetes\\kubelet\.conf'\)\) \{\s*Stop-Hl /,
      'a refusal on a joined node',
    );
    expect(refused).to.be.lessThan(at(text, /Stop-Service containerd/, 'the stop'));
    expect(refused).to.be.lessThan(at(text, /tar\.exe -xzf \$archive -C \$dir/, 'the unpack'));
    expect(text).to.match(/lab down, then lab up/);
  });
});
