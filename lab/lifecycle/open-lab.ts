/** The one way to open a lab that is up: the CLI, faults, provisioning, the suite, self-test and bench use it. */
import { LabError } from '../errors.ts';
import type { CommandRunner } from '../exec/command-runner.ts';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { fileLogger, type Logger } from '../log/logger.ts';
import { quietProgress, type Progress } from '../log/progress.ts';
import type { LabPlan, ProviderName } from '../plan/lab-plan.ts';
import type { LabProvider, StartedLab } from '../providers/lab-provider.ts';
import { createProvider } from '../providers/registry.ts';
import type { LabPaths, LabState, LabStore } from '../state/lab-store.ts';

export interface ProviderOptions {
  /** Shows steps; default: quiet (to the log only). */
  progress?: (log: Logger, label: string) => Progress;
  /** Makes providers; default: the registry. Unit tests pass a fake. */
  providers?: typeof createProvider;
}

/** A lab that is up, with what its callers need around it. */
export interface OpenedLab {
  name: string;
  plan: LabPlan;
  paths: LabPaths;
  state: LabState;
  /** The lab's harness log, as `component`. */
  log: Logger;
  runner: CommandRunner;
  provider: LabProvider;
  lab: StartedLab;
}

/** A provider for lab `name` (its state dir), logging to `log`, running commands through `runner`. */
export function providerFor(
  store: LabStore,
  name: string,
  provider: ProviderName,
  log: Logger,
  runner: CommandRunner,
  options: ProviderOptions = {},
): LabProvider {
  const progress = (options.progress ?? quietProgress)(log, `[${provider}] `);
  const context = { runner, log, stateDir: store.paths(name).dir, progress };
  return (options.providers ?? createProvider)(provider, context);
}

/** Opens lab `name`; throws a LabError with a hint when it is not up. */
export async function openLab(
  store: LabStore,
  name: string,
  component: string,
  options: ProviderOptions = {},
): Promise<OpenedLab> {
  const plan = store.readPlan(name);
  const state = store.readState(name);
  if (state?.phase !== 'up') {
    throw new LabError(`lab ${name} is ${state?.phase ?? 'unknown'}, not up`, {
      hint: 'npm run lab:up brings it up',
    });
  }
  const paths = store.paths(name);
  const log = fileLogger(paths.harnessLog, { lab: name, provider: plan.provider, component });
  const runner = new ExecaRunner(log.child({ component: 'runner' }));
  const provider = providerFor(store, name, plan.provider, log, runner, options);
  const lab = await provider.attach(plan);
  return { name, plan, paths, state, log, runner, provider, lab };
}
