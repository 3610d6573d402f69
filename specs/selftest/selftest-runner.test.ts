import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { windowsCniConfig } from '../../lab/cni/windows-cni-config.ts';
import { RecordingRunner } from '../../lab/testing/recording-runner.ts';
import { findFault } from '../../lab/faults/fault-catalogue.ts';
import { FaultError } from '../../lab/faults/fault-error.ts';
import { FaultRecords } from '../../lab/faults/fault-records.ts';
import type { FaultSession } from '../../lab/faults/fault-session.ts';
import { resolveTargets } from '../../lab/faults/fault-targets.ts';
import { silentLogger } from '../../lab/log/logger.ts';
import { fixturePlan } from '../../lab/testing/fixture-plan.ts';
import { NetnsNodeShell } from '../../lab/remote/netns-node-shell.ts';
import type { CellResult } from '../../lab/contracts/results-file.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { PERF_MATRIX } from '../matrix/perf-cells.ts';
import { MATRIX } from '../matrix/rows.ts';
import { expectationOf } from './detection.ts';
import { suiteCells } from './suite-cells.ts';
import { renderSelftestMarkdown } from './selftest-report.ts';
import { runSelftest, titlesGrep } from './selftest-runner.ts';
import type { SuiteRun } from './suite-process.ts';

const plan = fixturePlan();
const ROUTE =
  '[{"dst":"10.244.3.0/24","gateway":"10.244.3.0","dev":"flannel.4096","flags":["onlink"]}]';

function session(dir: string, runner: RecordingRunner): FaultSession {
  const configs = new Map(
    plan.nodes
      .filter((n) => n.os === 'windows')
      .map((n) => [n.name, windowsCniConfig(plan, n) as unknown]),
  );
  let dns = true;
  runner.on(/route show exact/, { stdout: ROUTE });
  runner.on(/link show dev eth0/, { stdout: '[{"mtu":1500}]' });
  runner.on(/fdb show/, { stdout: '[{"mac":"0e:6c:00:00:00:00","dst":"192.168.200.10"}]' });
  return {
    plan,
    shell: (node) => new NetnsNodeShell(node, `ns-${node}`, runner),
    cluster: {
      windowsCniConfig: (node) => structuredClone(configs.get(node)),
      setWindowsCniConfig: (node, config) => Promise.resolve(void configs.set(node, config)),
      staleProxyView: () => [],
      setStaleProxyView: () => Promise.resolve(),
      ignoresLocalPolicy: () => false,
      setIgnoresLocalPolicy: () => Promise.resolve(),
      keepsEndpoints: () => false,
      setKeepsEndpoints: () => Promise.resolve(),
      nodeFlag: () => false,
      setNodeFlag: () => Promise.resolve(),
      pinnedDns: () => undefined,
      setPinnedDns: () => Promise.resolve(),
      clusterDnsEndpoints: () => ['10.244.0.2'],
      proxyQuirks: () => [],
      setProxyQuirks: () => Promise.resolve(),
      bareCname: () => false,
      setBareCname: () => Promise.resolve(),
    },
    dns: {
      running: () => Promise.resolve(dns),
      stop: () => Promise.resolve(void (dns = false)),
      start: () => Promise.resolve(void (dns = true)),
    },
    records: new FaultRecords(dir, plan.id, 'up'),
    log: silentLogger(),
  };
}

/**
 * A suite that fails exactly the cells the catalogue names (minus `miss`) while a fault is applied,
 * and `leftRed` from the first heal on; `runs` gets each run's label and how many cells it ran.
 */
