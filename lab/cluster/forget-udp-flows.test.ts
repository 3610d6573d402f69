/**
 * forgetUdpFlows' sh program, run by the real sh against a stand-in conntrack on PATH that records
 * its arguments and lists a canned table: one process per node, one listing of the table, a delete
 * only for a flow the table holds, "no entry matched" (exit 1) not an error, any other failure
 * named with its command after the rest were tried.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { RunOptions, RunResult } from '../exec/command-runner.ts';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import type { NodeShell } from '../remote/node-shell.ts';
import { forgetUdpFlows, staleUdpFlows } from './cluster-sync.ts';

/** `conntrack -L -p udp` lines as conntrack 1.4.7 prints them: original tuple, then reply tuple. */
const TABLE = [
  // DNS through the ClusterIP, answered by 10.244.1.3 (DNAT).
  'udp      17 28 src=10.244.2.7 dst=10.96.0.10 sport=40000 dport=53 src=10.244.1.3 dst=10.244.2.7 sport=53 dport=40000 mark=0 use=1',
  // A NodePort flow to the node's own address, answered by 10.244.3.4.
  'udp      17 12 src=192.168.200.1 dst=192.168.200.12 sport=5000 dport=30081 [UNREPLIED] src=10.244.3.4 dst=192.168.200.1 sport=8081 dport=5000 mark=0 use=1',
  // Pod to pod: the endpoint is the reply source but the flow did not go to the Service.
  'udp      17 20 src=10.244.2.7 dst=10.244.1.9 sport=41000 dport=8081 src=10.244.1.9 dst=10.244.2.7 sport=8081 dport=41000 mark=0 use=1',
].join('\n');

describe('forgetUdpFlows (the real sh, a stand-in conntrack)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hl-forget-'));
  const calls = join(dir, 'calls');
  writeFileSync(join(dir, 'table'), `${TABLE}\n`);
  // -L prints the table (exit 3 when the file `broken-list` exists); -D exits as its endpoint
  // says: .3 and .4 deleted (0), .9 none matched (1), .66 broken (2).
  writeFileSync(
    join(dir, 'conntrack'),
    `#!/bin/sh
echo "$*" >> ${calls}
if [ "$1" = -L ]; then [ -e ${dir}/broken-list ] && exit 3; cat ${dir}/table; exit 0; fi
case "$7" in
  *.3|*.4) exit 0 ;;
  *.66) echo "conntrack v1.4.7: Operation failed: invalid parameters" >&2; exit 2 ;;
  *) echo "0 flow entries have been deleted." >&2; exit 1 ;;
esac
`,
  );
  chmodSync(join(dir, 'conntrack'), 0o755);
  const runner = new ExecaRunner(silentLogger());
  let execs = 0;
  const shell: NodeShell = {
    node: 'lin1',
    exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
      execs++;
      return runner.run(argv[0]!, argv.slice(1), {
        ...options,
        env: { PATH: `${dir}:${process.env.PATH ?? ''}` },
      });
    },
  };
  const ran = () => readFileSync(calls, 'utf8').trim().split('\n');

  beforeEach(() => {
    rmSync(calls, { force: true });
    rmSync(join(dir, 'broken-list'), { force: true });
    execs = 0;
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the table once and deletes only the flows it holds, in one process on the node', async () => {
    await forgetUdpFlows(shell, [
      '--orig-dst 10.96.0.10 10.244.1.3',
      '--orig-dst 10.96.0.10 10.244.1.9',
      '--orig-dst 10.96.0.20 10.244.1.3',
      '--orig-port-dst 30081 10.244.3.4',
      '--orig-port-dst 30082 10.244.3.4',
    ]);
    expect(execs).to.equal(1);
    expect(ran()).to.deep.equal([
      '-L -p udp',
      '-D -p udp --orig-dst 10.96.0.10 --reply-src 10.244.1.3',
      '-D -p udp --orig-port-dst 30081 --reply-src 10.244.3.4',
    ]);
  });

  it('forgets a Service address with no flow left by itself, from any endpoint', async () => {
    await forgetUdpFlows(shell, ['--orig-dst 10.96.0.10 -', '--orig-port-dst 30081 -']);
    expect(ran()).to.deep.equal([
      '-L -p udp',
      '-D -p udp --orig-dst 10.96.0.10',
      '-D -p udp --orig-port-dst 30081',
    ]);
  });

  it('starts nothing when no flow went away, and deletes nothing the table does not hold', async () => {
    await forgetUdpFlows(shell, []);
    expect(execs).to.equal(0);
    await forgetUdpFlows(shell, ['--orig-dst 10.96.0.30 10.244.1.3']);
    expect(ran()).to.deep.equal(['-L -p udp']);
  });

  it('a table it cannot list: every flow is deleted by its filter; no match is not an error', async () => {
    writeFileSync(join(dir, 'broken-list'), '');
    await forgetUdpFlows(shell, [
      '--orig-dst 10.96.0.30 10.244.1.9',
      '--orig-port-dst 30081 10.244.3.4',
    ]);
    expect(ran()).to.deep.equal([
      '-L -p udp',
      '-D -p udp --orig-dst 10.96.0.30 --reply-src 10.244.1.9',
      '-D -p udp --orig-port-dst 30081 --reply-src 10.244.3.4',
    ]);
  });

  it('names a failed delete with its command and what conntrack said, after trying the rest', async () => {
    writeFileSync(join(dir, 'broken-list'), '');
    const error = await forgetUdpFlows(shell, [
      '--orig-dst 10.96.0.10 10.244.1.66',
      '--orig-dst 10.96.0.10 10.244.1.3',
    ]).catch((e: unknown) => e);
    expect(String(error)).to.equal(
      'Error: conntrack -D of UDP flows on lin1: conntrack -D -p udp --orig-dst 10.96.0.10 --reply-src 10.244.1.66 exited 2: conntrack v1.4.7: Operation failed: invalid parameters',
    );
    expect(ran()).to.have.length(3);
  });
});

describe('staleUdpFlows (what kube-proxy clears)', () => {
  const before = [
    '--orig-dst 10.96.0.10 10.244.1.3',
    '--orig-dst 10.96.0.10 10.244.2.3',
    '--orig-dst 10.96.0.20 10.244.1.4',
    '--orig-dst 10.96.0.20 10.244.2.4',
    '--orig-port-dst 30081 10.244.1.4',
  ];

  it('an endpoint gone from a Service that keeps others: that pair alone', () => {
    expect(staleUdpFlows(before, before.slice(1))).to.deep.equal([
      '--orig-dst 10.96.0.10 10.244.1.3',
    ]);
  });

  it('a Service gone (or without endpoints): its address and node port once, from any endpoint', () => {
    expect(staleUdpFlows(before, before.slice(0, 2))).to.deep.equal([
      '--orig-dst 10.96.0.20 -',
      '--orig-port-dst 30081 -',
    ]);
  });

  it('nothing gone, nothing to forget; a flow that came is not stale', () => {
    expect(staleUdpFlows(before, before)).to.deep.equal([]);
    expect(staleUdpFlows([], before)).to.deep.equal([]);
  });
});
