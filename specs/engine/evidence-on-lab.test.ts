/**
 * Integration: a fault the catalogue does not know — a foreign nftables table on one node that
 * drops one flow, routed or the node's own — turns exactly that node's cells red, and their path evidence names the table,
 * chain and rule on that node in its first line; green cells get none. The suite runs as a child
 * process, as users run it.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecaRunner } from '../../lab/exec/execa-runner.ts';
import { silentLogger } from '../../lab/log/logger.ts';
import { faultSkipReason, startTestLab, type TestLab } from '../../lab/testing/fault-test-lab.ts';
import { skipIf } from '../../lab/testing/skip.ts';
import { runSuite } from '../selftest/suite-process.ts';
import { CHURN_NOT_TRACED } from './evidence.ts';
import {
  expectOnlyDroppedCells,
  FOREIGN_TABLE,
  foreignDropTable,
} from '../testing/foreign-drop.ts';

describe('path evidence of a hand-made drop (integration)', function () {
  this.timeout(300_000);
  let lab: TestLab | undefined;

  before(async function () {
    skipIf(this, await faultSkipReason());
    lab = await startTestLab('evid');
  });

  afterEach(async () => {
    await lab?.cluster.hosts
      .shell('win2')
      .exec(['nft', 'delete', 'table', 'inet', FOREIGN_TABLE], { check: false });
  });

  after(async () => {
    await lab?.down();
  });

  /** Drops on win2 what `rule` matches in `hook`, runs the suite, returns its cells and results folder. */
  async function runWithDrop(rule: string, hook: 'forward' | 'output') {
    const current = lab!;
    await current.cluster.hosts.shell('win2').exec(['nft', '-f', '-'], {
      input: foreignDropTable(rule, hook),
    });
    const results = join(current.labHome, 'results');
    const run = await runSuite(new ExecaRunner(silentLogger()), results, {
      lab: current.name,
      labHome: current.labHome,
      timeoutMs: 240_000,
      env: { PROBE_TIMEOUT_MS: '1000', EVIDENCE: 'failed', EVIDENCE_MAX_CELLS: '20' },
    });
    return { run, results };
  }

  const podCIDR = (name: string): string =>
    lab!.cluster.plan.nodes.find((n) => n.name === name)!.podCIDR;

  it('names the foreign rule on win2 for every red cell, and only win2 → lin1 cells are red', async () => {
    const rule = `ip saddr ${podCIDR('win2')} ip daddr ${podCIDR('lin1')} tcp dport 8080 drop`;
    const { run, results } = await runWithDrop(rule, 'forward');
    const red = expectOnlyDroppedCells(run.cells, {
      source: 'win2',
      target: 'lin1',
      targetOs: 'linux',
      node: 'win2',
      rule,
    });
    for (const cell of red) {
      const path = join(results, cell.evidence!.files[0]!);
      expect(readFileSync(path, 'utf8').split('\n')[0]).to.equal(cell.evidence!.diedAt);
      if (cell.cell.startsWith('churn/')) {
        expect(cell.evidence!.diedAt).to.equal(CHURN_NOT_TRACED);
        continue;
      }
      for (const file of ['routes.txt', 'nft-ruleset.txt', 'trace.txt'])
        expect(existsSync(join(results, cell.evidence!.files[0]!, '..', 'win2', file)), file).to.be
          .true;
    }
    expect(run.cells.filter((c) => c.verdict === 'pass' && c.evidence !== undefined)).to.deep.equal(
      [],
    );
    const junit = readFileSync(join(results, 'junit_01.xml'), 'utf8');
    expect(junit).to.include(`[[ATTACHMENT|${join(results, red[0]!.evidence!.files[0]!)}]]`);
  });

  it("a drop of win2's own packets to lin1's pods: its two host-network cells red, the rule named", async () => {
    // win2 sends to another node's pods from its VXLAN address, inside its own pod network.
    const rule = `ip daddr ${podCIDR('lin1')} tcp dport 8080 drop`;
    const { run } = await runWithDrop(rule, 'output');
    const red = expectOnlyDroppedCells(run.cells, {
      source: 'win2',
      target: 'lin1',
      targetOs: 'linux',
      node: 'win2',
      rule,
    });
    expect(red.map((c) => c.cell).sort()).to.deep.equal([
      'host-network-to-pod/windows-to-linux/cross-node/win2/lin1/ip',
      'host-network-to-service/windows-to-linux/win2/cluster-ip',
    ]);
  });
});
