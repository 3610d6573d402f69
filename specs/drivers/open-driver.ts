/** Finds the lab the suite runs against: $LAB, else .lab/current, else $KUBECONFIG (existing). */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import { artifactProvenance } from '../../lab/provision/artifact-provenance.ts';
import {
  provisionSettingsFromText,
  type ProvisionSettings,
} from '../../lab/provision/provision-settings.ts';
import { openLab } from '../../lab/lifecycle/open-lab.ts';
import { fileLogger } from '../../lab/log/logger.ts';
import { kubeconfigPath } from '../../lab/providers/existing/existing-provider.ts';
import { LibvirtStartedLab } from '../../lab/providers/libvirt/libvirt-started-lab.ts';
import type { StartedLab } from '../../lab/providers/lab-provider.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { agnhostImagesOf } from '../../lab/spec/kubeadm-spec-schema.ts';
import { EmulatedDriver } from './emulated-driver.ts';
import type { KubernetesSettings } from './kubernetes/kubernetes-settings.ts';
import { outboundNatOf } from './kubernetes/cluster-intent.ts';
import type { LabFacts } from './kubernetes/kubernetes-driver.ts';
import { InfrastructureError } from '../model/infrastructure-error.ts';
import type { LabDriver } from '../model/lab-driver.ts';

export async function openDriver(
  env: NodeJS.ProcessEnv,
  kubernetes: KubernetesSettings,
): Promise<LabDriver> {
  const store = new LabStore(resolve(env.LAB_HOME ?? '.lab'));
  const name = env.LAB ?? store.current();
  if (name === undefined) {
    if (env.KUBECONFIG !== undefined) {
      // Every file of the list, merged as kubectl merges them (kube-clients.ts).
      return openKubernetes(
        env.KUBECONFIG,
        {
          lab: 'existing',
          provider: 'existing',
          cni: env.CNI ?? 'unknown',
          ...intentOf(kubernetes, 'existing'),
        },
        { settings: kubernetes },
      );
    }
    throw new InfrastructureError('no lab to test', {
      hint: 'run `npm run lab:up` first, or set LAB=NAME, or KUBECONFIG for an existing cluster',
    });
  }
  const { plan, paths, lab } = await openLab(store, store.resolveName(name, env), 'suite');
  if (plan.emulated) {
    const { cluster } = lab;
    if (cluster === undefined)
      throw new InfrastructureError(`provider ${plan.provider} exposes no emulated cluster`);
    return new EmulatedDriver(plan, lab, cluster);
  }
  const kubeconfig =
    plan.provider === 'existing' ? kubeconfigPath(plan, env) : join(paths.dir, 'kubeconfig');
  const settings =
    plan.provider === 'existing'
      ? undefined
      : provisionSettingsFromText(readFileSync(paths.spec, 'utf8'), paths.spec, process.cwd());
  return openKubernetes(
    kubeconfig,
    {
      dnsDomain: plan.kubernetes.dnsDomain,
      lab: plan.name,
      provider: plan.provider,
      cni: plannedCni(plan, env),
      ...(plan.provider !== 'existing' && plan.nodes.some((n) => n.os === 'windows')
        ? { windowsDsr: plan.windows.dsr }
        : {}),
      ...intentOf(kubernetes, plan.provider),
    },
    {
      // The suite's API calls, execs and host commands go to the lab's harness log like every step.
      log: fileLogger(paths.harnessLog, { component: 'suite' }),
      settings: kubernetes,
      ...(lab.outside === undefined ? {} : { outside: lab.outside }),
      // libvirt labs put the external address on the lab bridge of this host: outside every
      // cluster CIDR and OutBoundNAT exception list, where outbound-NAT probes must go.
      ...(plan.provider === 'libvirt' ? { externalAddress: plan.external.address } : {}),
      images: agnhostImagesOf(settings?.kubeadm.agnhostImage),
      facts: labFacts(plan, settings, lab),
      // Labs the harness made reach their nodes: failing cells get path evidence from them.
      ...(plan.provider === 'existing' ? {} : { nodeShell: (node: string) => lab.nodeShell(node) }),
      // …and the disruption phase restarts their runtimes and reboots them.
      ...(lab.nodeActions === undefined ? {} : { nodeActions: lab.nodeActions }),
    },
  );
}

/**
 * What the user says the cluster intends (WINDOWS_DSR, OUTBOUND_NAT): on a cluster the harness
 * did not make, DSR (its own labs' plan says it) and outbound NAT, `report` unless set.
 */
export function intentOf(
  kubernetes: KubernetesSettings,
  provider: string,
): Pick<LabFacts, 'windowsDsr' | 'outboundNat'> {
  const { windowsDsr } = kubernetes.intent;
  const outboundNat = outboundNatOf(kubernetes.intent, provider);
  return {
    ...(provider === 'existing' && windowsDsr !== undefined ? { windowsDsr } : {}),
    ...(outboundNat === undefined ? {} : { outboundNat }),
  };
}

/**
 * The CNI a lab claims before discovery looks: its plan's, but on a cluster the harness did not
 * make the plan's CNI is only the spec's default, so CNI or `unknown`.
 */
export function plannedCni(
  plan: { provider: string; cni: { plugin: string; backend: string } },
  env: NodeJS.ProcessEnv,
): string {
  return plan.provider === 'existing'
    ? (env.CNI ?? 'unknown')
    : `${plan.cni.plugin}/${plan.cni.backend}`;
}

/** What a real lab says of itself in the results: how its Kubernetes was built, what its nodes are. */
function labFacts(
  plan: LabPlan,
  settings: ProvisionSettings | undefined,
  lab: StartedLab,
): Record<string, string> {
  const facts: Record<string, string> = {};
  if (plan.provider === 'netns') {
    facts.nodes =
      'Linux only: network, mount and UTS namespaces of one host, each running its own containerd, kubelet and kube-proxy';
  }
  if (lab instanceof LibvirtStartedLab) {
    const drivers = [...new Set(lab.state.hypervisors.map((h) => h.driver))];
    facts.nodes = `Vagrant + libvirt VMs, one per node, driver ${drivers.join('/')}${drivers.includes('qemu') ? ' (QEMU software emulation: slow, not emulated networking)' : ''}`;
  }
  if (settings?.artifacts.kind === 'dir') {
    const provenance = artifactProvenance(settings.artifacts.dir);
    if (provenance !== undefined) facts.build = provenance;
  }
  return facts;
}

/** Loads the Kubernetes driver on use: its client costs over a second that emulated labs never need. */
async function openKubernetes(
  ...args: Parameters<typeof import('./kubernetes/kubernetes-driver.ts').KubernetesDriver.open>
): Promise<LabDriver> {
  const { KubernetesDriver } = await import('./kubernetes/kubernetes-driver.ts');
  return KubernetesDriver.open(...args);
}
