/** Attaches to a lab that is up, for `lab break`/`lab heal` and the self-test. */
import { ExecaRunner } from '../exec/execa-runner.ts';
import { fileLogger } from '../log/logger.ts';
import { PlainProgress } from '../log/progress.ts';
import { DnsPodProcess } from '../cluster/runtime/dns-pod-process.ts';
import type { EmulatedCluster } from '../cluster/emulated-cluster.ts';
import { forPodLinksGone } from '../cluster/runtime/pod-links.ts';
import { createProvider } from '../providers/registry.ts';
import type { LabStore } from '../state/lab-store.ts';
import { FaultError } from './fault-error.ts';
import { FaultRecords } from './fault-records.ts';
import type { FaultSession } from './fault-session.ts';

/** The session of lab `name`; fails with a hint when the lab is not up. */
export async function openFaultSession(store: LabStore, name: string): Promise<FaultSession> {
  const plan = store.readPlan(name);
  const state = store.readState(name);
  if (state?.phase !== 'up') {
    throw new FaultError(`lab ${name} is ${state?.phase ?? 'unknown'}, not up`, {
      hint: 'faults act on a lab that is up: `npm run lab:up`',
    });
  }
  const paths = store.paths(name);
  const log = fileLogger(paths.harnessLog, { lab: name, provider: plan.provider }).child({
    component: 'faults',
  });
  const runner = new ExecaRunner(log.child({ component: 'runner' }));
  const progress = new PlainProgress(log, () => undefined);
  const lab = await createProvider(plan.provider, {
    runner,
    log,
    stateDir: paths.dir,
    progress,
  }).attach(plan);
  const cluster = (lab as { cluster?: EmulatedCluster }).cluster;
  return {
    plan,
    shell: (node) => lab.nodeShell(node),
    ...(cluster === undefined ? {} : { cluster }),
    ...(cluster === undefined
      ? {}
      : { dns: new DnsPodProcess(cluster), settle: () => forPodLinksGone(cluster) }),
    records: new FaultRecords(paths.dir, plan.id, state.updatedAt),
    log,
  };
}
