/**
 * Evidence for one failing flow on a Windows node (real ones, over the lab's node shell or a node
 * shell pod): HNS's view (networks, endpoints, load-balancer policy lists as JSON; hnsdiag's
 * detailed listing), VFP's ports and, for the flow's endpoints' ports, their state, rules and
 * counters, routes and neighbours, and a pktmon capture of the flow's addresses during one retry
 * of the probe, whose first drop line says where the packet died there. The commands are
 * windows-path-evidence.ps1's: each call sends only the functions it needs, without comments, so
 * the command line stays within what a HostProcess exec can take (the facts catalogue's
 * `hostprocess-exec-command-line`).
 */
import { readFileSync } from 'node:fs';
import { isIpv4 } from '../net/ipv4.ts';
import type { NodeShell } from '../remote/node-shell.ts';
import { cap, type PathEvidence } from './path-evidence.ts';

const SCRIPT = readFileSync(new URL('windows-path-evidence.ps1', import.meta.url), 'utf8');
const SECTION = /^==hl-evidence== (\S+)\r?$/;
/** How long each PowerShell call may take (pktmon's conversion of a capture included). */
const CALL_MS = 60_000;
/** pktmon takes at most 32 filters at once, one per address (Learn, pktmon filter add). */
export const MAX_CAPTURE_ADDRESSES = 32;

/** The script's code lines, comments and indentation left out: its settings, then each function. */
function scriptParts(text: string): { settings: string[]; functions: Map<string, string[]> } {
  const settings: string[] = [];
  const functions = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const start = /^function ([\w-]+)/.exec(line);
    if (start !== null) functions.set(start[1]!, (current = []));
    (current ?? settings).push(line);
    // A function ends with the closing brace at the start of a line of the file.
    if (raw.startsWith('}')) current = undefined;
  }
  return { settings, functions };
}

const PARTS = scriptParts(SCRIPT);

/** The functions `code` calls, and those they call in turn, in the script's order. */
function functionsFor(code: string): string[] {
  const wanted = new Set<string>();
  const visit = (text: string) => {
    for (const name of PARTS.functions.keys()) {
      if (wanted.has(name) || !new RegExp(`\\b${name}\\b`).test(text)) continue;
      wanted.add(name);
      visit(PARTS.functions.get(name)!.join('\n'));
    }
  };
  visit(code);
  return [...PARTS.functions.keys()].filter((n) => wanted.has(n));
}

export interface WindowsEvidence {
  /** `dropped on NODE (pktmon): …` when the capture shows a drop there. */
  drop?: string;
  /** File name → text. */
  files: Record<string, string>;
}

/**
 * The argv that runs `call` with the script's settings and the functions it needs, encoded as
 * PowerShell expects.
 */
export function evidenceCommand(call: string): string[] {
  const code = [
    ...PARTS.settings,
    ...functionsFor(call).flatMap((name) => PARTS.functions.get(name)!),
    call,
  ];
  const encoded = Buffer.from(`${code.join('\n')}\n`, 'utf16le').toString('base64');
  return ['powershell.exe', '-NoProfile', '-NonInteractive', '-EncodedCommand', encoded];
}

/** Captures the flow's packets on `shell`'s node around `retry`, then reads the node's HNS view. */
export async function collectWindowsEvidence(
  shell: NodeShell,
  addresses: readonly string[],
  retry: () => Promise<unknown>,
): Promise<WindowsEvidence> {
  const ips = addresses.filter(isIpv4).slice(0, MAX_CAPTURE_ADDRESSES);
  const list = ips.map((a) => `'${a}'`).join(',');
  const started = await shell.exec(evidenceCommand(`Start-HlCapture -Addresses @(${list})`), {
    check: false,
    timeoutMs: CALL_MS,
  });
  await retry().catch(() => undefined);
  const read = await shell.exec(
    evidenceCommand(`Stop-HlCapture; Write-HlNodeView -Addresses @(${list})`),
    {
      check: false,
      timeoutMs: CALL_MS,
    },
  );
  const files = sections(read.stdout);
  if (started.exitCode !== 0 || read.exitCode !== 0) {
    files['errors.txt'] = [
      `start capture: exit ${started.exitCode} ${started.stderr.trim()}`,
      `stop and read: exit ${read.exitCode} ${read.stderr.trim()}`,
    ].join('\n');
  }
  const dropLine = (files['pktmon.txt'] ?? '').split('\n').find((l) => /\bdrop/i.test(l));
  return {
    ...(dropLine === undefined
      ? {}
      : { drop: `dropped on ${shell.node} (pktmon): ${dropLine.trim()}` }),
    files,
  };
}

/** The script's output split at its `==hl-evidence== FILE` lines, each part capped. */
export function sections(stdout: string): Record<string, string> {
  const files = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of stdout.split('\n')) {
    const start = SECTION.exec(line);
    if (start !== null) {
      current = [];
      files.set(start[1]!, current);
    } else {
      current?.push(line.replace(/\r$/, ''));
    }
  }
  return Object.fromEntries(
    [...files].map(([name, lines]) => [name, cap(lines.map((l) => `${l}\n`).join(''))]),
  );
}

/**
 * One cell's evidence from its Linux nodes' trace (when it has Linux nodes) and its Windows nodes'
 * captures: the first line names a Linux node's drop, else a Windows one, else what the trace saw.
 */
export function withWindowsEvidence(
  traced: PathEvidence | undefined,
  captures: readonly (WindowsEvidence & { node: string })[],
): PathEvidence {
  const windowsDrop = captures.find((c) => c.drop !== undefined)?.drop;
  const linuxDied = traced?.diedAt;
  const diedAt =
    linuxDied?.startsWith('dropped on ') === true
      ? linuxDied
      : (windowsDrop ??
        linuxDied ??
        `no drop in the pktmon capture on ${captures.map((c) => c.node).join(', ')}`);
  const windowsLines = captures.map(
    (c) => `== ${c.node} (Windows, pktmon): ${c.drop ?? 'no drop of the flow captured'}`,
  );
  return {
    diedAt,
    path: cap(
      [diedAt, ...(traced?.path.split('\n').slice(1) ?? []), ...windowsLines, ''].join('\n'),
    ),
    nodes: [...(traced?.nodes ?? []), ...captures.map((c) => ({ node: c.node, files: c.files }))],
  };
}
