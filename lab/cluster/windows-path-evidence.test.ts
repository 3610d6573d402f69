import { expect } from 'chai';
import type { RunResult } from '../exec/command-runner.ts';
import type { NodeShell } from '../remote/node-shell.ts';
import { HOSTPROCESS_EXEC_LINE_LIMIT } from '../provision/windows-facts.ts';
import { hostProcessExecLine, unquotedCmdMetacharacters } from '../testing/windows-command-line.ts';
import {
  collectWindowsEvidence,
  evidenceCommand,
  MAX_CAPTURE_ADDRESSES,
  sections,
  withWindowsEvidence,
} from './windows-path-evidence.ts';

const decoded = (argv: readonly string[]) =>
  Buffer.from(argv.at(-1)!, 'base64').toString('utf16le');
/** The two calls collectWindowsEvidence makes, for `n` addresses as long as IPv4 ones get. */
const calls = (n: number) => {
  const list = Array.from({ length: n }, (_, i) => `'255.255.${i}.255'`).join(',');
  return [
    `Start-HlCapture -Addresses @(${list})`,
    `Stop-HlCapture; Write-HlNodeView -Addresses @(${list})`,
  ];
};

/** What the script prints on a node that dropped the flow (pktmon etl2txt lines, abridged). */
const AFTER_RETRY = [
  '==hl-evidence== pktmon.txt',
  '[00]0000.0000::2026-11-25 10:00:00.000 [Microsoft-Windows-PktMon] PktGroupId 1, PktNumber 1, Appearance 1, Direction Rx , Type Ethernet , Component 13, Edge 1, Filter 1, OriginalSize 74, LoggedSize 74',
  '[00]0000.0000::2026-11-25 10:00:00.000 [Microsoft-Windows-PktMon] Drop: PktGroupId 1, PktNumber 1, Appearance 2, Direction Rx , Type Ethernet , Component 27, Filter 1, DropReason Filtered VLAN , DropLocation 0xE000000E',
  '==hl-evidence== hnsdiag.txt',
  'Network : 705B6B4D-E2F2-421A-B31B-E3C5E8831944',
  '==hl-evidence== vfp-ports.txt',
  'Port name             : 4FD72AB0-2C35-4AE7-AC9A-F893495BD5EF',
  '==hl-evidence== vfp-port-10.244.3.2.txt',
  'Port state',
  '==hl-evidence== vfp-rule-counters-10.244.3.2.txt',
  'Layer : SLB_NAT_LAYER',
  '==hl-evidence== vfp-counters-10.244.3.2.txt',
  'Dropped ACL packets : 4',
  '==hl-evidence== hns-networks.json',
  '[{ "Name": "vxlan0", "Type": "Overlay" }]\r',
  '==hl-evidence== routes.txt',
  'ifIndex DestinationPrefix NextHop',
].join('\n');

/** A Windows node shell that answers the two evidence calls and records them. */
function windowsShell(afterRetry = AFTER_RETRY): NodeShell & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    node: 'win1',
    calls,
    exec(argv: readonly string[]): Promise<RunResult> {
      calls.push([...argv]);
      const call = Buffer.from(argv.at(-1)!, 'base64').toString('utf16le');
      const stdout = call.includes('\nStop-HlCapture; Write-HlNodeView') ? afterRetry : '';
      return Promise.resolve({ exitCode: 0, stdout, stderr: '', timedOut: false } as RunResult);
    },
  };
}

