import { expect } from 'chai';
import type { CellResult } from '../../../lab/contracts/results-file.ts';
import type { DisruptionAction } from '../../../lab/contracts/disruptions.ts';
import type { CellPlan } from '../../model/cell-plan.ts';
import type { LabDriver, ProbeReply, SuiteNode } from '../../model/lab-driver.ts';
import type { Disruptor, HeldConnections, OverTimeDriver } from '../../model/over-time-driver.ts';
import { Slots } from '../slots.ts';
import type { Profile } from '../profile.ts';
import { fakeWorkloads } from '../../testing/fake-workloads.ts';
import { overTimeSettings } from './over-time-settings.ts';
import { selectionFromArgv } from '../selection.ts';
import type { DisruptionCell } from './disruption-cells.ts';
import { BACK_ON_RETURN, runDisruptionPhase } from './disruption-phase.ts';
import type { OverTimeContext } from './over-time-context.ts';
import type { HeldCell } from './over-time-cells.ts';

const NODES: SuiteNode[] = [
  { name: 'lin1', os: 'linux', role: 'worker', ip: '192.168.200.11' },
  { name: 'lin2', os: 'linux', role: 'worker', ip: '192.168.200.12' },
];
const WORKLOADS = fakeWorkloads(NODES);
const PROFILE: Profile = {
  name: 'test',
  description: 'test',
  unexpectedPass: 'fail',
  expectations: [],
  recovery: [{ action: 'kube-proxy-restart', os: 'linux', boundMs: 400, reason: 'a test bound' }],
};

/** What the fake lab saw, in order: disruptions made and probes sent. */
type Seen = string[];

/** A matrix cell from lin1's `a` pod to `target`; its probe asks /hostname. */
function matrixCell(id: string, target: string): CellPlan {
  return {
    meta: {
      row: id.split('/').slice(0, 2).join('/'),
      cell: id,
      title: id,
      source: { os: 'linux', node: 'lin1', label: 'linux pod' },
      target: { os: 'linux', node: 'lin2', label: 'linux pod' },
      via: 'ip',
      placement: 'cross-node',
    },
    probe: () => ({
      from: 'netexec-lin1-a',
      request: { kind: 'http', url: `http://${target}/hostname` },
      check: { kind: 'responds' },
    }),
  };
}

function reprobe(action: DisruptionAction, original: CellPlan): DisruptionCell {
  return {
    kind: 'reprobe',
    meta: { ...original.meta, cell: `disruption/${action}/lin1/${original.meta.cell}` },
    disruption: { action, subject: 'lin1' },
    original,
  };
}

interface FakeLab {
  /** Probes to this host fail until it has been asked this many times. */
  failFirst: Record<string, number>;
  unsupported?: string;
  disruptError?: string;
  backOnReturn?: boolean;
  /** What the held connection's server answers to /clientip after the disruption. */
  seenAfter?: string;
}

function context(lab: FakeLab, seen: Seen, results: CellResult[]): OverTimeContext {
  const asked = new Map<string, number>();
  const driver = {
    probeFromPod: (_pod: unknown, request: { url: string }): Promise<ProbeReply> => {
      const host = new URL(request.url).host;
      const n = (asked.get(host) ?? 0) + 1;
      asked.set(host, n);
      seen.push(`probe ${host}`);
      return Promise.resolve(
        n > (lab.failFirst[host] ?? 0) ? { result: 'ok', body: 'x' } : { result: 'timeout' },
      );
    },
  } as unknown as LabDriver;
  let disrupted = false;
  const held: HeldConnections = {
    unsupported: () => undefined,
    open: () => Promise.resolve({ id: '1' }),
    ask: (_id, question) => {
      seen.push(`ask ${question}`);
      const body =
        question === '/hostname'
          ? 'server'
          : disrupted && lab.seenAfter !== undefined
            ? lab.seenAfter
            : '10.244.0.10:4000';
      return Promise.resolve({ result: 'ok', body });
    },
    close: () => Promise.resolve(),
  };
  const disruptor: Disruptor = {
    backOnReturn: lab.backOnReturn ?? false,
    unsupported: () => lab.unsupported,
    disrupt: (action, subject) => {
      seen.push(`disrupt ${action} ${subject}`);
      disrupted = true;
      return lab.disruptError === undefined
        ? Promise.resolve({ settled: Promise.resolve() })
        : Promise.reject(new Error(lab.disruptError));
    },
    restore: () => {
      seen.push('restore');
      return Promise.resolve();
    },
  };
  const overTime = { held, disruptor, settleMs: 0 } as unknown as OverTimeDriver;
  return {
    driver,
    overTime,
    settings: {
      profile: PROFILE,
      timeoutMs: 100,
      retries: 2,
      overTime: overTimeSettings({ DISRUPTIONS: 'on' }, selectionFromArgv([])),
    },
    slots: new Slots(4),
    workloads: () => WORKLOADS,
    refresh: () => Promise.resolve(WORKLOADS),
    expectation: () => ({ expected: 'ok' }),
    done: (result) => results.push(result),
    say: () => undefined,
  };
}

const HELD: HeldCell = {
  family: 'long-lived',
  meta: {
    ...matrixCell('long-lived-pod-to-pod/linux-to-linux/cross-node/lin1/lin2/ip', 'x').meta,
  },
  from: 'netexec-lin1-a',
  target: () => ({
    held: { kind: 'http', host: '10.244.1.10', port: 8080 },
    client: '10.244.0.10',
  }),
};

