import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import type { ProbeSpec } from '../model/cell-plan.ts';
import type { LabDriver } from '../model/lab-driver.ts';
import {
  CHURN_NOT_TRACED,
  collectEvidence,
  evidenceBudgetMs,
  evidenceCells,
  evidenceNotAsked,
  evidenceDir,
  removeEvidence,
} from './evidence.ts';
import { probeProgramMs } from '../drivers/probe-args.ts';
import { suiteSettings } from './suite-settings.ts';

const spec: ProbeSpec = {
  from: 'netexec-lin1-a',
  request: { kind: 'tcp', host: '10.244.1.2', port: 8080 },
  check: { kind: 'responds' },
};
const cell = (id: string, verdict: CellResult['verdict']) => ({
  result: { cell: id, verdict } as CellResult,
  spec,
});

describe('evidence selection', () => {
  const cells = [
    cell('a/pass', 'pass'),
    cell('b/fail', 'fail'),
    cell('c/expected', 'expected-failure'),
    cell('d/infra', 'infra-error'),
    cell('e/fail', 'fail'),
  ];

  it('takes the failing cells by default, up to the maximum, in run order', () => {
    const ids = (settings: { cells: 'failed' | 'all' | 'off'; maxCells: number }) =>
      evidenceCells(cells, settings).map((c) => c.result.cell);
    expect(ids({ cells: 'failed', maxCells: 10 })).to.deep.equal(['b/fail', 'd/infra', 'e/fail']);
    expect(ids({ cells: 'failed', maxCells: 2 })).to.deep.equal(['b/fail', 'd/infra']);
    expect(ids({ cells: 'all', maxCells: 10 })).to.have.length(5);
    expect(ids({ cells: 'off', maxCells: 10 })).to.deep.equal([]);
  });

  it('collects nothing on a lab where evidence is opt-in unless EVIDENCE asks for it', () => {
    const optIn = 'a cluster the harness did not make';
    const unset = suiteSettings({}, []).evidence;
    expect(evidenceNotAsked(unset, optIn)).to.equal(
      'a cluster the harness did not make; EVIDENCE=failed collects it',
    );
    // Where evidence is the default (labs the harness made) it is collected unasked.
    expect(evidenceNotAsked(unset, undefined)).to.equal(undefined);
    for (const value of ['failed', 'all'])
      expect(evidenceNotAsked(suiteSettings({ EVIDENCE: value }, []).evidence, optIn)).to.equal(
        undefined,
      );
    // Asked for none: nothing to explain, evidenceCells gives none.
    expect(evidenceNotAsked(suiteSettings({ EVIDENCE: 'off' }, []).evidence, optIn)).to.equal(
      undefined,
    );
  });

  it('puts a cell under evidence/, one folder per id segment, nothing outside it', () => {
    expect(evidenceDir('pod-to-pod/windows-to-linux/cross-node/win2/lin1/ip')).to.equal(
      'evidence/pod-to-pod/windows-to-linux/cross-node/win2/lin1/ip',
    );
    expect(evidenceDir('x/../../etc/y z')).to.equal('evidence/x/__/__/etc/y_z');
  });

  it('reads EVIDENCE and EVIDENCE_MAX_CELLS, refusing what they do not allow', () => {
    expect(suiteSettings({}, []).evidence).to.deep.equal({
      cells: 'failed',
      maxCells: 10,
      asked: false,
    });
    expect(suiteSettings({ EVIDENCE: 'all', EVIDENCE_MAX_CELLS: '3' }, []).evidence).to.deep.equal({
      cells: 'all',
      maxCells: 3,
      asked: true,
    });
    expect(() => suiteSettings({ EVIDENCE: 'some' }, [])).to.throw(
      "EVIDENCE must be one of failed, all, off, got 'some'",
    );
    expect(() => suiteSettings({ EVIDENCE_MAX_CELLS: '0' }, [])).to.throw(/EVIDENCE_MAX_CELLS/);
  });

  it('cuts a cell whose collection hangs off at its budget and goes on with the next', async () => {
    // As a real cluster on emulated VMs once did: the suite's after hook timed out, and mocha then
    // skipped the cleanup hook after it, leaving the run namespace and the echo behind.
    const driver = {
      pathEvidence: (meta: CellResult) =>
        meta.cell === 'a/hangs'
          ? new Promise(() => undefined)
          : Promise.resolve({ diedAt: 'dropped on lin1', path: 'dropped on lin1', nodes: [] }),
    } as unknown as LabDriver;
    const dir = mkdtempSync(join(tmpdir(), 'hl-evidence-'));
    try {
      // A hang that was not cut off would never resolve, and mocha's timeout would fail the test.
      const collected = await collectEvidence(
        driver,
        [cell('a/hangs', 'fail'), cell('b/fails', 'fail')],
        dir,
        50,
        200,
      );
      // 2 × the probe's 50 ms + 200 ms.
      expect(collected.get('a/hangs')?.diedAt).to.equal('no evidence: not collected within 0.3 s');
      expect(readFileSync(join(dir, 'evidence/a/hangs/path.txt'), 'utf8')).to.equal(
        'no evidence: not collected within 0.3 s\n',
      );
      expect(collected.get('b/fails')?.diedAt).to.equal('dropped on lin1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes the path and each node's files, and lists them", async () => {
    const driver = {
      pathEvidence: () =>
        Promise.resolve({
          diedAt: 'dropped on lin1',
          path: 'lin1: dropped by FORWARD',
          nodes: [{ node: 'lin1', files: { 'iptables.txt': '-A FORWARD -j DROP\n' } }],
        }),
    } as unknown as LabDriver;
    const dir = mkdtempSync(join(tmpdir(), 'hl-evidence-'));
    try {
      const collected = await collectEvidence(driver, [cell('a/b', 'fail')], dir, 50);
      expect(collected.get('a/b')).to.deep.equal({
        diedAt: 'dropped on lin1',
        files: ['evidence/a/b/path.txt', 'evidence/a/b/lin1/iptables.txt'],
      });
      expect(readFileSync(join(dir, 'evidence/a/b/path.txt'), 'utf8')).to.equal(
        'lin1: dropped by FORWARD\n',
      );
      expect(readFileSync(join(dir, 'evidence/a/b/lin1/iptables.txt'), 'utf8')).to.equal(
        '-A FORWARD -j DROP\n',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('traces no churn cell: its evidence says why, and the driver is not asked', async () => {
    const asked: string[] = [];
    const driver = {
      pathEvidence: (meta: CellResult) => {
        asked.push(meta.cell);
        return Promise.resolve({ diedAt: 'x', path: 'x', nodes: [] });
      },
    } as unknown as LabDriver;
    const dir = mkdtempSync(join(tmpdir(), 'hl-evidence-'));
    try {
      const id = 'churn/backend-deleted/linux/lin1/cluster-ip';
      const collected = await collectEvidence(driver, [cell(id, 'fail')], dir, 50);
      expect(collected.get(id)).to.deep.equal({
        diedAt: CHURN_NOT_TRACED,
        files: [`evidence/${id}/path.txt`],
      });
      expect(readFileSync(join(dir, `evidence/${id}/path.txt`), 'utf8')).to.equal(
        `${CHURN_NOT_TRACED}\n`,
      );
      expect(asked).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("budgets each cell twice its probe's run plus a minute", () => {
    const one = 2 * probeProgramMs(spec.request, 50) + 60_000;
    expect(evidenceBudgetMs([{ spec }], 50)).to.equal(one);
    expect(evidenceBudgetMs([{ spec }, { spec }], 50)).to.equal(2 * one);
  });

  it("removes an earlier run's evidence folder, and minds none being there", () => {
    const dir = mkdtempSync(join(tmpdir(), 'hl-evidence-'));
    try {
      mkdirSync(join(dir, 'evidence/a/b'), { recursive: true });
      writeFileSync(join(dir, 'evidence/a/b/path.txt'), 'old\n');
      writeFileSync(join(dir, 'results.json'), '{}');
      removeEvidence(dir);
      expect(existsSync(join(dir, 'evidence'))).to.equal(false);
      expect(existsSync(join(dir, 'results.json'))).to.equal(true);
      removeEvidence(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
