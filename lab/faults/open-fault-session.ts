/** Attaches to a lab that is up, for `lab break`/`lab heal` and the self-test. */
import { DnsPodProcess } from '../cluster/dns-pod-process.ts';
import { forPodLinksGone } from '../cluster/pod-links.ts';
import { openLab } from '../lifecycle/open-lab.ts';
import type { LabStore } from '../state/lab-store.ts';
import { FaultRecords } from './fault-records.ts';
import type { FaultSession } from './fault-session.ts';

/** The session of lab `name`; fails with a hint when the lab is not up. */
export async function openFaultSession(store: LabStore, name: string): Promise<FaultSession> {
  const { plan, paths, state, log, lab } = await openLab(store, name, 'faults');
  const { cluster } = lab;
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
