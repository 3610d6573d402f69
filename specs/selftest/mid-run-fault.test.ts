/**
 * Integration: a fault applied while the suite runs (as a child process, as users run it) makes
 * the cells after it fail within the probe timeouts and retries; the run never hangs.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { ExecaRunner } from '../../lab/exec/execa-runner.ts';
import { findFault } from '../../lab/faults/fault-catalogue.ts';
import { breakFault, healFaults } from '../../lab/faults/fault-engine.ts';
import { faultSkipReason, startTestLab, type TestLab } from '../../lab/testing/fault-test-lab.ts';
import { resolveTargets } from '../../lab/faults/fault-targets.ts';
import { silentLogger } from '../../lab/log/logger.ts';
import { expectationOf, failingCells } from './detection.ts';
import { runSuite, type SuiteRun } from './suite-process.ts';
import { skipIf } from '../../lab/testing/skip.ts';

const PROBE_TIMEOUT_MS = 1000;
const RETRIES = 2;
/** What a failing attempt may take beyond the probe timeout: process start-up and the runner. */
const ATTEMPT_SLACK_MS = 2500;
const FAULT = 'windows-endpoints-blackholed';

/** Resolves once the suite's run namespace has its Services: workloads are deployed, probing starts. */
async function deployed(lab: TestLab, run: Promise<SuiteRun>): Promise<boolean> {
  const suite = { finished: false };
  void run.finally(() => {
    suite.finished = true;
  });
  while (!suite.finished) {
    const { services } = await lab.cluster.list();
    if (services.some((s) => s.namespace.startsWith('hybrid-lab-') && s.type === 'NodePort'))
      return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe('a fault applied in the middle of a suite run (integration)', function () {
  this.timeout(300_000);
  let lab: TestLab | undefined;

  before(async function () {
    skipIf(this, await faultSkipReason());
    lab = await startTestLab('midrun');
  });

  after(async () => {
    if (lab !== undefined) await healFaults(lab.session).finally(() => lab?.down());
  });

  it('fails the cells it breaks within timeout × attempts, and the run ends', async () => {
    const current = lab!;
    const started = performance.now();
    const run = runSuite(new ExecaRunner(silentLogger()), join(current.labHome, 'results'), {
      lab: current.name,
      labHome: current.labHome,
      timeoutMs: 240_000,
      // The Service rows (to both OSes): cells the fault breaks and cells it must leave alone,
      // one at a time, so the fault lands while they are probed (the whole suite took 229 s).
      grep: 'pod-to-service',
      env: { CONCURRENCY: '1', PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS) },
    });
    expect(await deployed(current, run), 'the suite ended before it deployed').to.be.true;
    await breakFault(current.session, FAULT);
    const result = await run;
    const wallMs = performance.now() - started;

    expect(result.timedOut, 'the suite hung').to.be.false;
    expect(result.broken).to.equal(undefined);
    const fault = findFault(FAULT);
    const impact = fault.impact(current.cluster.plan, resolveTargets(fault, current.cluster.plan));
    const failing = result.cells.filter((c) => failingCells([c]).length > 0);
    const slowest = Math.max(0, ...failing.map((c) => c.durationMs / Math.max(1, c.attempts)));
    console.log(
      `      ${FAULT} applied mid-run: ${failing.length} cells failed, slowest attempt ${Math.round(slowest)} ms, ` +
        `suite ${(wallMs / 1000).toFixed(1)} s`,
    );
    expect(failing.length, 'the fault landed after probing had finished').to.be.greaterThan(0);
    expect(
      result.cells.filter((c) => c.verdict === 'pass').length,
      'cells the fault leaves alone pass',
    ).to.be.greaterThan(0);
    for (const cell of failing) {
      expect(
        expectationOf(impact, cell),
        `${cell.cell} failed but the fault does not touch it`,
      ).to.not.equal('pass');
      // A cell expected to fail whose check wants no answer (internal-local on Windows) gets none.
      const unanswered = cell.expected === 'ok' ? ['timeout'] : ['timeout', 'ok'];
      expect(cell.actual, cell.cell).to.be.oneOf(unanswered);
      expect(cell.attempts, cell.cell).to.be.at.most(RETRIES + 1);
      expect(cell.durationMs, cell.cell).to.be.at.most(
        cell.attempts * (PROBE_TIMEOUT_MS + ATTEMPT_SLACK_MS),
      );
    }
  });
});
