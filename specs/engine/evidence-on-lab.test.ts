/**
 * Integration: a fault the catalogue does not know — a foreign nftables table on one node that
 * drops one flow — turns exactly that node's cells red, and their path evidence names the table,
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

  after(async () => {
    await lab?.cluster.hosts
      .shell('win2')
      .exec(['nft', 'delete', 'table', 'inet', FOREIGN_TABLE], { check: false });
    await lab?.down();
  });

  it('names the foreign rule on win2 for every red cell, and only win2 → lin1 cells are red', async () => {
    const current = lab!;
    const nodes = new Map(current.cluster.plan.nodes.map((n) => [n.name, n]));
    const [win2, lin1] = [nodes.get('win2')!, nodes.get('lin1')!];
    const rule = `ip saddr ${win2.podCIDR} ip daddr ${lin1.podCIDR} tcp dport 8080 drop`;
    await current.cluster.hosts.shell('win2').exec(['nft', '-f', '-'], {
      input: foreignDropTable(rule),
    });
    const results = join(current.labHome, 'results');
    const run = await runSuite(new ExecaRunner(silentLogger()), results, {
      lab: current.name,
      labHome: current.labHome,
      timeoutMs: 240_000,
      env: { PROBE_TIMEOUT_MS: '1000', EVIDENCE: 'failed', EVIDENCE_MAX_CELLS: '20' },
    });
    const red = expectOnlyDroppedCells(run.cells, {
      source: 'win2',
      target: 'lin1',
      node: 'win2',
      rule,
    });
    for (const cell of red) {
      const path = join(results, cell.evidence!.files[0]!);
      expect(readFileSync(path, 'utf8').split('\n')[0]).to.equal(cell.evidence!.diedAt);
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
});
