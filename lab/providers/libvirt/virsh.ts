/** virsh on one hypervisor URI, through the command runner, and the vagrant/bin wrappers. */
import type { CommandRunner, RunOptions, RunResult } from '../../exec/command-runner.ts';
import { parseCidr, type Cidr } from '../../net/ipv4.ts';
import { binScript } from './repo-paths.ts';

/** One resource a lab owns on a URI, as hl-lab-resources.sh prints it. */
export interface LabResource {
  kind: 'domain' | 'network' | 'volume';
  name: string;
  labId: string;
  /** Storage pool of a volume. */
  pool?: string;
}

const VIRSH_TIMEOUT_MS = 60_000;

export class Virsh {
  constructor(
    private readonly runner: CommandRunner,
    readonly uri: string,
  ) {}

  run(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    return this.runner.run('virsh', ['-q', '-c', this.uri, ...args], {
      timeoutMs: VIRSH_TIMEOUT_MS,
      ...options,
    });
  }

  /** Every network with the IPv4 subnets it holds. */
  async networks(): Promise<{ name: string; subnets: Cidr[] }[]> {
    const names = lines((await this.run(['net-list', '--all', '--name'])).stdout);
    return Promise.all(
      names.map(async (name) => ({
        name,
        subnets: parseNetworkSubnets((await this.run(['net-dumpxml', name])).stdout),
      })),
    );
  }

  /** The host's UUID: two URIs reaching the same libvirtd report the same one. */
  async hostUuid(): Promise<string> {
    const xml = (await this.run(['capabilities'])).stdout;
    return /<host>\s*<uuid>([^<]+)<\/uuid>/.exec(xml)?.[1] ?? this.uri;
  }

  /** Defines and starts a network from its XML (written to `file` first). */
  async createNetwork(name: string, file: string): Promise<void> {
    await this.run(['net-define', file]);
    await this.run(['net-start', name]);
  }

  /** Domain state as virsh prints it ("running", "shut off"), or undefined when there is none. */
  async domainState(name: string): Promise<string | undefined> {
    const result = await this.run(['domstate', name], { check: false });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  /** What the lab (or, with --all, every hybrid-lab lab) owns on this URI. */
  async labResources(labId: string): Promise<LabResource[]> {
    const result = await this.runner.run(
      'bash',
      [binScript('hl-lab-resources.sh'), this.uri, labId],
      { timeoutMs: VIRSH_TIMEOUT_MS * 2 },
    );
    return parseLabResources(result.stdout);
  }

  /** Removes everything the lab owns here; returns "removed <kind> <name>" lines. */
  async destroyOrphans(labId: string): Promise<string[]> {
    const result = await this.runner.run(
      'bash',
      [binScript('hl-destroy-orphans.sh'), this.uri, labId],
      { timeoutMs: VIRSH_TIMEOUT_MS * 5 },
    );
    return lines(result.stdout).map((line) => `${line} on ${this.uri}`);
  }
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** `<ip address= netmask=|prefix=>` entries of a network's XML, as subnets. */
export function parseNetworkSubnets(xml: string): Cidr[] {
  const subnets: Cidr[] = [];
  for (const match of xml.matchAll(/<ip\b([^>]*)>/g)) {
    const attrs = match[1] ?? '';
    const address = /address=['"]([\d.]+)['"]/.exec(attrs)?.[1];
    if (address === undefined) continue;
    const netmask = /netmask=['"]([\d.]+)['"]/.exec(attrs)?.[1];
    const prefix =
      /prefix=['"](\d+)['"]/.exec(attrs)?.[1] ??
      (netmask === undefined ? undefined : String(maskBits(netmask)));
    const cidr = parseCidr(`${address}/${prefix ?? '24'}`);
    if (cidr !== undefined) subnets.push(cidr);
  }
  return subnets;
}

function maskBits(netmask: string): number {
  return netmask
    .split('.')
    .map(Number)
    .reduce((bits, octet) => bits + octet.toString(2).replace(/0/g, '').length, 0);
}

export function parseLabResources(text: string): LabResource[] {
  return lines(text).flatMap((line): LabResource[] => {
    const [kind, a, b, c] = line.split(/\s+/);
    if ((kind === 'domain' || kind === 'network') && a !== undefined && b !== undefined)
      return [{ kind, name: a, labId: b }];
    if (kind === 'volume' && a !== undefined && b !== undefined && c !== undefined)
      return [{ kind, pool: a, name: b, labId: c }];
    return [];
  });
}
