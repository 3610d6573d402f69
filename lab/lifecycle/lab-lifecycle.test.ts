import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LabError, ProviderError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import { PlainProgress } from '../log/progress.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import type { LabProvider, ReapOptions, StartedLab } from '../providers/lab-provider.ts';
import type { PreflightProblem } from '../errors.ts';
import { validateSpec, type LoadedSpec } from '../spec/load-spec.ts';
import { expandShorthand } from '../spec/shorthand.ts';
import { LabStore } from '../state/lab-store.ts';
import { labDown, labReap, labUp } from './lab-lifecycle.ts';

/** A provider that records what it was asked; unit level only. */
class FakeProvider implements LabProvider {
  readonly name = 'netns' as const;
  readonly events: string[] = [];
  problems: PreflightProblem[] = [];
  failUp = false;
  labIds: string[] = [];

  preflight(): Promise<PreflightProblem[]> {
    return Promise.resolve(this.problems);
  }
  up(plan: LabPlan): Promise<StartedLab> {
    this.events.push(`up ${plan.id}`);
    return this.failUp ? Promise.reject(new Error('bridge exploded')) : this.attach(plan);
  }
  attach(plan: LabPlan): Promise<StartedLab> {
    const events = this.events;
    const lab: StartedLab = {
      plan,
      cluster: undefined,
      outside: undefined,
      down: () => {
        events.push(`down ${plan.id}`);
        return Promise.resolve();
      },
      status: () =>
        Promise.resolve({ provider: 'netns', emulated: true, ready: true, nodes: [], facts: {} }),
      nodeShell: () => ({ node: 'x', exec: () => Promise.reject(new Error('unused')) }),
      shellCommand: () => [],
      [Symbol.asyncDispose]: () => lab.down(),
    };
    return Promise.resolve(lab);
  }
  reap(labId?: string, options: ReapOptions = {}): Promise<string[]> {
    const older = options.olderThanMs === undefined ? '' : ` older than ${options.olderThanMs} ms`;
    this.events.push(`reap ${labId ?? '*'}${older}`);
    return Promise.resolve([]);
  }
  listLabIds(): Promise<string[]> {
    return Promise.resolve(this.labIds);
  }
}

function spec(shorthand: string, name = 't'): LoadedSpec {
  const data = { ...expandShorthand(shorthand), name };
  return { spec: validateSpec(data, 'test'), source: 'test', text: JSON.stringify(data) };
}

describe('lab lifecycle (fake provider)', () => {
  let store: LabStore;
  let fake: FakeProvider;
  beforeEach(() => {
    store = new LabStore(join(mkdtempSync(join(tmpdir(), 'hl-life-')), '.lab'));
    fake = new FakeProvider();
  });

  const opts = () => ({
    store,
    providers: () => fake,
    providerNames: ['netns' as const],
    progress: (log: Logger) => new PlainProgress(log, () => undefined),
  });

  it('records spec, plan, state and current, and is idempotent for the same plan', async () => {
    const first = await labUp(spec('k8s-netns-1-1-1'), opts());
    expect(first.alreadyUp).to.equal(false);
    const paths = store.paths('t');
    expect(existsSync(paths.spec) && existsSync(paths.plan)).to.equal(true);
    expect(store.readState('t')?.phase).to.equal('up');
    expect(store.current()).to.equal('t');
    const second = await labUp(spec('k8s-netns-1-1-1'), opts());
    expect(second.alreadyUp).to.equal(true);
    expect(fake.events.filter((e) => e.startsWith('up'))).to.have.length(1);
  });

  it('refuses a different plan for a lab that is up, and says how to proceed', async () => {
    await labUp(spec('k8s-netns-1-1-1'), opts());
    const error = await labUp(spec('k8s-netns-1-2-1'), opts()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LabError);
    expect((error as LabError).message).to.contain('different plan');
    expect((error as LabError).hint).to.contain('lab:down');
  });

  it('reports every preflight problem and creates nothing', async () => {
    fake.problems = [
      { what: 'not root', fix: 'run as root' },
      { what: 'no ip', fix: 'apt-get install iproute2' },
    ];
    const error = await labUp(spec('k8s-netns-1-1-1'), opts()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProviderError);
    expect((error as ProviderError).message)
      .to.contain('not root')
      .and.contain('no ip');
    expect(fake.events).to.deep.equal([]);
    expect(store.readState('t')?.phase).to.equal('failed');
  });

  it('marks a failed bring-up and sweeps it before the next try', async () => {
    fake.failUp = true;
    await labUp(spec('k8s-netns-1-1-1'), opts()).catch(() => undefined);
    expect(store.readState('t')).to.include({ phase: 'failed' });
    expect(store.readState('t')?.error).to.contain('bridge exploded');
    fake.failUp = false;
    await labUp(spec('k8s-netns-1-1-1'), opts());
    expect(fake.events).to.deep.equal(['up hl-t', 'reap hl-t', 'up hl-t']);
  });

  it('downs the lab, sweeps by id, clears current and keeps the log', async () => {
    await labUp(spec('k8s-netns-1-1-1'), opts());
    await labDown('t', opts());
    expect(fake.events.slice(-2)).to.deep.equal(['down hl-t', 'reap hl-t']);
    expect(store.readState('t')?.phase).to.equal('down');
    expect(store.current()).to.equal(undefined);
    expect(readFileSync(store.paths('t').harnessLog, 'utf8')).to.contain('lab is down');
  });

  it('reaps orphans but never a lab that is up', async () => {
    await labUp(spec('k8s-netns-1-1-1', 'live'), opts());
    fake.labIds = ['hl-live', 'hl-orphan'];
    await labReap(opts());
    expect(fake.events).to.include('reap hl-orphan').and.not.include('reap hl-live');
  });

  it("hands the age of others' runs (`lab reap --older-than`) to every provider's reap", async () => {
    fake.labIds = ['hl-existing'];
    await labReap({ ...opts(), olderThanMs: 21_600_000 });
    expect(fake.events).to.include('reap hl-existing older than 21600000 ms');
  });
});