function fakeSuite(
  options: {
    miss?: string;
    dirty?: boolean;
    failingMs?: number;
    leftRed?: string;
    runs?: string[];
    envs?: string[];
  } = {},
) {
  // SUITE=perf runs the perf cells (a ring, as `npm run perf` takes): the link faults' witnesses.
  const perf = expandCells(PERF_MATRIX, plan.nodes, { mode: 'ring', peers: 1, rotation: 0 }).filter(
    (c) => c.probe !== undefined,
  );
  let healed = false;
  return (dir: string, grep?: string, env: Record<string, string> = {}): Promise<SuiteRun> => {
    const label = basename(dir).replace(/^\d+-/, '');
    // The rows the run's settings turn on, as the suite would plan them.
    const nodes = env.DISRUPTION_NODES?.split(',') ?? [];
    const witness =
      env.DISRUPTIONS === 'on' ? 'disruptions' : env.OVER_TIME === 'on' ? 'over-time' : undefined;
    const planned = env.SUITE === 'perf' ? perf : suiteCells(plan, witness, nodes);
    options.envs?.push(`${label} ${JSON.stringify(env)}`);
    const cells = planned.filter(
      (c) => grep === undefined || new RegExp(grep).test(`suite ${c.meta.title}`),
    );
    options.runs?.push(`${label} ${cells.length}`);
    healed ||= label.endsWith('-healed');
    const faulted = label !== 'baseline' && label !== 'final' && !label.endsWith('-healed');
    // `<fault>` or `<fault>-<node>`: the runner names each run after the fault and its node.
    const node = plan.nodes.find((n) => label.endsWith(`-${n.name}`))?.name;
    const id = node === undefined ? label : label.slice(0, -node.length - 1);
    const fault = faulted ? findFault(id) : undefined;
    const impact = fault?.impact(plan, resolveTargets(fault, plan, node));
    const failOutcome = (impact?.outcomes ?? ['timeout'])[0] ?? 'timeout';
    const results = cells.map((c): CellResult => {
      const fails =
        impact !== undefined &&
        expectationOf(impact, c.meta) === 'must-fail' &&
        c.meta.cell !== options.miss;
      const dirty =
        (options.dirty === true && label === 'baseline' && c.meta.cell.startsWith('dns/')) ||
        (healed && c.meta.cell === options.leftRed);
      return {
        ...c.meta,
        expected: 'ok',
        verdict: fails || dirty ? 'fail' : 'pass',
        actual: fails ? (failOutcome as CellResult['expected']) : 'ok',
        detail: '',
        durationMs: fails ? (options.failingMs ?? 1) : 1,
        attempts: 1,
      };
    });
    return Promise.resolve({
      resultsDir: dir,
      exitCode: 0,
      timedOut: false,
      durationMs: 5,
      cells: results,
    });
  };
}

/** The pod-to-nodeport cells that reach the NodePort through `node`'s address, from every pod. */
function podsToNodePortOf(node: string): string[] {
  return expandCells(MATRIX, plan.nodes)
    .filter((c) => c.probe !== undefined && c.meta.row.startsWith('pod-to-nodeport/'))
    .map((c) => c.meta.cell)
    .filter((cell) => cell.endsWith(`/${node}/node-ip`));
}

/**
 * What the faults really break on the fixture lab (cp1, lin1: Linux; win1, win2: Windows), written
 * out by hand from what each does, not derived from the catalogue the runner judges with. NodePort
 * rules removed on a node: its NodePort cells (pods' too, through its address), and its Local cell
 * where it has a local endpoint (win1, cp1); masquerade off on a Linux node: its pods' outbound
 * NAT, TCP and ICMP, and the ExternalName (its CNAME leads to the external echo).
 */
