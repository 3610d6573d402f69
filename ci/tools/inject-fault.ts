/**
 * Injects a real fault into an emulated (netns) lab through the EmulatedCluster API, until
 * `lab break` exists:
 *   tsx ci/tools/inject-fault.ts --lab NAME windows-exception-drops-pod-cidr [NODE]
 *   tsx ci/tools/inject-fault.ts --lab NAME heal
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { windowsCniConfig } from '../../lab/cni/windows-cni-config.ts';
import { LabError } from '../../lab/errors.ts';
import { openProvider } from '../../lab/lifecycle/lab-lifecycle.ts';
import type { Logger } from '../../lab/log/logger.ts';
import { PlainProgress } from '../../lab/log/progress.ts';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import type { EmulatedCluster } from '../../lab/providers/netns/emulated-cluster.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { withoutException } from './cni-exception-fault.ts';
import { isMain, runMain } from './run-main.ts';

export const FAULTS = {
  /** The pod CIDR leaves a Windows node's OutBoundNAT ExceptionList: its pods reach other pods SNATed to the node IP. */
  'windows-exception-drops-pod-cidr': breakPodCidrException,
  /** Every Windows node gets back the CNI config the provisioner generates. */
  heal,
} as const;

async function breakPodCidrException(
  plan: LabPlan,
  cluster: EmulatedCluster,
  node?: string,
): Promise<string> {
  const target = node ?? plan.nodes.find((n) => n.os === 'windows')?.name;
  if (target === undefined) throw new LabError(`lab ${plan.name} has no Windows node`);
  const broken = withoutException(cluster.windowsCniConfig(target), plan.kubernetes.podCIDR);
  await cluster.setWindowsCniConfig(target, broken);
  return `removed ${plan.kubernetes.podCIDR} from the OutBoundNAT ExceptionList of ${target}`;
}

async function heal(plan: LabPlan, cluster: EmulatedCluster): Promise<string> {
  const windows = plan.nodes.filter((n) => n.os === 'windows');
  for (const node of windows)
    await cluster.setWindowsCniConfig(node.name, windowsCniConfig(plan, node));
  return `restored the generated CNI config of ${windows.map((n) => n.name).join(', ') || 'no node'}`;
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { lab: { type: 'string' } },
    allowPositionals: true,
  });
  const [fault, node] = positionals;
  if (values.lab === undefined || fault === undefined || !(fault in FAULTS)) {
    throw new LabError(`usage: inject-fault.ts --lab NAME ${Object.keys(FAULTS).join('|')} [NODE]`);
  }
  const store = new LabStore(resolve(process.env.LAB_HOME ?? '.lab'));
  const name = store.resolveName(values.lab);
  const plan = store.readPlan(name);
  const quiet = (log: Logger) => new PlainProgress(log, () => undefined);
  const { provider } = openProvider(store, name, plan.provider, { progress: quiet });
  const cluster = ((await provider.attach(plan)) as { cluster?: EmulatedCluster }).cluster;
  if (cluster === undefined) {
    throw new LabError(
      `lab ${name} (${plan.provider}) has no emulated cluster to inject faults into`,
      {
        hint: 'use an emulated lab (netns), or `lab break` once it supports this provider',
      },
    );
  }
  const done = await FAULTS[fault as keyof typeof FAULTS](plan, cluster, node);
  process.stdout.write(`inject-fault: ${name}: ${done}\n`);
}

if (isMain(import.meta.url)) await runMain('inject-fault', main);
