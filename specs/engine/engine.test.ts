import { mkdtempSync, writeFileSync } from 'node:fs';
import { withStoppedClock } from '../../lab/testing/stopped-clock.ts';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { LabDriver, ProbeReply, Workloads } from '../model/lab-driver.ts';
import type { CellPlan } from '../model/cell-plan.ts';
import { CellRunner } from './cell-runner.ts';
import { expectationFor, loadProfile } from './profile.ts';
import { Outcome } from '../../lab/contracts/results-file.ts';
import { selectionFromArgv } from './selection.ts';

describe('profiles', () => {
  it('strict expects every cell to pass', () => {
    expect(expectationFor(loadProfile('strict'), 'outbound-nat/windows/win1/ip')).to.deep.equal({
      expected: Outcome.Ok,
    });
  });

  it('strict expects Local traffic policy via Windows nodes to lose the client address without DSR only', () => {
    const strict = loadProfile('strict');
    const cell = 'nodeport-local/external-to-windows-node/win1/node-ip';
    const off = expectationFor(strict, cell, { windowsDsr: false });
    expect(off.expected).to.equal(Outcome.WrongSourceIp);
    expect(off.reason)
      .to.contain('non-DSR')
      .and.contain(
        'https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations',
      );
    expect(expectationFor(strict, cell, { windowsDsr: true }).expected).to.equal(Outcome.Ok);
    // A lab that does not say (an existing cluster) is held to what works with DSR.
    expect(expectationFor(strict, cell).expected).to.equal(Outcome.Ok);
    expect(
      expectationFor(strict, 'nodeport-local/external-to-linux-node/lin1/node-ip', {
        windowsDsr: false,
      }).expected,
    ).to.equal(Outcome.Ok);
  });

  it('known-limitations expects Windows outbound NAT and short names to fail, with a link', () => {
    const profile = loadProfile('known-limitations');
    const nat = expectationFor(profile, 'outbound-nat/windows/win1/ip');
    expect(nat.expected).to.equal(Outcome.Timeout);
    expect(nat.reason).to.contain('https://');
    expect(expectationFor(profile, 'dns/short-name/windows/win2/dns').expected).to.equal(
      Outcome.NxDomain,
    );
    expect(expectationFor(profile, 'dns/short-name/linux/lin1/dns').expected).to.equal(Outcome.Ok);
  });

  it('rejects an unknown profile by name', () => {
    expect(() => loadProfile('lenient')).to.throw(/unknown profile "lenient"/);
  });

  it('rejects a profile that breaks the schema, naming it and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hl-profile-'));
    writeFileSync(join(dir, 'broken.yaml'), 'name: broken\ndescription: x\nexpectations: []\n');
    const name = relative(
      fileURLToPath(new URL('../profiles/', import.meta.url)),
      join(dir, 'broken'),
    );
    expect(() => loadProfile(name)).to.throw(new RegExp(`^profile ${name}: .*unexpectedPass`, 's'));
  });
});

describe('selection', () => {
  it('reads mocha grep flags in every spelling', () => {
    expect(selectionFromArgv(['--grep=dns']).matches('x dns short-name')).to.equal(true);
    expect(selectionFromArgv(['-g', 'dns']).matches('pod-to-pod via ip')).to.equal(false);
    expect(selectionFromArgv(['--grep', 'dns', '--invert']).matches('pod-to-pod via ip')).to.equal(
      true,
    );
    expect(selectionFromArgv(['--fgrep', 'a.b']).matches('axb')).to.equal(false);
    expect(selectionFromArgv([]).matches('anything')).to.equal(true);
  });
});

