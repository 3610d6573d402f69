import { expect } from 'chai';
import { CommandError } from '../errors.ts';
import { exitCodeOverOpenSsh } from '../testing/openssh-powershell.ts';
import { RecordingRunner } from '../testing/recording-runner.ts';
import { commandLine, quoteArg } from './quote.ts';
import { parseSshConfig, renderSshConfig, sshTarget } from './ssh-config.ts';
import { SshNodeShell } from './ssh-node-shell.ts';

const VAGRANT = [
  'Host cp1',
  '  HostName 192.168.121.10',
  '  User vagrant',
  '  Port 22',
  '  LogLevel FATAL',
  '  IdentityFile "/root/.vagrant.d/insecure private key"',
  '',
  'Host lin1',
  '  HostName 192.168.122.11',
  "  ProxyCommand ssh '127.0.0.1' -p 2222 -l 'root' -W %h:%p",
].join('\n');

describe('remote: quoting', function () {
  it('leaves plain arguments alone and single-quotes the rest, per shell', function () {
    expect(quoteArg('plain-arg/1.2:3')).to.equal('plain-arg/1.2:3');
    expect(quoteArg("it's $HOME")).to.equal(`'it'\\''s $HOME'`);
    expect(quoteArg('C:\\k', 'powershell')).to.equal('C:\\k');
    expect(quoteArg('C:\\k', 'posix')).to.equal(`'C:\\k'`);
    expect(quoteArg("it's", 'powershell')).to.equal(`'it''s'`);
    expect(commandLine(['echo', 'a b', ''])).to.equal(`echo 'a b' ''`);
    // PowerShell reads an unquoted a,b as an array (two arguments) and @x as splatting.
    expect(quoteArg('a,b', 'powershell')).to.equal(`'a,b'`);
    expect(quoteArg('@args', 'powershell')).to.equal(`'@args'`);
  });

  it('refuses a double quote for a Windows node, whose Windows PowerShell passes it on unescaped', () => {
    expect(() => quoteArg('say "hi"', 'powershell')).to.throw(/double quote .* single quotes/);
    expect(quoteArg('say "hi"')).to.equal(`'say "hi"'`);
  });

  it("a Windows program's exit code survives OpenSSH's PowerShell DefaultShell (powershell -c)", function () {
    const script = [
      'powershell',
      '-NoProfile',
      '-File',
      'C:\\hybrid-lab\\scripts\\set-hostname.ps1',
    ];
    const line = commandLine(script, 'powershell');
    for (const exitCode of [0, 1, 3, 75, 3010])
      expect(exitCodeOverOpenSsh(line, { exitCode }), `exit ${exitCode}`).to.equal(exitCode);
    expect(exitCodeOverOpenSsh(line, 'not-found'), 'a program that is not there').to.equal(1);
    // A quoted path is a command only through the call operator.
    expect(
      commandLine(['C:\\Program Files\\containerd\\ctr.exe', 'version'], 'powershell'),
    ).to.equal(
      `$LASTEXITCODE = 1; & 'C:\\Program Files\\containerd\\ctr.exe' version; exit $LASTEXITCODE`,
    );
    // A cmdlet's success is all it reports, and -Command carries it as 0 or 1.
    expect(commandLine(['Restart-Computer', '-Force'], 'powershell')).to.equal(
      'Restart-Computer -Force',
    );
  });
});

describe('remote: ssh_config', function () {
  it('parses hosts with their lines and options, and renders the lab config with a master per node', function () {
    const hosts = parseSshConfig(VAGRANT);
    expect(hosts.map((h) => h.name)).to.deep.equal(['cp1', 'lin1']);
    expect(hosts[0]!.options.get('identityfile')).to.equal('/root/.vagrant.d/insecure private key');
    const text = renderSshConfig(hosts, '/lab/libvirt');
    expect(text).to.include('  ControlPath /lab/libvirt/ssh-cp1.sock');
    expect(text).to.include("  ProxyCommand ssh '127.0.0.1' -p 2222 -l 'root' -W %h:%p");
    expect(text).to.not.include('FATAL');
    expect(text).to.include('  LogLevel ERROR');
  });

  it('gives a target only for a host with an address and a key', function () {
    const [cp1, lin1] = parseSshConfig(VAGRANT);
    expect(sshTarget(cp1!)).to.deep.equal({
      node: 'cp1',
      host: '192.168.121.10',
      port: 22,
      user: 'vagrant',
      identityFile: '/root/.vagrant.d/insecure private key',
    });
    expect(sshTarget(lin1!)).to.equal(undefined);
  });
});

describe('remote: the SSH node shell', function () {
  it('over the lab ssh_config: one quoted line, as root through sudo on Linux', async function () {
    const runner = new RecordingRunner();
    const shell = new SshNodeShell('cp1', { configFile: '/lab/ssh_config', alias: 'cp1' }, runner, {
      flavour: 'posix',
      become: true,
    });
    await shell.exec(['sh', '-c', 'echo $1', 'x y']);
    expect(runner.calls[0]!.args).to.deep.equal([
      '-F',
      '/lab/ssh_config',
      'cp1',
      '--',
      "sudo -n -- sh -c 'echo $1' 'x y'",
    ]);
    expect(shell.interactiveArgv()).to.deep.equal(['ssh', '-F', '/lab/ssh_config', 'cp1']);
  });

  it('to an explicit target: its options, port and login; PowerShell quoting on Windows', async function () {
    const runner = new RecordingRunner();
    const target = {
      node: 'win1',
      host: '10.0.0.5',
      port: 2200,
      user: 'Administrator',
      identityFile: '/k/id',
    };
    const shell = new SshNodeShell('win1', { target }, runner, { flavour: 'powershell' });
    await shell.exec(['Write-Output', "it's", 'C:\\k']);
    await shell.upload(['/tmp/a'], 'C:\\stage');
    const [ssh, scp] = runner.calls;
    expect(ssh!.args).to.include('BatchMode=yes');
    expect(ssh!.args.slice(-5)).to.deep.equal([
      '-p',
      '2200',
      'Administrator@10.0.0.5',
      '--',
      `Write-Output 'it''s' C:\\k`,
    ]);
    expect(scp!.file).to.equal('scp');
    expect(scp!.args.slice(-2)).to.deep.equal(['/tmp/a', 'Administrator@10.0.0.5:C:/stage']);
  });

  it('names the node in a failed command', async function () {
    const runner = new RecordingRunner().on(/false/, { exitCode: 3, stderr: 'boom' });
    const shell = new SshNodeShell('lin1', { configFile: '/c', alias: 'lin1' }, runner, {
      flavour: 'posix',
    });
    const error = await shell.exec(['false']).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CommandError);
    expect((error as CommandError).node).to.equal('lin1');
    expect((error as Error).message).to.match(/^command on lin1 exited 3/);
  });
});
