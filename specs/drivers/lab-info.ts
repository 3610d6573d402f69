/** What the results say of a lab from its plan alone: known before (and whether or not) it opens. */
import { resolve } from 'node:path';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import type { LabInfo } from '../model/lab-driver.ts';

/** The lab's name, provider, emulation, version and CNI as planned; emulated ones say so in each. */
export function planInfo(plan: LabPlan): LabInfo {
  const emulated = plan.emulated ? ' (emulated)' : '';
  return {
    lab: plan.name,
    provider: plan.provider,
    emulated: plan.emulated,
    kubernetesVersion: `${plan.kubernetes.version}${emulated}`,
    cni: `${plan.cni.plugin}/${plan.cni.backend}${emulated}`,
    ...(plan.nodes.some((n) => n.os === 'windows') ? { windowsDsr: plan.windows.dsr } : {}),
    osBuilds: {},
  };
}

/** The plan-based info of the lab the suite would open ($LAB, else .lab/current); undefined without a plan. */
export function describeLab(env: NodeJS.ProcessEnv = process.env): LabInfo | undefined {
  try {
    const store = new LabStore(resolve(env.LAB_HOME ?? '.lab'));
    const name = env.LAB ?? store.current();
    return name === undefined ? undefined : planInfo(store.readPlan(store.resolveName(name, env)));
  } catch {
    return undefined;
  }
}