describe('path evidence on Windows nodes (pktmon, HNS)', () => {
  it('runs the evidence script encoded for PowerShell, with one call appended', () => {
    const argv = evidenceCommand("Start-HlCapture -Addresses @('10.244.3.2')");
    expect(argv.slice(0, 4)).to.deep.equal([
      'powershell.exe',
      '-NoProfile',
      '-NonInteractive',
      '-EncodedCommand',
    ]);
    const script = Buffer.from(argv[4]!, 'base64').toString('utf16le');
    expect(script).to.include('function Start-HlCapture');
    expect(script.trimEnd().split('\n').at(-1)).to.equal(
      "Start-HlCapture -Addresses @('10.244.3.2')",
    );
  });

  it('each call fits a HostProcess exec (cmd /c: 8191 characters) with as many addresses as pktmon filters', () => {
    for (const call of calls(MAX_CAPTURE_ADDRESSES)) {
      const line = hostProcessExecLine(evidenceCommand(call));
      expect(line.length, call.slice(0, 30)).to.be.at.most(HOSTPROCESS_EXEC_LINE_LIMIT);
      expect(unquotedCmdMetacharacters(line)).to.deep.equal([]);
    }
  });

  it('sends each call only the functions it runs, without comments', () => {
    const [start, read] = calls(1).map((c) => decoded(evidenceCommand(c)));
    expect(start)
      .to.include('function Start-HlCapture')
      .and.not.include('function Write-HlNodeView');
    expect(read).to.include('function Write-HlNodeView').and.include('function Get-HlVfpPort');
    expect(read).to.include('function Stop-HlCapture').and.not.include('function Start-HlCapture');
    expect(`${start}${read}`).to.not.match(/^\s*#/m);
  });

  it('filters the capture on inner headers too (pktmon -e: the pod addresses inside VXLAN), 32 addresses at most', async () => {
    expect(decoded(evidenceCommand(calls(1)[0]!))).to.match(
      /pktmon\.exe filter add "hl-\$address" -i \$address -e\b/,
    );
    const shell = windowsShell();
    const many = Array.from({ length: 40 }, (_, i) => `10.244.${i}.2`);
    await collectWindowsEvidence(shell, many, () => Promise.resolve());
    const first = decoded(shell.calls[0]!).trimEnd().split('\n').at(-1)!;
    expect(first.match(/'10\.244\./g)).to.have.length(MAX_CAPTURE_ADDRESSES);
  });

  it('captures around the retry, then reads the capture and the HNS view; a drop names the node', async () => {
    const shell = windowsShell();
    const order: string[] = [];
    const retry = () => {
      order.push(`retry after ${shell.calls.length} call(s)`);
      return Promise.resolve();
    };
    const evidence = await collectWindowsEvidence(
      shell,
      ['10.244.3.2', 'not-an-ip', '10.96.0.3'],
      retry,
    );
    expect(order).to.deep.equal(['retry after 1 call(s)']);
    const calls = shell.calls.map((argv) =>
      Buffer.from(argv.at(-1)!, 'base64').toString('utf16le').trimEnd().split('\n').at(-1),
    );
    expect(calls).to.deep.equal([
      "Start-HlCapture -Addresses @('10.244.3.2','10.96.0.3')",
      "Stop-HlCapture; Write-HlNodeView -Addresses @('10.244.3.2','10.96.0.3')",
    ]);
    expect(Object.keys(evidence.files)).to.deep.equal([
      'pktmon.txt',
      'hnsdiag.txt',
      'vfp-ports.txt',
      'vfp-port-10.244.3.2.txt',
      'vfp-rule-counters-10.244.3.2.txt',
      'vfp-counters-10.244.3.2.txt',
      'hns-networks.json',
      'routes.txt',
    ]);
    expect(evidence.files['hns-networks.json']).to.equal(
      '[{ "Name": "vxlan0", "Type": "Overlay" }]\n',
    );
    expect(evidence.drop).to.match(
      /^dropped on win1 \(pktmon\): .*Drop: .*DropReason Filtered VLAN/,
    );
  });

  it("heads the evidence with a Linux node's drop, else a Windows one, else the trace's word", () => {
    const traced = {
      diedAt: 'no rule dropped it; seen on lin1, never on lin2: lost between them',
      path: 'no rule dropped it; seen on lin1, never on lin2: lost between them\n\n== lin1: 3 trace lines',
      nodes: [{ node: 'lin1', files: { 'routes.txt': '' } }],
    };
    const capture = { node: 'win1', drop: 'dropped on win1 (pktmon): Drop: …', files: {} };
    const merged = withWindowsEvidence(traced, [capture]);
    expect(merged.diedAt).to.equal(capture.drop);
    expect(merged.path.split('\n')).to.include('== lin1: 3 trace lines');
    expect(merged.path.split('\n')).to.include(
      '== win1 (Windows, pktmon): dropped on win1 (pktmon): Drop: …',
    );
    expect(merged.nodes.map((n) => n.node)).to.deep.equal(['lin1', 'win1']);
    const linuxDrop = {
      ...traced,
      diedAt: 'dropped on lin1: inet table x, chain y: rule `z` (drop)',
    };
    expect(withWindowsEvidence(linuxDrop, [capture]).diedAt).to.equal(linuxDrop.diedAt);
    expect(withWindowsEvidence(undefined, [{ node: 'win1', files: {} }]).diedAt).to.equal(
      'no drop in the pktmon capture on win1',
    );
  });

  it('splits the output at its section lines, dropping what comes before the first', () => {
    expect(sections('noise\n==hl-evidence== a.txt\none\r\n==hl-evidence== b.json\n')).to.deep.equal(
      {
        'a.txt': 'one\n',
        'b.json': '\n',
      },
    );
  });
});
