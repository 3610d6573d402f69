/**
 * The lab's ssh client config: `vagrant ssh-config` of every project, one Host per node, all
 * connections sharing a master per node (the harness starts them; see ssh-masters.ts).
 */
import { join } from 'node:path';

export interface SshHost {
  /** The node name (Vagrant machine name). */
  name: string;
  /** `Key value` lines as vagrant printed them. */
  options: string[];
}

/** Splits `vagrant ssh-config` output into hosts. */
export function parseSshConfig(text: string): SshHost[] {
  const hosts: SshHost[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const host = /^Host\s+(\S+)$/.exec(line);
    if (host !== null) hosts.push({ name: host[1]!, options: [] });
    else hosts.at(-1)?.options.push(line);
  }
  return hosts;
}

/** The control socket of a node's master connection. */
export function controlPath(dir: string, node: string): string {
  return join(dir, `ssh-${node}.sock`);
}

/** The lab's ssh_config: vagrant's options plus the shared master and no prompts. */
export function renderSshConfig(hosts: readonly SshHost[], dir: string): string {
  return hosts
    .map((host) =>
      [
        `Host ${host.name}`,
        // vagrant says LogLevel FATAL; a failed connection must say why.
        ...host.options.filter((o) => !/^LogLevel\s/i.test(o)).map((o) => `  ${o}`),
        '  LogLevel ERROR',
        `  ControlPath ${controlPath(dir, host.name)}`,
        '  ControlMaster no',
        '  BatchMode yes',
        '  ConnectTimeout 30',
        '  ServerAliveInterval 15',
        '  ServerAliveCountMax 8',
        '',
      ].join('\n'),
    )
    .join('\n');
}

/** Quotes one argument for the remote POSIX shell ssh hands the command line to. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