/** A driver whose probe replies are scripted per pod; unit level only. */
function fakeDriver(replies: ProbeReply[], log: string[]): LabDriver {
  let inFlight = 0;
  return {
    info: {
      lab: 't',
      provider: 'netns',
      emulated: true,
      kubernetesVersion: '1.30.4',
      cni: 'flannel/vxlan',
      osBuilds: {},
    },
    nodes: [],
    checkReady: () => Promise.resolve(),
    deploy: () => Promise.reject(new Error('unused')),
    probeFromPod: async (pod) => {
      inFlight++;
      log.push(`${pod.name} in-flight=${inFlight}`);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return replies.shift() ?? { result: 'ok', body: '10.0.0.1:1' };
    },
    probeFromOutside: () => Promise.resolve({ result: 'ok' }),
    probeFromNode: () => Promise.resolve({ result: 'ok' }),
    cleanup: () => Promise.resolve(),
    pending: () => [],
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

const W: Workloads = {
  namespace: 'ns',
  pods: [{ name: 'p', node: 'n', os: 'linux', ip: '10.0.0.1', fqdn: 'p' }],
  services: [],
  hairpin: [],
  hostNetwork: [],
  local: [],
  churn: [],
  outsideAddress: '192.168.200.1',
  external: { address: '198.51.100.1', port: 1 },
  apiServiceIP: '10.96.0.1',
  dnsDomain: 'cluster.local',
};

function cell(id: string): CellPlan {
  const end = { os: 'linux' as const, node: 'n', label: 'linux pod' };
  return {
    meta: { row: 'r', cell: id, title: id, source: end, target: end, via: 'ip', placement: '' },
    probe: () => ({
      from: 'p',
      request: { kind: 'http', url: 'http://x/clientip' },
      check: { kind: 'source-ip', expect: '10.0.0.1' },
    }),
  };
}

describe('CellRunner', () => {
  const settings = { concurrency: 3, timeoutMs: 100, retries: 2 };

  it('retries a cell expected to pass, at most twice', async () => {
    const log: string[] = [];
    const runner = new CellRunner(
      fakeDriver(
        [{ result: 'timeout' }, { result: 'timeout' }, { result: 'timeout' }, { result: 'ok' }],
        log,
      ),
      W,
      settings,
    );
    const result = await runner.result(cell('a'), { expected: Outcome.Ok });
    expect(result).to.include({ verdict: 'fail', actual: Outcome.Timeout, attempts: 3 });
  });

  it('never retries an expected failure', async () => {
    const log: string[] = [];
    const runner = new CellRunner(
      fakeDriver([{ result: 'timeout' }, { result: 'ok' }], log),
      W,
      settings,
    );
    const result = await runner.result(cell('a'), { expected: Outcome.Timeout, reason: 'known' });
    expect(result).to.include({ verdict: 'expected-failure', attempts: 1, reason: 'known' });
  });

  it('keeps at most `concurrency` probes in flight and probes each cell once', async () => {
    const log: string[] = [];
    const runner = new CellRunner(fakeDriver([], log), W, settings);
    const cells = Array.from({ length: 10 }, (_, i) => ({
      plan: cell(`c${i}`),
      expectation: { expected: Outcome.Ok },
    }));
    runner.prefetch(cells);
    const results = await Promise.all(cells.map((c) => runner.result(c.plan, c.expectation)));
    expect(results.every((r) => r.verdict === 'pass')).to.equal(true);
    expect(log).to.have.length(10);
    expect(Math.max(...log.map((l) => Number(l.split('=')[1])))).to.equal(3);
  });

  it('runs churn cells after every other cell, step by step, each probed until it passes or the bound passed', async function () {
    this.timeout(10_000); // a second between a churn cell's probes
    const log: string[] = [];
    const driver = fakeDriver([], log);
    let step = 'none';
    // A cell passes once its step was made, and after two more probes: a dataplane converging.
    const seen = new Map<string, number>();
    driver.probeFromPod = (_pod, request) => {
      const url = request.kind === 'http' ? request.url : '';
      log.push(`probe ${url} after ${step}`);
      const n = (seen.get(url) ?? 0) + 1;
      seen.set(url, n);
      const converged = url.includes(step) && n >= 3;
      return Promise.resolve(
        converged || url === 'http://x/plain'
          ? { result: 'ok', body: '10.0.0.1:1' }
          : { result: 'timeout' },
      );
    };
    const made: string[] = [];
    Object.assign(driver, {
      churnSettleMs: 5000,
      churn: async (os: string, next: string) => {
        made.push(`${os} ${next}`);
        await new Promise((r) => setTimeout(r, 5));
        step = next;
      },
    });
    const churnCell = (id: string, at: 'backend-deleted' | 'scaled-back'): CellPlan => ({
      ...cell(id),
      churn: { os: 'linux', step: at },
      probe: () => ({
        from: 'p',
        request: {
          kind: 'http',
          url: `http://x/${at === 'scaled-back' && id === 'never' ? 'none' : at}`,
        },
        check: { kind: 'source-ip', expect: '10.0.0.1' },
      }),
    });
    const plain = {
      ...cell('plain'),
      probe: () => ({
        from: 'p',
        request: { kind: 'http' as const, url: 'http://x/plain' },
        check: { kind: 'source-ip' as const, expect: '10.0.0.1' },
      }),
    };
    const cells = [
      { plan: churnCell('deleted', 'backend-deleted'), expectation: { expected: Outcome.Ok } },
      { plan: churnCell('back', 'scaled-back'), expectation: { expected: Outcome.Ok } },
      { plan: plain, expectation: { expected: Outcome.Ok } },
    ];
    const runner = new CellRunner(driver, W, { ...settings, retries: 0 });
    runner.prefetch(cells);
    const [deleted, back, first] = await Promise.all(
      cells.map((c) => runner.result(c.plan, c.expectation)),
    );
    expect(first).to.include({ verdict: 'pass', attempts: 1 });
    expect(log[0]).to.equal('probe http://x/plain after none');
    // Every step up to the last selected one is made, in order, also those without a cell.
    expect(made).to.deep.equal([
      'linux backend-deleted',
      'linux backend-recreated',
      'linux scaled-to-zero',
      'linux scaled-back',
    ]);
    expect(deleted).to.include({ verdict: 'pass', attempts: 3 });
    expect(back).to.include({ verdict: 'pass', attempts: 3 });
    expect(
      log
        .filter((l) => l.includes('backend-deleted'))
        .every((l) => l.endsWith('after backend-deleted')),
    ).to.equal(true);
  });

  it('fails a churn cell that has not converged within the bound, and one whose step could not be made', async function () {
    this.timeout(10_000); // a second between a churn cell's probes
    const driver = fakeDriver([], []);
    driver.probeFromPod = () => Promise.resolve({ result: 'timeout' });
    Object.assign(driver, { churnSettleMs: 50, churn: () => Promise.resolve() });
    const plan: CellPlan = { ...cell('stale'), churn: { os: 'windows', step: 'backend-deleted' } };
    const runner = new CellRunner(driver, W, { ...settings, retries: 0 });
    runner.prefetch([{ plan, expectation: { expected: Outcome.Ok } }]);
    const stale = await runner.result(plan, { expected: Outcome.Ok });
    expect(stale).to.include({ verdict: 'fail', actual: Outcome.Timeout });
    // The first probe began within the bound; the one that fails the cell began after it.
    expect(stale.attempts).to.equal(2);

    // A bound of 0 (converged when the step returns): judged like any other cell, at once.
    Object.assign(driver, { churnSettleMs: 0 });
    const settled = new CellRunner(driver, W, { ...settings, retries: 1 });
    settled.prefetch([{ plan, expectation: { expected: Outcome.Ok } }]);
    expect(await settled.result(plan, { expected: Outcome.Ok })).to.include({
      verdict: 'fail',
      attempts: 2,
    });

    const noChurn = new CellRunner(fakeDriver([], []), W, settings);
    noChurn.prefetch([{ plan, expectation: { expected: Outcome.Ok } }]);
    expect(await noChurn.result(plan, { expected: Outcome.Ok })).to.deep.include({
      actual: Outcome.Error,
      attempts: 0,
      detail:
        'churn step backend-deleted on the windows Service failed: this driver cannot change the Service endpoints',
    });
  });

  it('ends a settling churn cell at the attempt that begins at its bound, not one later', async function () {
    this.timeout(10_000); // a second between a churn cell's probes
    // A stopped clock that only each probe moves on, by half the bound: the attempts begin at
    // 0, 1000 and 2000 ms of a 2000 ms bound; the one at 2000 is the last.
    const result = await withStoppedClock(0, (clock) => {
      const driver = fakeDriver([], []);
      driver.probeFromPod = () => {
        clock.advance(1000);
        return Promise.resolve({ result: 'timeout' });
      };
      Object.assign(driver, { churnSettleMs: 2000, churn: () => Promise.resolve() });
      const plan: CellPlan = { ...cell('bound'), churn: { os: 'linux', step: 'backend-deleted' } };
      const runner = new CellRunner(driver, W, { ...settings, retries: 0 });
      runner.prefetch([{ plan, expectation: { expected: Outcome.Ok } }]);
      return runner.result(plan, { expected: Outcome.Ok });
    });
    expect(result).to.include({ verdict: 'fail', actual: Outcome.Timeout, attempts: 3 });
  });

  it('reports a cell the lab cannot host as skipped with its reason', async () => {
    const runner = new CellRunner(fakeDriver([], []), W, settings);
    const plan = { ...cell('s'), probe: undefined, skip: 'needs two windows nodes' } as CellPlan;
    expect(await runner.result(plan, { expected: Outcome.Ok })).to.include({
      verdict: 'skipped',
      reason: 'needs two windows nodes',
    });
  });
});
