/**
 * Writes each node's dataplane state (addresses, routes, NAT rules; HNS on Windows guests) into
 * OUT/<node>/network.txt, through the provider's NodeShell:
 *   tsx ci/tools/collect-node-state.ts --lab NAME --out DIR      ($LAB_HOME as for `lab`)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LabError } from '../../lab/errors.ts';
import { openLab } from '../../lab/lifecycle/open-lab.ts';
import type { NodeOs, PlannedNode } from '../../lab/plan/lab-plan.ts';
import type { NodeShell } from '../../lab/remote/node-shell.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { isMain, runMain } from './run-main.ts';

/** What is worth seeing of a node after a failed run, per guest OS. */
export const NODE_COMMANDS: Record<NodeOs, readonly (readonly string[])[]> = {
  linux: [['ip', '-d', 'address'], ['ip', 'route'], ['ip', 'neigh'], ['iptables-save']],
  windows: [
    ['ipconfig', '/all'],
    ['powershell', '-NoProfile', '-Command', 'Get-HnsNetwork | ConvertTo-Json -Depth 8'],
    ['powershell', '-NoProfile', '-Command', 'Get-HnsEndpoint | ConvertTo-Json -Depth 8'],
    ['route', 'print', '-4'],
  ],
};

const COMMAND_TIMEOUT_MS = 30_000;

/** Runs the node's commands; each one's output (or error) goes into the text, none stops the rest. */
export async function nodeState(node: PlannedNode, shell: NodeShell): Promise<string> {
  const parts: string[] = [];
  for (const argv of NODE_COMMANDS[node.guestOs]) {
    let text: string;
    try {
      const r = await shell.exec(argv, { check: false, timeoutMs: COMMAND_TIMEOUT_MS });
      text = `${r.stdout}${r.stderr}${r.exitCode === 0 ? '' : `(exit ${r.exitCode}${r.timedOut ? ', timed out' : ''})\n`}`;
    } catch (error) {
      text = `(failed: ${error instanceof Error ? error.message : String(error)})\n`;
    }
    parts.push(`$ ${argv.join(' ')}\n${text}`);
  }
  return parts.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { lab: { type: 'string' }, out: { type: 'string' } },
  });
  if (values.lab === undefined || values.out === undefined) {
    throw new LabError('usage: collect-node-state.ts --lab NAME --out DIR');
  }
  const store = new LabStore(resolve(process.env.LAB_HOME ?? '.lab'));
  const name = store.resolveName(values.lab);
  const { plan, lab } = await openLab(store, name, 'collect');
  for (const node of plan.nodes) {
    const dir = join(resolve(values.out), node.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'network.txt'), await nodeState(node, lab.nodeShell(node.name)));
    process.stdout.write(`collected ${node.name} (${node.guestOs})\n`);
  }
}

if (isMain(import.meta.url)) await runMain('collect-node-state', main);
