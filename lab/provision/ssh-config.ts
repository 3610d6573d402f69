/** Turns `vagrant ssh-config` output into provisioning targets for the plan's nodes. */
import type { LabPlan } from '../plan/lab-plan.ts';
import { ProvisionError } from './provision-error.ts';
import type { ProvisionTarget } from './ssh-node-shell.ts';

interface HostBlock {
  alias: string;
  options: Map<string, string>;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1)
    : value;
}

function parseBlocks(text: string): HostBlock[] {
  const blocks: HostBlock[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+)\s+(.+)$/.exec(line);
    if (match === null) continue;
    const key = match[1]!.toLowerCase();
    const value = unquote(match[2]!.trim());
    if (key === 'host') blocks.push({ alias: value, options: new Map() });
    else blocks.at(-1)?.options.set(key, value);
  }
  return blocks;
}

/**
 * One target per node of the plan, from the concatenated `vagrant ssh-config` of every
 * Vagrant project. `nodeOf` maps a Host alias to a node name (default: the alias itself).
 */
export function targetsFromSshConfig(
  text: string,
  plan: LabPlan,
  nodeOf: (alias: string) => string = (alias) => alias,
): ProvisionTarget[] {
  const byNode = new Map(parseBlocks(text).map((b) => [nodeOf(b.alias), b]));
  return plan.nodes.map((node) => {
    const block = byNode.get(node.name);
    const host = block?.options.get('hostname');
    const identityFile = block?.options.get('identityfile');
    const proxy = block?.options.get('proxycommand');
    if (block === undefined || host === undefined || identityFile === undefined) {
      throw new ProvisionError(
        `no SSH target: vagrant ssh-config has ${block === undefined ? 'no Host entry' : 'no HostName/IdentityFile'} for this node`,
        {
          node: node.name,
          step: 'connect',
          hint: 'is the VM up? `vagrant status` in its project folder',
        },
      );
    }
    return {
      node: node.name,
      host,
      port: Number(block.options.get('port') ?? '22'),
      user: block.options.get('user') ?? 'vagrant',
      identityFile,
      ...(proxy === undefined ? {} : { proxyCommand: proxy }),
    };
  });
}