const BROKEN: Record<string, { cells: string[]; actual: CellResult['expected'] }> = {
  'nodeport-rules-removed-win1': {
    actual: 'refused',
    cells: [
      'host-network-to-own-nodeport/windows/win1/node-ip',
      'nodeport/external-to-windows-node/win1/node-ip',
      'nodeport-udp/external-to-windows-node/win1/node-ip',
      'nodeport-local/external-to-windows-node/win1/node-ip',
      ...podsToNodePortOf('win1'),
    ],
  },
  'nodeport-rules-removed-win2': {
    actual: 'refused',
    cells: [
      'host-network-to-own-nodeport/windows/win2/node-ip',
      'nodeport/external-to-windows-node/win2/node-ip',
      'nodeport-udp/external-to-windows-node/win2/node-ip',
      ...podsToNodePortOf('win2'),
    ],
  },
  'nodeport-rules-removed-lin1': {
    actual: 'refused',
    cells: [
      'host-network-to-own-nodeport/linux/lin1/node-ip',
      'nodeport/external-to-linux-node/lin1/node-ip',
      'nodeport-udp/external-to-linux-node/lin1/node-ip',
      ...podsToNodePortOf('lin1'),
    ],
  },
  'nodeport-rules-removed-cp1': {
    actual: 'refused',
    cells: [
      'host-network-to-own-nodeport/linux/cp1/node-ip',
      'nodeport/external-to-linux-node/cp1/node-ip',
      'nodeport-udp/external-to-linux-node/cp1/node-ip',
      'nodeport-local/external-to-linux-node/cp1/node-ip',
      ...podsToNodePortOf('cp1'),
    ],
  },
  'masquerade-off-lin1': {
    actual: 'timeout',
    cells: [
      'outbound-nat/linux/lin1/ip',
      'icmp-outbound/linux/lin1/ip',
      'external-name/linux/lin1/dns',
    ],
  },
  'masquerade-off-cp1': {
    actual: 'timeout',
    cells: [
      'outbound-nat/linux/cp1/ip',
      'icmp-outbound/linux/cp1/ip',
      'external-name/linux/cp1/dns',
    ],
  },
};

/** A suite on a lab where each run's fault breaks what BROKEN says (with `extra` red too). */
function brokenLabSuite(extra: Record<string, string> = {}) {
  const all = expandCells(MATRIX, plan.nodes).filter((c) => c.probe !== undefined);
  return (dir: string, grep?: string): Promise<SuiteRun> => {
    const label = basename(dir).replace(/^\d+-/, '');
    const broken = BROKEN[label];
    const cells = all
      .filter((c) => grep === undefined || new RegExp(grep).test(`suite ${c.meta.title}`))
      .map((c): CellResult => {
        const red =
          broken !== undefined &&
          (broken.cells.includes(c.meta.cell) || extra[label] === c.meta.cell);
        return {
          ...c.meta,
          expected: 'ok',
          verdict: red ? 'fail' : 'pass',
          actual: red ? broken.actual : 'ok',
          detail: '',
          durationMs: 1,
          attempts: 1,
        };
      });
    return Promise.resolve({ resultsDir: dir, exitCode: 0, timedOut: false, durationMs: 5, cells });
  };
}

