/**
 * ssh_config text: `vagrant ssh-config` parsed into hosts, and the lab's own ssh_config rendered
 * from them (one Host per node, all connections sharing a master per node; see ssh-masters.ts).
 */
import { join } from 'node:path';
import type { SshTarget } from './ssh-node-shell.ts';

export interface SshHost {
  /** The Host alias (the Vagrant machine name). */
  name: string;
  /** `Key value` lines as they were written. */
  lines: string[];
  /** The same options by lower-cased key, values unquoted; the first occurrence wins, as in ssh. */
  options: ReadonlyMap<string, string>;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1)
    : value;
}

/** Splits ssh_config text (e.g. `vagrant ssh-config` output) into hosts. */
export function parseSshConfig(text: string): SshHost[] {
  const hosts: { name: string; lines: string[]; options: Map<string, string> }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+)\s+(.+)$/.exec(line);
    if (match === null) continue;
    const key = match[1]!.toLowerCase();
    const value = unquote(match[2]!.trim());
    if (key === 'host') {
      hosts.push({ name: value, lines: [], options: new Map() });
      continue;
    }
    const host = hosts.at(-1);
    if (host === undefined) continue;
    host.lines.push(line);
    if (!host.options.has(key)) host.options.set(key, value);
  }
  return hosts;
}

/** The connection a host entry describes, or undefined when it lacks HostName or IdentityFile. */
export function sshTarget(host: SshHost, node: string = host.name): SshTarget | undefined {
  const address = host.options.get('hostname');
  const identityFile = host.options.get('identityfile');
  if (address === undefined || identityFile === undefined) return undefined;
  const proxy = host.options.get('proxycommand');
  return {
    node,
    host: address,
    port: Number(host.options.get('port') ?? '22'),
    user: host.options.get('user') ?? 'vagrant',
    identityFile,
    ...(proxy === undefined ? {} : { proxyCommand: proxy }),
  };
}

/** The control socket of a node's master connection. */
export function controlPath(dir: string, node: string): string {
  return join(dir, `ssh-${node}.sock`);
}

/** The lab's ssh_config: the hosts' options plus the shared master and no prompts. */
export function renderSshConfig(hosts: readonly SshHost[], dir: string): string {
  return hosts
    .map((host) =>
      [
        `Host ${host.name}`,
        // vagrant says LogLevel FATAL; a failed connection must say why.
        ...host.lines.filter((o) => !/^LogLevel\s/i.test(o)).map((o) => `  ${o}`),
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
