import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { powerShellParser, type PsParse } from './powershell-parser.ts';
import { checkCommands, type CommandCatalogue } from './windows-command-check.ts';

const catalogue: CommandCatalogue = {
  builtins: [
    { name: 'Get-Content', module: 'Microsoft.PowerShell.Management', doc: 'https://example/gc' },
    { name: 'Set-Content', module: 'Microsoft.PowerShell.Management', doc: 'https://example/sc' },
    { name: 'tar.exe', module: 'executable', doc: 'https://example/tar' },
    {
      name: 'vfpctrl.exe',
      module: 'executable',
      doc: 'https://example/sdn-troubleshooting',
      forms: ['vfpctrl /list-vmswitch-port', 'vfpctrl /port <port name> /get-port-state'],
    },
  ],
  installed: [
    {
      name: 'kube-proxy.exe',
      paths: ['C:\\k\\kube-proxy\\kube-proxy.exe'],
      installedBy: 'install.ps1',
      from: 'HL_ARTIFACT_KUBE_PROXY',
    },
  ],
  images: [{ name: 'agnhost.exe', image: 'agnhost', doc: 'https://example/hostprocess' }],
  aliases: { '%': 'ForEach-Object' },
};

describe('judging the commands of Windows scripts', function () {
  let parse: PsParse;
  let root: string;
  before(async () => {
    const loaded = await powerShellParser();
    if ('unavailable' in loaded) expect.fail(loaded.unavailable);
    parse = loaded;
    root = mkdtempSync(join(tmpdir(), 'hl-ps-check-'));
    mkdirSync(join(root, 'scripts'));
    writeFileSync(
      join(root, 'scripts', 'common.ps1'),
      'function Write-HlOk($x) { Get-Content $x }\n',
    );
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const check = (text: string, dir: string | undefined = 'scripts') =>
    checkCommands(parse, [{ origin: 'x.ps1', text, ...(dir ? { dir } : {}) }], catalogue, root);

  it('accepts built-ins, installed programs at their path, and functions of a dot-sourced sibling', () => {
    const verdict = check(
      [
        '. "$PSScriptRoot\\common.ps1"',
        'Write-HlOk (Get-Content a.txt)',
        'tar.exe -xf a.tgz',
        "& C:\\k\\kube-proxy\\kube-proxy.exe '--v=2'",
        'function Local-Thing { }',
        'Local-Thing',
      ].join('\n'),
    );
    expect(verdict.findings).to.deep.equal([]);
    expect([...verdict.used].sort()).to.deep.equal(['get-content', 'kube-proxy.exe', 'tar.exe']);
  });

  it('names the unknown command, the alias, the wrong install path and the missing script', () => {
    const findings = check(
      [
        'New-HnsEndpoint -NetworkId $id',
        '$a | % { $_ }',
        '& C:\\other\\kube-proxy.exe',
        '. "$PSScriptRoot\\missing.ps1"',
      ].join('\n'),
    ).findings;
    expect(findings).to.have.length(4);
    expect(findings[0]).to.match(
      /^x\.ps1:1:1: `New-HnsEndpoint` is not on the list of Windows Server 2022 built-ins/,
    );
    expect(findings[1]).to.match(/^x\.ps1:2:6: `%` is an alias of ForEach-Object/);
    expect(findings[2]).to.match(/is not where install\.ps1 puts kube-proxy\.exe/);
    expect(findings[3]).to.match(/runs a script that is not in the project/);
  });

  it('holds a tool documented only by a troubleshooting page to the forms the page shows', () => {
    const verdict = check(
      [
        'vfpctrl.exe /list-vmswitch-port',
        'vfpctrl.exe /PORT $port /get-port-state',
        'vfpctrl.exe /port $port /list-rule',
        'vfpctrl.exe /list-vmswitch-port /format 1',
      ].join('\n'),
    );
    expect(verdict.findings).to.deep.equal([
      'x.ps1:3:1: `vfpctrl.exe /port $port /list-rule` is not a form Microsoft shows for it (https://example/sdn-troubleshooting): vfpctrl /list-vmswitch-port; vfpctrl /port <port name> /get-port-state',
      'x.ps1:4:1: `vfpctrl.exe /list-vmswitch-port /format 1` is not a form Microsoft shows for it (https://example/sdn-troubleshooting): vfpctrl /list-vmswitch-port; vfpctrl /port <port name> /get-port-state',
    ]);
  });

  it("accepts an image's program only from a HostProcess container's sandbox folder", () => {
    const findings = (text: string) => check(text).findings;
    expect(findings('& "$env:CONTAINER_SANDBOX_MOUNT_POINT\\agnhost.exe" netexec')).to.deep.equal(
      [],
    );
    expect(findings('& C:\\agnhost.exe netexec')[0]).to.match(
      /runs agnhost\.exe of agnhost: a HostProcess container finds it under \$env:CONTAINER_SANDBOX_MOUNT_POINT/,
    );
  });

  it('checks code written to a .ps1 file on its own, without the functions of the script writing it', () => {
    const findings = check(
      [
        '. "$PSScriptRoot\\common.ps1"',
        "$code = @'",
        'Write-HlOk hello',
        "'@",
        'Set-Content C:\\k\\run.ps1 $code',
      ].join('\n'),
    ).findings;
    expect(findings).to.have.length(1);
    expect(findings[0]).to.match(
      /^x\.ps1 \(code written to C:\\k\\run\.ps1\):3:1: `Write-HlOk` is not/,
    );
  });

  it('counts syntax errors as findings: a broken tree may hide commands', () => {
    expect(check('Get-Content a, b -X Y\nNew-Thing').findings).to.not.deep.equal([]);
  });
});