describe('self-test runner', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-selftest-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('judges every fault, heals each, and passes when the suite fails exactly the named cells', async () => {
    const runner = new RecordingRunner();
    const report = await runSelftest({
      session: session(dir, runner),
      suite: fakeSuite(),
      runsDir: dir,
    });
    expect(report.faults.map((f) => f.status)).to.deep.equal(report.faults.map(() => 'exact'));
    expect(report.ok).to.be.true;
    expect(report.totals).to.include({
      missedCells: 0,
      falseAlarms: 0,
      notExercised: 0,
      healedGreen: report.faults.length,
    });
    // Node faults run on the first and last node of each OS: win1, win2, lin1, cp1.
    const routeRuns = report.faults.filter((f) => f.fault === 'pod-route-removed');
    expect(routeRuns.map((f) => f.nodes.join())).to.deep.equal(['win1', 'win2', 'lin1', 'cp1']);
    // Each run deleted the route to its node on the 3 others and put it back.
    expect(runner.lines().filter((l) => l.includes('route replace'))).to.have.length(4 * 3);
    const md = renderSelftestMarkdown(report);
    expect(md)
      .to.contain('EMULATED')
      .and.contain('**PASS**')
      .and.contain('| F1 | pod-route-removed | win1 | exact |')
      .and.contain('| F2 | pod-route-removed | win2 | exact |');
  });

  it('runs a fault time shows with the rows it needs, and the disruption phase on its own node', async () => {
    const envs: string[] = [];
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ envs }),
      runsDir: dir,
      faults: ['masquerade-off', 'udp-conntrack-kept', 'dns-pinned-after-move'],
    });
    expect(report.faults.map((f) => `${f.fault} ${f.nodes.join()} ${f.status}`)).to.deep.equal([
      'masquerade-off lin1 exact',
      'masquerade-off cp1 exact',
      ...['win1', 'win2', 'lin1', 'cp1'].map((n) => `udp-conntrack-kept ${n} exact`),
      ...['win1', 'win2', 'lin1', 'cp1'].map((n) => `dns-pinned-after-move ${n} exact`),
    ]);
    const off = '{"OVER_TIME":"off","DISRUPTIONS":"off"}';
    const overTime = '{"OVER_TIME":"on","DISRUPTIONS":"off"}';
    const disrupt = (nodes: string) =>
      `{"OVER_TIME":"on","DISRUPTIONS":"on","DISRUPTION_NODES":"${nodes}"}`;
    expect(envs).to.include.members([
      `baseline ${disrupt('win1,win2,lin1,cp1')}`,
      `masquerade-off-lin1 ${off}`,
      `masquerade-off-lin1-healed ${off}`,
      `udp-conntrack-kept-win2 ${overTime}`,
      `udp-conntrack-kept-win2-healed ${overTime}`,
      `dns-pinned-after-move-lin1 ${disrupt('lin1')}`,
      `dns-pinned-after-move-lin1-healed ${disrupt('lin1')}`,
      `final ${disrupt('win1,win2,lin1,cp1')}`,
    ]);
  });

  it('--witness runs only the faults those suites witness, names the others, and the baseline needs no more', async () => {
    const envs: string[] = [];
    const said: string[] = [];
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ envs }),
      runsDir: dir,
      faults: ['masquerade-off', 'udp-conntrack-kept', 'dns-pinned-after-move'],
      witnesses: ['matrix', 'perf'],
      say: (line) => said.push(line),
    });
    expect(report.faults.map((f) => `${f.fault} ${f.nodes.join()}`)).to.deep.equal([
      'masquerade-off lin1',
      'masquerade-off cp1',
    ]);
    expect(said).to.include(
      'left out, witnessed by other suites than --witness names: udp-conntrack-kept (over-time), dns-pinned-after-move (disruptions)',
    );
    expect(envs).to.include('baseline {"OVER_TIME":"off","DISRUPTIONS":"off"}');
    said.length = 0;
    const only = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite(),
      runsDir: dir,
      faults: ['masquerade-off', 'udp-conntrack-kept'],
      witnesses: ['over-time'],
      say: (line) => said.push(line),
    });
    expect(only.faults.map((f) => f.fault)).to.deep.equal(
      ['win1', 'win2', 'lin1', 'cp1'].map(() => 'udp-conntrack-kept'),
    );
    expect(said).to.include(
      'left out, witnessed by other suites than --witness names: masquerade-off (matrix)',
    );
  });

  it("--slice runs the changed faults and this turn's runs, and names the others in the report", async () => {
    const said: string[] = [];
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite(),
      runsDir: dir,
      faults: ['pod-route-removed', 'masquerade-off'],
      slice: { changed: new Set(['masquerade-off']), commitNumber: 6 },
      say: (line) => said.push(line),
    });
    // Planned: route win1, win2, lin1, cp1 (0-3), masquerade lin1, cp1 (4-5); turn 3 of 4 is 2.
    expect(report.faults.map((f) => `${f.fault} ${f.nodes.join()}`)).to.deep.equal([
      'pod-route-removed lin1',
      'masquerade-off lin1',
      'masquerade-off cp1',
    ]);
    expect(report.ok).to.be.true;
    expect(report.slice).to.deep.equal({
      turn: 3,
      turns: 4,
      changed: ['masquerade-off'],
      leftOut: [
        'pod-route-removed on win1',
        'pod-route-removed on win2',
        'pod-route-removed on cp1',
      ],
    });
    expect(said.join('\n')).to.contain('slice: turn 3 of 4, 3 of 6 runs');
    expect(renderSelftestMarkdown(report)).to.contain(
      "CI's share: turn 3 of 4 of the rotation, plus every run of the faults this change touched (masquerade-off). Left to the other turns and the nightly (3): pod-route-removed on win1,",
    );
  });

  it('expects of each fault what it really breaks: exact on a lab broken as written out by hand', async () => {
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: brokenLabSuite(),
      runsDir: dir,
      faults: ['nodeport-rules-removed', 'masquerade-off'],
    });
    expect(report.faults.map((f) => `${f.fault}-${f.nodes.join()} ${f.status}`)).to.deep.equal([
      'nodeport-rules-removed-win1 exact',
      'nodeport-rules-removed-win2 exact',
      'nodeport-rules-removed-lin1 exact',
      'nodeport-rules-removed-cp1 exact',
      'masquerade-off-lin1 exact',
      'masquerade-off-cp1 exact',
    ]);
    for (const f of report.faults) {
      const cells = BROKEN[`${f.fault}-${f.nodes.join()}`]!.cells;
      expect(f.detection!.counts, f.fault).to.include({
        mustFail: cells.length,
        detected: cells.length,
        falseAlarms: 0,
      });
    }
    expect(report.ok).to.be.true;
  });

  it('a cell the fault did not break but the suite failed is a false alarm', async () => {
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: brokenLabSuite({
        'nodeport-rules-removed-win2': 'nodeport/external-to-windows-node/win1/node-ip',
      }),
      runsDir: dir,
      faults: ['nodeport-rules-removed'],
    });
    expect(report.faults.map((f) => f.status)).to.deep.equal([
      'exact',
      'problems',
      'exact',
      'exact',
    ]);
    expect(report.totals.falseAlarms).to.equal(1);
    expect(report.ok).to.be.false;
  });

  it('runs only the red cells after a heal, and the whole suite after the last one', async () => {
    const runs: string[] = [];
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ runs }),
      runsDir: dir,
      faults: ['masquerade-off'],
    });
    const total = expandCells(MATRIX, plan.nodes).filter((c) => c.probe !== undefined).length;
    const red = report.faults.map((f) => f.detection!.counts.detected);
    expect(runs).to.deep.equal([
      `baseline ${total}`,
      `masquerade-off-lin1 ${total}`,
      `masquerade-off-lin1-healed ${red[0]}`,
      `masquerade-off-cp1 ${total}`,
      `masquerade-off-cp1-healed ${red[1]}`,
      `final ${total}`,
    ]);
    expect(red[0]).to.be.greaterThan(0);
    expect(report.final).to.include({ green: true });
    expect(report.ok).to.be.true;
  });

  it('selects exactly the named cells by their full titles, "+" and "." taken literally', () => {
    const churn = 'churn linux-to-linux scaled-back lin1-to-cp1+lin1 via cluster-ip';
    const grep = new RegExp(titlesGrep([churn, 'dns fqdn from linux lin1 via dns']));
    expect(grep.test(`hybrid matrix ${churn}`)).to.be.true;
    expect(grep.test('hybrid matrix dns fqdn from linux lin1 via dns')).to.be.true;
    expect(
      grep.test('hybrid matrix churn linux-to-linux scaled-back lin1-to-cp11lin1 via cluster-ip'),
    ).to.be.false;
    expect(grep.test(`hybrid matrix ${churn} (again)`)).to.be.false;
    expect(grep.test('hybrid matrix dns fqdn from linux lin1 via dnsx')).to.be.false;
  });

  it('a heal that leaves another cell red fails the self-test in the whole run after the last heal', async () => {
    const leftRed = 'dns/short-name/linux/lin1/dns';
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ leftRed }),
      runsDir: dir,
      faults: ['masquerade-off'],
    });
    // The next fault's run sees it as a false alarm; the final run names it.
    expect(report.faults.map((f) => f.status)).to.deep.equal(['exact', 'problems']);
    expect(report.final).to.deep.include({ green: false, failing: [leftRed] });
    expect(report.ok).to.be.false;
    expect(renderSelftestMarkdown(report)).to.contain(
      `The whole suite after the last heal: **NOT GREEN** (${leftRed})`,
    );
  });

  it('a cell the suite did not see is a missed detection and fails the self-test', async () => {
    const miss = 'nodeport/external-to-windows-node/win1/node-ip';
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ miss }),
      runsDir: dir,
      faults: ['nodeport-rules-removed', 'masquerade-off'],
    });
    expect(report.faults.map((f) => `${f.fault} ${f.nodes.join()} ${f.status}`)).to.deep.equal([
      'nodeport-rules-removed win1 problems',
      'nodeport-rules-removed win2 exact',
      'nodeport-rules-removed lin1 exact',
      'nodeport-rules-removed cp1 exact',
      'masquerade-off lin1 exact',
      'masquerade-off cp1 exact',
    ]);
    expect(report.totals.missedCells).to.equal(1);
    expect(report.ok).to.be.false;
    expect(renderSelftestMarkdown(report)).to.contain(`**missed** \`${miss}\``);
  });

  it('a fault whose failing probes outlast a probe attempt made the suite hang: a problem', async () => {
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ failingMs: 9000 }),
      runsDir: dir,
      faults: ['dns-stopped'],
      attemptLimitMs: 5000,
    });
    expect(report.faults.map((f) => f.status)).to.deep.equal(['problems']);
    expect(report.faults[0]!.reason).to.match(/took 9000 ms, over the 5000 ms/);
    expect(report.ok).to.be.false;
  });

  it('judges nothing when the lab is not green to begin with', async () => {
    const report = await runSelftest({
      session: session(dir, new RecordingRunner()),
      suite: fakeSuite({ dirty: true }),
      runsDir: dir,
      faults: ['dns-stopped'],
    });
    expect(report.baseline.green).to.be.false;
    expect(report.faults[0]).to.include({ status: 'not-run' });
    expect(report.ok).to.be.false;
  });

  it('a failed heal stops the run: the lab is in an unknown state', async () => {
    const runner = new RecordingRunner();
    runner.on(/nft delete table ip hlfault_nodeport/, { exitCode: 1, stderr: 'Error: injected' });
    const report = await runSelftest({
      session: session(dir, runner),
      suite: fakeSuite(),
      runsDir: dir,
      faults: ['nodeport-rules-removed', 'masquerade-off'],
    });
    expect(report.faults.map((f) => f.status)).to.deep.equal([
      'error',
      ...Array<string>(5).fill('not-run'),
    ]);
    expect(report.faults[0]?.reason).to.match(/heal failed: [\s\S]*injected/);
    expect(report.totals.healedGreen, 'a failed heal is no green heal').to.equal(0);
    expect(renderSelftestMarkdown(report)).to.contain(
      '| F1 | nodeport-rules-removed | win1 | error |',
    );
    expect(report.ok).to.be.false;
  });

  it('refuses to start on a lab with faults applied', async () => {
    const s = session(dir, new RecordingRunner());
    s.records.write([{ fault: 'dns-stopped', nodes: [], appliedAt: 'now', undo: [] }]);
    const error = await runSelftest({ session: s, suite: fakeSuite(), runsDir: dir }).catch(
      (e: unknown) => e,
    );
    expect(error)
      .to.be.instanceOf(FaultError)
      .with.property('message')
      .that.matches(/faults applied: dns-stopped/);
  });
});