describe('the disruption phase', function () {
  this.timeout(20_000);
  const sequence = [{ action: 'kube-proxy-restart' as const, subject: 'lin1' }];

  it('probes the cells after the action, until green, and times them from its start', async () => {
    const seen: Seen = [];
    const results: CellResult[] = [];
    const cells = [
      reprobe('kube-proxy-restart', matrixCell('pod-to-pod/a', '10.0.0.1')),
      reprobe('kube-proxy-restart', matrixCell('pod-to-pod/b', '10.0.0.2')),
    ];
    await runDisruptionPhase(
      context({ failFirst: { '10.0.0.2': 2 } }, seen, results),
      sequence,
      cells,
      NODES,
    );
    expect(seen[0]).to.equal('disrupt kube-proxy-restart lin1');
    expect(seen.at(-1)).to.equal('restore');
    const b = results.find((r) => r.cell.endsWith('/b'))!;
    expect(b.verdict).to.equal('pass');
    expect(b.attempts).to.equal(3);
    expect(b.recovery).to.include({ after: 'kube-proxy-restart', subject: 'lin1', boundMs: 400 });
    expect(b.recovery?.boundFrom).to.equal('profile test: a test bound');
    // Two failed attempts a second apart came before it.
    expect(b.recovery?.timeToGreenMs).to.be.at.least(1900);
    expect(results.find((r) => r.cell.endsWith('/a'))?.recovery?.timeToGreenMs).to.be.below(1000);
  });

  it('fails a cell still red on an attempt begun after the bound, with no time to green', async () => {
    const results: CellResult[] = [];
    const cells = [reprobe('kube-proxy-restart', matrixCell('pod-to-pod/c', '10.0.0.3'))];
    await runDisruptionPhase(
      context({ failFirst: { '10.0.0.3': 100 } }, [], results),
      sequence,
      cells,
      NODES,
    );
    expect(results[0]).to.include({ verdict: 'fail', actual: 'timeout' });
    expect(results[0]!.recovery?.timeToGreenMs).to.equal(undefined);
    expect(results[0]!.attempts).to.be.at.least(3);
  });

  it('takes no bound on a lab whose actions are whole when they return: the cell retries only', async () => {
    const results: CellResult[] = [];
    const cells = [reprobe('node-reboot', matrixCell('pod-to-pod/d', '10.0.0.4'))];
    const lab = { failFirst: { '10.0.0.4': 100 }, backOnReturn: true };
    await runDisruptionPhase(
      context(lab, [], results),
      [{ action: 'node-reboot', subject: 'lin1' }],
      cells,
      NODES,
    );
    expect(results[0]).to.include({ verdict: 'fail', attempts: 3 });
    expect(results[0]!.recovery).to.include({ boundMs: 0, boundFrom: BACK_ON_RETURN });
  });

  it('skips every cell of an action the lab cannot make, saying why, and makes nothing', async () => {
    const seen: Seen = [];
    const results: CellResult[] = [];
    const cells = [reprobe('kube-proxy-restart', matrixCell('pod-to-pod/e', '10.0.0.5'))];
    await runDisruptionPhase(
      context({ failFirst: {}, unsupported: 'not here' }, seen, results),
      sequence,
      cells,
      NODES,
    );
    expect(results[0]).to.include({ verdict: 'skipped', reason: 'not here' });
    expect(seen.filter((s) => s.startsWith('disrupt') || s.startsWith('probe'))).to.deep.equal([]);
  });

  it('fails the cells of an action that could not be made, with its error', async () => {
    const results: CellResult[] = [];
    const cells = [reprobe('kube-proxy-restart', matrixCell('pod-to-pod/f', '10.0.0.6'))];
    await runDisruptionPhase(
      context({ failFirst: {}, disruptError: 'no kube-proxy pod' }, [], results),
      sequence,
      cells,
      NODES,
    );
    expect(results[0]).to.include({ verdict: 'fail', actual: 'error' });
    expect(results[0]!.detail).to.contain('no kube-proxy pod');
  });

  it('asks a connection held through the action again on the same connection', async () => {
    const through = () => ({
      kind: 'held' as const,
      meta: { ...HELD.meta, cell: `disruption/kube-proxy-restart/lin1/${HELD.meta.cell}` },
      disruption: sequence[0]!,
      original: HELD,
    });
    const kept: CellResult[] = [];
    const seen: Seen = [];
    await runDisruptionPhase(context({ failFirst: {} }, seen, kept), sequence, [through()], NODES);
    expect(kept[0]).to.include({ verdict: 'pass' });
    // Opened (and asked) before the disruption, asked again after it.
    expect(seen.indexOf('disrupt kube-proxy-restart lin1')).to.be.above(
      seen.indexOf('ask /clientip'),
    );
    expect(seen.lastIndexOf('ask /clientip')).to.be.above(
      seen.indexOf('disrupt kube-proxy-restart lin1'),
    );
    const broken: CellResult[] = [];
    await runDisruptionPhase(
      context({ failFirst: {}, seenAfter: '10.244.0.10:5000' }, [], broken),
      sequence,
      [through()],
      NODES,
    );
    expect(broken[0]).to.include({ verdict: 'fail', actual: 'wrong-answer' });
    expect(broken[0]!.detail).to.contain('not the same connection');
  });
});
