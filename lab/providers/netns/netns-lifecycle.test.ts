/** Integration: all-or-nothing up, reaping abandoned labs, and the time a 5-node lab takes. */
import { expect } from 'chai';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { CommandError, ProviderError } from '../../errors.ts';
import type { CommandRunner, RunOptions } from '../../exec/command-runner.ts';
import { RecordingRunner } from '../../testing/recording-runner.ts';
import { fixturePlan, HYBRID_NODES } from '../../testing/fixture-plan.ts';
import { netnsPreflight } from './netns-preflight.ts';
import { NetnsProvider } from './netns-provider.ts';
import {
  emulatedCluster,
  alivePids,
  labNamespaces,
  labPids,
  netnsSkipReason,
  reapStaleTestLabs,
  removeTestStateDirs,
  testContext,
  testLabId,
} from '../../testing/netns-host.ts';
import { skipIf } from '../../testing/skip.ts';

/** Delegates to a real runner but fails the calls whose argv matches; records spawned PIDs. */
function failingRunner(
  real: CommandRunner,
  fail: RegExp,
  error: Error,
  spawned: number[] = [],
): CommandRunner {
  return {
    addSecret: (secret) => {
      real.addSecret(secret);
    },
    spawn: async (file, args, options) => {
      const proc = await real.spawn(file, args, options);
      spawned.push(proc.pid);
      return proc;
    },
    run: (file: string, args: readonly string[], options?: RunOptions) =>
      fail.test([file, ...args].join(' ')) ? Promise.reject(error) : real.run(file, args, options),
  };
}

describe('netns preflight', () => {
  it('tells a non-root user what is wrong and how to fix it', async () => {
    const [problem] = await netnsPreflight(new RecordingRunner(), 1000);
    expect(problem?.what).to.match(/needs root .* uid 1000/);
    expect(problem?.fix).to.contain('sudo');
  });
});

describe('netns provider lifecycle (integration)', function () {
  this.timeout(60_000);

  before(async function () {
    skipIf(this, await netnsSkipReason(testContext().runner));
    await reapStaleTestLabs(new NetnsProvider(testContext()));
  });

  after(removeTestStateDirs);

  it('a failure half-way removes everything it created and rethrows the original error', async () => {
    const context = testContext();
    const plan = fixturePlan({ id: testLabId('fail') });
    const injected = new CommandError('ip -n …coredns -batch -', 2, 'injected failure', false);
    const spawned: number[] = [];
    const runner = failingRunner(
      context.runner,
      /pod_kube-system_coredns -batch/,
      injected,
      spawned,
    );
    const provider = new NetnsProvider({ ...context, runner });
    const error = await provider.up(plan).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(CommandError);
    expect((error as CommandError).cause, 'the node shell adds the node name around it').to.equal(
      injected,
    );
    expect((error as CommandError).message).to.contain('on cp1');
    expect(await labNamespaces(context.runner, plan.prefix)).to.deep.equal([]);
    expect(spawned, 'the external echo had started').to.have.length(1);
    expect(alivePids(spawned)).to.deep.equal([]);
    expect(readdirSync('/etc/netns').filter((d) => d.startsWith(plan.prefix))).to.deep.equal([]);
    expect(existsSync(join(context.stateDir, 'netns', 'cluster.json'))).to.equal(false);
  });

  it('a failing cleanup is logged and does not hide the original error', async () => {
    const context = testContext();
    const plan = fixturePlan({ id: testLabId('fail2') });
    const lines: string[] = [];
    const log = pino(
      { level: 'error' },
      new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const original = new CommandError('ip …', 1, 'original', false);
    const runner = failingRunner(
      failingRunner(context.runner, /pod_kube-system_coredns -batch/, original),
      /^kill /,
      new Error('kill refused'),
    );
    try {
      const error = await new NetnsProvider({ ...context, runner, log }).up(plan).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as CommandError).cause).to.equal(original);
      expect(lines.join('')).to.contain('kill refused');
    } finally {
      await new NetnsProvider(context).reap(plan.id);
    }
    expect(await labNamespaces(context.runner, plan.prefix)).to.deep.equal([]);
  });

  it('refuses to come up over namespaces a previous run left', async () => {
    const context = testContext();
    const plan = fixturePlan({ id: testLabId('dup') });
    await context.runner.run('ip', ['netns', 'add', `${plan.prefix}sw`]);
    try {
      const error = await new NetnsProvider(context).up(plan).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ProviderError);
      expect((error as ProviderError).hint).to.contain(`lab reap ${plan.id}`);
      expect(await labNamespaces(context.runner, plan.prefix)).to.deep.equal([`${plan.prefix}sw`]);
    } finally {
      await new NetnsProvider(context).reap(plan.id);
    }
  });

  it('reap(labId) kills the processes and removes the namespaces of an abandoned lab, and nothing else', async () => {
    const plan = fixturePlan({ id: testLabId('reap') });
    const first = testContext();
    const lab = await new NetnsProvider(first).up(plan);
    await emulatedCluster(lab).createPod({
      name: 'orphan',
      namespace: 'default',
      node: 'win1',
      labels: {},
    });
    const neighbour = `${plan.id}-x-sw`; // the switch of lab <id>-x
    await first.runner.run('ip', ['netns', 'add', neighbour]);
    try {
      const pids = await labPids(first.runner, plan.prefix);
      expect(pids.length).to.be.greaterThan(2);
      const fresh = new NetnsProvider(testContext()); // another process, no state at all
      expect(await fresh.listLabIds()).to.include.members([plan.id, `${plan.id}-x`]);
      const removed = await fresh.reap(plan.id);
      expect(removed).to.include(`removed netns ${plan.prefix}pod_default_orphan`);
      expect(await labNamespaces(first.runner, plan.prefix)).to.deep.equal([neighbour]);
      expect(alivePids(pids)).to.deep.equal([]);
      expect(readdirSync('/etc/netns').filter((d) => d.startsWith(plan.prefix))).to.deep.equal([]);
      await lab.down(); // down after a reap is harmless
    } finally {
      await new NetnsProvider(first).reap(`${plan.id}-x`);
    }
    expect(await labNamespaces(first.runner, plan.prefix)).to.deep.equal([]);
  });

  it('brings a 5-node lab (1 cp + 2 linux + 2 windows) up in < 5 s and down in < 2 s', async () => {
    const context = testContext();
    const nodes = [
      ...HYBRID_NODES.slice(0, 2),
      { name: 'lin2', os: 'linux' as const, role: 'worker' as const },
      ...HYBRID_NODES.slice(2),
    ];
    const plan = fixturePlan({ id: testLabId('perf'), nodes });
    let started = performance.now();
    const lab = await new NetnsProvider(context).up(plan);
    const upMs = Math.round(performance.now() - started);
    // The API server stand-in's key, made at lab up, is its owner's alone.
    const key = statSync(join(context.stateDir, 'netns', 'apiserver', 'tls.key'));
    expect((key.mode & 0o777).toString(8)).to.equal('600');
    started = performance.now();
    await lab.down();
    const downMs = Math.round(performance.now() - started);
    console.log(`      5-node lab: up ${upMs} ms, down ${downMs} ms`);
    expect(upMs).to.be.lessThan(5000);
    expect(downMs).to.be.lessThan(2000);
    expect(await labNamespaces(context.runner, plan.prefix)).to.deep.equal([]);
  });
});
