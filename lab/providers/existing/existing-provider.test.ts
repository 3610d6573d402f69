import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { RecordingRunner } from '../../testing/recording-runner.ts';
import { silentLogger } from '../../log/logger.ts';
import { PlainProgress } from '../../log/progress.ts';
import { planLab } from '../../plan/plan-lab.ts';
import { validateSpec } from '../../spec/load-spec.ts';
import {
  ExistingProvider,
  type ClusterCheck,
  type NodeLister,
  type RunNamespaces,
  type WhoReaps,
} from './existing-provider.ts';
import type { RunNamespace } from './reap-decision.ts';

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]
users: [{ name: u, user: { token: secret-token-value } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
current-context: ctx
`;

describe('ExistingProvider (unit; the node list is a fake of the API)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hl-existing-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const log = silentLogger();
  const context = {
    runner: new RecordingRunner(),
    log,
    stateDir: dir,
    progress: new PlainProgress(log, () => undefined),
  };
  /** A cluster that grants every permission and has usable nodes. */
  const clusterOk: ClusterCheck = () => Promise.resolve({ problems: [], notes: [] });
  const planFor = (kubeconfig: string) =>
    planLab(validateSpec({ name: 'ex', provider: 'existing', kubeconfig }, 't'));

  it('flags a missing kubeconfig with the fix', async () => {
    const problems = await new ExistingProvider(context).preflight(planFor(join(dir, 'nope')));
    expect(problems).to.have.length(1);
    expect(problems[0]!.what).to.contain('not readable');
  });

  it('reads kubeconfig: ~/.kube/config from the home directory (the docs/spec.md example)', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), KUBECONFIG);
    const provider = new ExistingProvider(context, undefined, { HOME: home }, undefined, clusterOk);
    expect(await provider.preflight(planFor('~/.kube/config'))).to.deep.equal([]);
  });

  it('flags a kubeconfig without a usable current-context', async () => {
    const file = join(dir, 'no-context');
    writeFileSync(file, KUBECONFIG.replace('current-context: ctx', 'current-context: other'));
    const problems = await new ExistingProvider(context).preflight(planFor(file));
    expect(problems[0]!.what).to.contain('current-context');
  });

  it('reports readiness from the node list and never creates anything', async () => {
    const file = join(dir, 'good');
    writeFileSync(file, KUBECONFIG);
    const lister: NodeLister = () =>
      Promise.resolve([
        { name: 'cp1', ready: true, detail: 'linux' },
        { name: 'win1', ready: false, detail: 'windows' },
      ]);
    const provider = new ExistingProvider(
      context,
      lister,
      { KUBECONFIG: join(dir, 'absent') },
      undefined,
      clusterOk,
    );
    const lab = await provider.up(planFor(file));
    const status = await lab.status();
    expect(status).to.include({ provider: 'existing', emulated: false, ready: false });
    expect(status.nodes.map((n) => n.name)).to.deep.equal(['cp1', 'win1']);
    expect(await provider.reap()).to.deep.equal([]); // no default kubeconfig: nothing to sweep
    expect(() => lab.nodeShell('cp1')).to.throw(/no shell/);
  });

  /** This machine as the reaper sees it: ada on build1, whose process 4242 still runs. */
  const ME: WhoReaps = () => ({
    owner: 'ada',
    host: 'build1',
    alive: (pid) => pid === 4242,
    nowMs: Date.parse('2026-11-22T12:00:00Z'),
  });
  /** A run namespace of lab `lab`, started `minutes` before ME's now by `owner` on `host`. */
  const run = (
    name: string,
    lab: string,
    owner: string,
    host: string,
    minutes: number,
    pid = 1,
  ) => {
    const at = new Date(Date.parse('2026-11-22T12:00:00Z') - minutes * 60_000).toISOString();
    return { name, lab, stamp: { owner, host, startedAt: at, pid }, createdAt: at };
  };
  /** The provider over `listed`, and the namespaces it removed. */
  const reaping = (listed: RunNamespace[]) => {
    const file = join(dir, 'reap-owned');
    writeFileSync(file, KUBECONFIG);
    const removed: string[] = [];
    const said: string[] = [];
    const namespaces: RunNamespaces = {
      list: () => Promise.resolve(listed),
      remove: (_path, name) => Promise.resolve(void removed.push(name)),
    };
    const progress = new PlainProgress(log, (line) => said.push(line));
    const provider = new ExistingProvider(
      { ...context, progress },
      undefined,
      { KUBECONFIG: file },
      namespaces,
      undefined,
      ME,
    );
    return { provider, removed, said };
  };

  it('reap deletes the suite namespaces a killed run left, only those of the lab asked for', async () => {
    const file = join(dir, 'reap');
    writeFileSync(file, KUBECONFIG);
    const removed: string[] = [];
    const namespaces: RunNamespaces = {
      list: (path) => {
        expect(path).to.equal(file);
        return Promise.resolve([
          run('hybrid-lab-20261122-aaaaaa', 'prod', 'ada', 'build1', 30),
          run('hybrid-lab-20261122-bbbbbb', 'other', 'ada', 'build1', 30),
        ]);
      },
      remove: (_path, name) => Promise.resolve(void removed.push(name)),
    };
    const provider = new ExistingProvider(
      context,
      undefined,
      { KUBECONFIG: file },
      namespaces,
      undefined,
      ME,
    );
    expect(await provider.listLabIds()).to.deep.equal(['hl-prod', 'hl-other']);
    expect(await provider.reap('hl-prod')).to.deep.equal([
      'namespace hybrid-lab-20261122-aaaaaa (your run, its process gone, 30 min old)',
    ]);
    expect(removed).to.deep.equal(['hybrid-lab-20261122-aaaaaa']);
    const unreachable = new ExistingProvider(
      context,
      undefined,
      { KUBECONFIG: file },
      {
        list: () => Promise.reject(new Error('ECONNREFUSED')),
        remove: () => Promise.reject(new Error('not called')),
      },
    );
    expect(await unreachable.reap()).to.deep.equal([]);
  });

  it("reap leaves another owner's fresh run alone, saying whose it is; reaps its own", async () => {
    const { provider, removed, said } = reaping([
      run('hybrid-lab-mine', 'existing', 'ada', 'build1', 45),
      run('hybrid-lab-bob', 'existing', 'bob', 'laptop2', 20),
      // The same user on another machine is someone else's run too.
      run('hybrid-lab-ada-elsewhere', 'existing', 'ada', 'laptop2', 20),
    ]);
    expect(await provider.reap()).to.deep.equal([
      'namespace hybrid-lab-mine (your run, its process gone, 45 min old)',
    ]);
    expect(removed).to.deep.equal(['hybrid-lab-mine']);
    expect(said.map((l) => l.replace(/^\S+ /, ''))).to.deep.equal([
      "left namespace hybrid-lab-bob: bob's run on laptop2, 20 min old: `lab reap --older-than <age>` reaps other runs past that age",
      "left namespace hybrid-lab-ada-elsewhere: ada's run on laptop2, 20 min old: `lab reap --older-than <age>` reaps other runs past that age",
    ]);
  });

  it('reap --older-than reaps runs of others past that age, never a younger one', async () => {
    const { provider, removed } = reaping([
      run('hybrid-lab-bob-old', 'existing', 'bob', 'laptop2', 7 * 60),
      run('hybrid-lab-bob-fresh', 'existing', 'bob', 'laptop2', 5 * 60),
    ]);
    expect(await provider.reap(undefined, { olderThanMs: 6 * 3_600_000 })).to.deep.equal([
      "namespace hybrid-lab-bob-old (bob's run on laptop2, 7 h old, past --older-than 6 h)",
    ]);
    expect(removed).to.deep.equal(['hybrid-lab-bob-old']);
  });

  it('reap leaves a run of its own whose process still runs (a second terminal), also when `lab down` sweeps its lab', async () => {
    const { provider, removed, said } = reaping([
      run('hybrid-lab-running', 'existing', 'ada', 'build1', 10, 4242),
    ]);
    expect(await provider.reap('hl-existing')).to.deep.equal([]);
    expect(removed).to.deep.equal([]);
    expect(said[0]).to.match(
      /left namespace hybrid-lab-running: your run, still running as process 4242, 10 min old$/,
    );
  });

  it('turns an unreachable API into a not-ready status with the error', async () => {
    const file = join(dir, 'good2');
    writeFileSync(file, KUBECONFIG);
    const lab = await new ExistingProvider(
      context,
      () => Promise.reject(new Error('ECONNREFUSED')),
      process.env,
      undefined,
      clusterOk,
    ).up(planFor(file));
    const status = await lab.status();
    expect(status.ready).to.equal(false);
    expect(status.facts.error).to.contain('ECONNREFUSED');
  });

  it('lab up asks the cluster itself once the kubeconfig reads, and stops on what it lacks', async () => {
    const file = join(dir, 'checked');
    writeFileSync(file, KUBECONFIG);
    const seen: string[] = [];
    const denied: ClusterCheck = (path, env) => {
      seen.push(`${path} ${env.TOLERATIONS ?? ''}`);
      return Promise.resolve({
        problems: [
          {
            what: 'this identity may not create endpoints in the run namespace: ClusterRole hybrid-lab-suite grants it',
            fix: 'kubectl apply -f manifests/rbac/hybrid-lab-suite.yaml',
          },
        ],
        notes: [],
      });
    };
    const env = { TOLERATIONS: 'CriticalAddonsOnly:NoSchedule' };
    const provider = new ExistingProvider(context, undefined, env, undefined, denied);
    const error = await provider.up(planFor(file)).catch((e: unknown) => e);
    expect((error as Error).message).to.contain('may not create endpoints');
    expect(seen).to.deep.equal([`${file} CriticalAddonsOnly:NoSchedule`]);
  });

  it('merges a KUBECONFIG of several files: a current-context set in the second counts', async () => {
    const first = join(dir, 'first');
    writeFileSync(first, KUBECONFIG.replace('current-context: ctx\n', ''));
    const second = join(dir, 'second');
    writeFileSync(second, KUBECONFIG);
    const provider = new ExistingProvider(
      context,
      undefined,
      { KUBECONFIG: `${first}:${second}` },
      undefined,
      clusterOk,
    );
    const plan = planLab(validateSpec({ name: 'ex', provider: 'existing' }, 't'));
    expect(await provider.preflight(plan)).to.deep.equal([]);
  });
});
