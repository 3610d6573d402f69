/** Bringing labs up, down and reaping them: what the CLI, tests and benchmarks call. */
import { LabError, ProviderError } from '../errors.ts';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { processAlive } from '../exec/process-alive.ts';
import { fileLogger, type Logger } from '../log/logger.ts';
import { progressFor, type Progress } from '../log/progress.ts';
import type { LabPlan, ProviderName } from '../plan/lab-plan.ts';
import { planLab, serializePlan } from '../plan/plan-lab.ts';
import type { LabProvider, LabStatus, StartedLab } from '../providers/lab-provider.ts';
import { createProvider, registeredProviders } from '../providers/registry.ts';
import { openLab, providerFor } from './open-lab.ts';
import type { LoadedSpec } from '../spec/load-spec.ts';
import type { LabStore } from '../state/lab-store.ts';

/** `.lab/<this>/logs/` holds the reaper's log; not a DNS label, so never a lab's name. */
const REAPER_LOG_DIR = '_reaper';

export interface LifecycleOptions {
  store: LabStore;
  /** Shows steps; default: listr2 on a TTY, plain lines otherwise. */
  progress?: (log: Logger, label: string) => Progress;
  /** Makes providers; default: the registry. Unit tests pass a fake. */
  providers?: typeof createProvider;
  /** Provider names `lab reap` sweeps; default: every registered one. */
  providerNames?: ProviderName[];
}

export interface UpResult {
  plan: LabPlan;
  lab: StartedLab;
  /** True when the same plan was already up and nothing was done. */
  alreadyUp: boolean;
}

/** Opens the provider of a lab with its log, runner and progress (listr2 on a TTY by default). */
export function openProvider(
  store: LabStore,
  name: string,
  provider: ProviderName,
  options: Pick<LifecycleOptions, 'progress' | 'providers'> = {},
): { provider: LabProvider; log: Logger } {
  const log = fileLogger(store.paths(name).harnessLog, { lab: name, provider });
  const runner = new ExecaRunner(log.child({ component: 'runner' }));
  const opened = providerFor(store, name, provider, log, runner, {
    progress: options.progress ?? progressFor,
    ...(options.providers === undefined ? {} : { providers: options.providers }),
  });
  return { provider: opened, log };
}

/** `lab up`: validates, plans, checks the machine, then creates the lab all-or-nothing. */
export async function labUp(loaded: LoadedSpec, options: LifecycleOptions): Promise<UpResult> {
  const { store } = options;
  const plan = planLab(loaded.spec, loaded.source);
  const planText = serializePlan(plan);
  const state = store.readState(plan.name);
  const previous = store.readPlanText(plan.name);
  if (state !== undefined && (state.phase === 'up' || state.phase === 'creating')) {
    if (state.phase === 'creating' && processAlive(state.pid)) {
      throw new LabError(`lab "${plan.name}" is being brought up by process ${String(state.pid)}`);
    }
    if (previous !== planText) {
      throw new LabError(`lab "${plan.name}" is already up with a different plan`, {
        hint: `tear it down first (npm run lab:down -- --lab ${plan.name}), or give the new spec another name`,
      });
    }
    if (state.phase === 'up') {
      const { provider } = openProvider(store, plan.name, plan.provider, options);
      return { plan, lab: await provider.attach(plan), alreadyUp: true };
    }
  }
  store.create(plan.name, loaded.text, planText);
  store.setCurrent(plan.name);
  const { provider, log } = openProvider(store, plan.name, plan.provider, options);
  log.info({ source: loaded.source, id: plan.id, emulated: plan.emulated }, 'lab up');
  store.writeState(plan.name, { phase: 'creating', provider: plan.provider, pid: process.pid });
  try {
    const problems = await provider.preflight(plan);
    if (problems.length > 0) {
      throw new ProviderError(
        `the ${plan.provider} provider cannot run here:\n` +
          problems.map((p) => `  - ${p.what}`).join('\n'),
        { hint: problems.map((p) => p.fix).join('\n') },
      );
    }
    if (state?.phase === 'failed' || state?.phase === 'creating') await provider.reap(plan.id);
    const lab = await provider.up(plan);
    store.writeState(plan.name, { phase: 'up', provider: plan.provider });
    log.info('lab is up');
    return { plan, lab, alreadyUp: false };
  } catch (error) {
    log.error({ err: error }, 'lab up failed');
    store.writeState(plan.name, { phase: 'failed', provider: plan.provider, error: String(error) });
    throw error;
  }
}

/** `lab down`: removes everything the lab created, also what a crash left behind. */
export async function labDown(name: string, options: LifecycleOptions): Promise<string[]> {
  const { store } = options;
  const plan = store.readPlan(name);
  const { provider, log } = openProvider(store, name, plan.provider, options);
  let downError: unknown;
  try {
    const lab = await provider.attach(plan);
    await lab.down();
  } catch (error) {
    log.error({ err: error }, 'orderly down failed; sweeping by lab id');
    downError = error;
  }
  let swept: string[];
  try {
    swept = await provider.reap(plan.id);
  } catch (error) {
    log.error({ err: error }, 'sweep failed');
    throw downError ?? error;
  }
  store.writeState(name, { phase: 'down', provider: plan.provider });
  if (store.current() === name) store.setCurrent(undefined);
  log.info({ swept }, 'lab is down');
  return swept;
}

/** `lab status`: the provider's view of a lab that is up. */
export async function labStatus(name: string, options: LifecycleOptions): Promise<LabStatus> {
  const { lab } = await openLab(options.store, name, 'status', options);
  return lab.status();
}

/**
 * `lab reap`: removes resources of labs that are not up (or only `labId`'s), for every
 * provider, from what is stamped on them; `.lab/` may be gone. On a cluster others share,
 * others' runs go only past `olderThanMs`.
 */
export async function labReap(
  options: LifecycleOptions & { labId?: string; olderThanMs?: number },
): Promise<string[]> {
  const { store } = options;
  const live = new Set(
    store
      .list()
      .filter((name) => {
        const state = store.readState(name);
        return state?.phase === 'up' || (state?.phase === 'creating' && processAlive(state.pid));
      })
      .map((name) => store.readPlan(name).id),
  );
  const removed: string[] = [];
  const errors: unknown[] = [];
  for (const name of options.providerNames ?? registeredProviders()) {
    const { provider, log } = openProvider(store, REAPER_LOG_DIR, name, options);
    try {
      const ids = options.labId === undefined ? await provider.listLabIds() : [options.labId];
      for (const id of ids.filter((i) => options.labId !== undefined || !live.has(i))) {
        removed.push(
          ...(await provider.reap(
            id,
            options.olderThanMs === undefined ? {} : { olderThanMs: options.olderThanMs },
          )),
        );
      }
    } catch (error) {
      log.error({ err: error }, 'reap failed');
      errors.push(error);
    }
  }
  for (const name of store.list()) {
    const state = store.readState(name);
    const id = store.readPlan(name).id;
    if (
      state?.phase !== 'down' &&
      !live.has(id) &&
      (options.labId === undefined || options.labId === id)
    ) {
      store.writeState(name, { phase: 'down', provider: state?.provider ?? 'unknown' });
      if (store.current() === name) store.setCurrent(undefined);
    }
  }
  if (errors.length > 0) throw errors[0];
  return removed;
}
