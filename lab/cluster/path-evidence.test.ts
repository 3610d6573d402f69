import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { describePath, flowAddresses, traceTable } from './path-evidence.ts';
import { missing, skipTest } from '../testing/skip.ts';

/** Trace lines as `nft monitor trace` prints them (nftables 1.0.6), trimmed to what is parsed. */
const ACCEPTED = [
  'trace id 803d005b inet hl_evidence_trace trace_pre packet: iif "cni0" ip saddr 10.244.3.2 ip daddr 10.244.2.2 tcp dport 8080',
  'trace id 803d005b inet hl_evidence_trace trace_pre rule ip saddr { 10.244.2.2, 10.244.3.2 } ip daddr { 10.244.2.2, 10.244.3.2 } meta nftrace set 1 (verdict continue)',
  'trace id e023ad69 ip filter FORWARD rule ct state new counter packets 4 bytes 240 jump KUBE-SERVICES (verdict jump KUBE-SERVICES)',
  'trace id e023ad69 ip filter FORWARD policy accept ',
].join('\n');
const DROPPED = [
  'trace id e8cd8919 inet hl_evidence_trace trace_pre packet: iif "flannel.4096" ip saddr 10.244.3.2 ip daddr 10.244.2.2',
  'trace id e8cd8919 inet foreign dropper rule ip saddr 10.244.3.0/24 tcp dport 8080 drop (verdict drop)',
].join('\n');

describe('path evidence', () => {
  it('names the node, table, chain and rule that dropped the traced packet, first', () => {
    const path = describePath(['win1', 'lin2'], [ACCEPTED, `monitor noise\n${DROPPED}`]);
    const [first, ...rest] = path.split('\n');
    expect(first).to.equal(
      'dropped on lin2: inet table foreign, chain dropper: rule `ip saddr 10.244.3.0/24 tcp dport 8080 drop` (drop)',
    );
    expect(rest).to.include('== win1: 4 trace lines').and.to.include('== lin2: 2 trace lines');
    expect(rest).not.to.include('monitor noise');
  });

  it('names a chain policy that dropped it', () => {
    const policy = 'trace id 1 ip filter FORWARD policy drop ';
    expect(describePath(['lin1'], [policy]).split('\n')[0]).to.equal(
      "dropped on lin1: ip filter table FORWARD, chain policy: the chain's policy drop".replace(
        'ip filter table FORWARD, chain policy',
        'ip table filter, chain FORWARD',
      ),
    );
  });

  it('without a drop, names the nodes that never saw the packet', () => {
    expect(describePath(['win1', 'lin2'], [ACCEPTED, '']).split('\n')[0]).to.equal(
      'no rule dropped it; seen on win1, never on lin2: lost between them (route, neighbour, bridge or VXLAN forwarding)',
    );
    expect(describePath(['win1', 'lin2'], ['', '']).split('\n')[0]).to.match(
      /^no traced packet on win1, lin2: /,
    );
    expect(describePath(['win1'], [ACCEPTED]).split('\n')[0]).to.match(
      /^no rule dropped it on win1: every node passed it \(/,
    );
  });

  it('when every node passed the packet, names the last rule that rewrote it (as nft 1.0.6 traced a hairpin SNAT)', () => {
    const hairpin = [
      'trace id e0978c5b ip nat KUBE-SEP-FOMKSKNM6XPVEN45 rule meta l4proto tcp   counter packets 3 bytes 180 dnat to 10.244.2.13:8080 (verdict accept)',
      'trace id e0978c5b ip filter KUBE-FORWARD rule  meta mark & 0x00004000 == 0x00004000 counter packets 3 bytes 180 accept (verdict accept)',
      'trace id e0978c5b ip handhp p rule ct status dnat ip saddr 10.244.2.0/24 ip daddr 10.244.2.0/24 snat to ip saddr (verdict accept)',
    ].join('\n');
    expect(describePath(['lin2'], [hairpin]).split('\n')[0]).to.equal(
      "no rule dropped it on lin2: every node passed it; last rewritten on lin2: ip table handhp, chain p: rule `ct status dnat ip saddr 10.244.2.0/24 ip daddr 10.244.2.0/24 snat to ip saddr` (look at the answer and the pods' own namespaces)",
    );
  });

  it('when a node rewrote the source and later nodes never saw the packet, says the trace may have lost it there', () => {
    // As nft 1.0.6 traced a hand-made SNAT of UDP Service traffic on lin1 of a real v1.20.2 cluster.
    const snat = [
      'trace id 9c1e0b2a ip nat KUBE-SEP-XW5JQ4T3O3FXMYDL rule meta l4proto udp   counter packets 1 bytes 36 dnat to 10.244.2.8:8081 (verdict accept)',
      'trace id 9c1e0b2a ip handudp p rule ct status dnat ip saddr 10.244.1.0/24 udp dport 8081 counter snat to 10.244.1.1 (verdict accept)',
    ].join('\n');
    expect(describePath(['lin1', 'lin2'], [snat, '']).split('\n')[0]).to.equal(
      'no rule dropped it; seen on lin1, never on lin2; last rewritten on lin1: ip table handudp, chain p: rule `ct status dnat ip saddr 10.244.1.0/24 udp dport 8081 counter snat to 10.244.1.1` (from there on its source may be an address the trace does not follow; else it was lost between them)',
    );
  });

  it("follows the path nodes' pod networks whole: a node's own packet to a pod leaves from its VXLAN address", () => {
    // As a hand-made drop on win2 of an emulated lab showed: win2 → 10.244.1.2 left from 10.244.4.0.
    expect(
      flowAddresses(
        ['10.244.1.2', '10.244.4.3', '192.168.200.14', '10.96.0.2'],
        ['10.244.4.0/24', '10.244.1.0/24'],
      ),
    ).to.deep.equal(['10.244.4.0/24', '10.244.1.0/24', '192.168.200.14', '10.96.0.2']);
    expect(flowAddresses(['10.244.1.2', '10.244.1.2'], [])).to.deep.equal(['10.244.1.2']);
    // An echo on loopback: the node's own lo traffic (exec streams) is no probe's path.
    expect(flowAddresses(['10.244.1.2', '127.0.0.1'], [])).to.deep.equal(['10.244.1.2']);
  });

  it('traces packets between any two of the flow addresses, and nft accepts the table', function () {
    const table = traceTable(flowAddresses(['10.244.3.2', '10.96.0.10'], ['10.244.1.0/24']));
    expect(table).to.include(
      'ip saddr { 10.244.1.0/24, 10.244.3.2, 10.96.0.10 } ip daddr { 10.244.1.0/24, 10.244.3.2, 10.96.0.10 } meta nftrace set 1',
    );
    // The kubelet's exec streams and the API server's traffic are never marked.
    expect(table).to.include('tcp dport { 2379, 2380, 6443, 10250 } return;');
    expect(table).to.include('tcp sport { 2379, 2380, 6443, 10250 } return;');
    if (spawnSync('nft', ['--version']).status !== 0)
      skipTest(this, missing('nft is not installed'));
    const checked = spawnSync('nft', ['--check', '-f', '-'], { input: table, encoding: 'utf8' });
    // --check needs CAP_NET_ADMIN for the netlink socket; as root it parses and evaluates.
    if (process.getuid?.() !== 0)
      skipTest(this, missing('needs root: nft --check talks to netlink'));
    expect(checked.status, checked.stderr).to.equal(0);
  });
});
