import { expect } from 'chai';
import { readCommands, type ScriptCommands } from './powershell-commands.ts';
import { powerShellParser, type PsParse } from './powershell-parser.ts';

describe('reading the commands of a PowerShell script', function () {
  let parse: PsParse;
  before(async () => {
    const loaded = await powerShellParser();
    // Both packages are devDependencies: a missing parser is a broken install, not a skip.
    if ('unavailable' in loaded) expect.fail(loaded.unavailable);
    parse = loaded;
  });

  const read = (text: string): ScriptCommands => readCommands(parse, text);
  const names = (text: string): string[] => read(text).uses.map((u) => u.target.name);

  it('finds every command of pipelines, script blocks, conditions, loops and sub-expressions', () => {
    const text = [
      'Get-A | Where-Object { Test-B $_ } | ForEach-Object { Get-C -X (Get-D) }',
      'if (Test-E) { Get-F } elseif (-not (Test-G)) { } else { Get-H }',
      'while (-not (Get-I | Where-Object Name -eq $n)) { Start-J -Seconds 5 }',
      'foreach ($x in Get-K) { try { Get-L } catch { Get-M } finally { Get-N } }',
      '$value = Get-O; $table = @{ a = (Get-P); b = @(Get-Q) }',
      'Write-R "text $(Get-S) and $($x.Y)"',
      'switch (Get-T) { a { Get-U } }',
      'Get-V `',
      '  -Flag @splat',
    ].join('\n');
    expect(names(text)).to.deep.equal(
      'a where-object test-b foreach-object get-c get-d test-e get-f test-g get-h get-i where-object start-j get-k get-l get-m get-n get-o get-p get-q write-r get-s get-t get-u get-v'
        .split(' ')
        .map((n) => (n.includes('-') ? n : `get-${n}`)),
    );
    expect(read(text).problems).to.deep.equal([]);
  });

  it('ignores comments and strings that are data', () => {
    const text = [
      '# New-HnsEndpoint in a comment',
      '<# Attach-HnsHostEndpoint',
      '   in a block comment #>',
      'Write-Host \'New-HnsEndpoint\' "Attach-HnsHostEndpoint"',
      '$yaml = @"',
      'kind: Config',
      'Get-NotCode: $($Hl.X)',
      '"@',
      "$raw = @'",
      'Get-AlsoNotCode',
      "'@",
      '$yaml | Set-Content C:\\k\\config.yaml',
    ].join('\n');
    expect(names(text)).to.deep.equal(['write-host', 'set-content']);
    expect(read(text).embedded).to.deep.equal([]);
  });

  it('resolves & and . calls: literal paths, bare names, assigned variables, Join-Path', () => {
    const text = [
      '. "$PSScriptRoot\\common.ps1"',
      '& C:\\opt\\cni\\bin\\host-local.exe',
      "& 'C:\\k\\kubeadm.exe' version",
      "$k = 'C:\\k'",
      '& "$k\\kubelet.exe" --version',
      "$ctr = 'C:\\Program Files\\containerd\\ctr.exe'",
      '& $ctr images list',
      "$exe = Join-Path $dir 'containerd.exe'",
      '& $exe --version',
      'tar.exe -xzf $archive',
      'C:\\k\\kubectl.exe get nodes',
    ].join('\n');
    const uses = read(text).uses.map((u) => ({
      ...(u.operator ? { op: u.operator } : {}),
      ...u.target,
    }));
    expect(uses).to.deep.equal([
      { op: '.', name: 'common.ps1' },
      { op: '&', name: 'host-local.exe', path: 'c:\\opt\\cni\\bin\\host-local.exe' },
      { op: '&', name: 'kubeadm.exe', path: 'c:\\k\\kubeadm.exe' },
      { op: '&', name: 'kubelet.exe', path: 'c:\\k\\kubelet.exe' },
      { op: '&', name: 'ctr.exe', path: 'c:\\program files\\containerd\\ctr.exe' },
      { name: 'join-path' },
      // The folder is only known at run time: the file name is what is checked.
      { op: '&', name: 'containerd.exe' },
      { name: 'tar.exe' },
      { name: 'kubectl.exe', path: 'c:\\k\\kubectl.exe' },
    ]);
  });

  it('reports a call it cannot resolve instead of dropping it', () => {
    const problems = read(
      ['& $unassigned', '& (Get-Command foo)', 'foreach ($tool in $tools) { & $tool }'].join('\n'),
    ).problems;
    expect(problems).to.have.length(3);
    expect(problems[0]).to.match(/^1:1: cannot tell which command `\$unassigned` runs/);
  });

  it('reports code built from strings, and syntax errors (a tree with errors may hide commands)', () => {
    expect(read("powershell.exe -NoProfile -Command 'New-HnsEndpoint'").problems[0]).to.match(
      /runs PowerShell code from a string/,
    );
    expect(read('$b = [scriptblock]::Create($text)').problems[0]).to.match(
      /\[scriptblock\]::Create/,
    );
    expect(read('function f( {\n Get-X\n').problems).to.not.deep.equal([]);
  });

  it('reads a here-string written to a .ps1 file as a script of its own, escapes undone', () => {
    const text = [
      '# café: offsets are characters, not bytes',
      '$wrapper = @"',
      "`$flags = Get-Content -Raw 'C:\\flags.env'",
      "& 'C:\\k\\kubelet.exe' @flags ``",
      "  '--hostname-override=$($Hl.HL_NODE_NAME)'",
      '"@',
      'Set-HlFile "$k\\StartKubelet.ps1" $wrapper | Out-Null',
    ].join('\n');
    const result = read(text);
    expect(result.uses.map((u) => u.target.name)).to.deep.equal(['set-hlfile', 'out-null']);
    expect(result.embedded).to.have.length(1);
    const code = result.embedded[0]!;
    expect(code.writtenTo).to.equal('$k\\StartKubelet.ps1');
    expect(code.commands.problems).to.deep.equal([]);
    expect(code.commands.uses.map((u) => [u.target.name, u.at.split(':')[0]])).to.deep.equal([
      ['get-content', '3'],
      ['kubelet.exe', '4'],
    ]);
  });

  it('lists the functions a script defines', () => {
    const text = 'function Write-HlOk([string]$What) { Write-Host $What }\nfilter Get-Even { $_ }';
    expect(read(text).functions).to.deep.equal(['write-hlok', 'get-even']);
  });
});
