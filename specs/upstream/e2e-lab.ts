/**
 * The lab `npm run e2e` runs against, and the upstream tools for it: $LAB (or --lab), else
 * .lab/current, else $KUBECONFIG (an existing cluster, with E2E_ARTIFACTS_DIR for the tools).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LabError } from '../../lab/errors.ts';
import { kubeconfigPath } from '../../lab/providers/existing/existing-provider.ts';
import { E2E_ARTIFACTS, kubernetesBinary } from '../../lab/provision/artifact-catalogue.ts';
import { provisionSettingsFromText } from '../../lab/provision/provision-settings.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import type { LabTraits } from './upstream-catalogue.ts';

export interface E2eLab {
  name: string;
  provider: string;
  /** An emulated lab has no API server: e2e.test cannot run there. */
  emulated: boolean;
  /** Absent on emulated labs. */
  kubeconfig: string | undefined;
  /** The artifact cache holding e2e.test, ginkgo and kubectl. */
  artifactsDir: string | undefined;
  /** `v1.20.2`. */
  kubernetesVersion: string;
  dnsDomain: string;
  windowsNodes: boolean;
  /** How many nodes the lab has; unknown for a cluster the harness did not make. */
  nodeCount: number | undefined;
  /** The lab's own networks (nodes, pods, Services): e2e.test reaches them directly, never through a proxy. */
  networks: string[];
  /** Whether the nodes hold the e2e images (kubeadm.e2eImages): then KUBE_TEST_REPO_LIST maps to them. */
  e2eImages: boolean;
  traits: LabTraits;
}

const vee = (v: string): string => (v.startsWith('v') ? v : `v${v}`);

/** The lab of this run; a lab that is not up is an error saying so. */
export function resolveE2eLab(env: NodeJS.ProcessEnv, explicit?: string): E2eLab {
  const store = new LabStore(resolve(env.LAB_HOME ?? '.lab'));
  if (explicit === undefined && env.LAB === undefined && store.current() === undefined) {
    if (env.KUBECONFIG === undefined) {
      throw new LabError('no lab to run e2e.test against', {
        hint: 'bring one up with `npm run lab:up`, or set LAB=NAME, or KUBECONFIG (with E2E_ARTIFACTS_DIR)',
      });
    }
    return {
      name: 'existing',
      provider: 'existing',
      emulated: false,
      kubeconfig: env.KUBECONFIG.split(':')[0]!,
      artifactsDir: env.E2E_ARTIFACTS_DIR,
      kubernetesVersion: vee(env.E2E_KUBERNETES_VERSION ?? '1.20.2'),
      dnsDomain: 'cluster.local',
      windowsNodes: false,
      nodeCount: undefined,
      networks: [],
      e2eImages: false,
      traits: { clusterDns: 'coredns' },
    };
  }
  const name = store.resolveName(explicit, env);
  const state = store.readState(name);
  if (state?.phase !== 'up') {
    throw new LabError(`lab ${name} is ${state?.phase ?? 'unknown'}, not up`, {
      hint: 'npm run lab:up brings it up',
    });
  }
  const plan = store.readPlan(name);
  const paths = store.paths(name);
  const settings =
    plan.provider === 'existing'
      ? undefined
      : provisionSettingsFromText(readFileSync(paths.spec, 'utf8'), paths.spec, process.cwd());
  const cache = settings?.artifacts.kind === 'dir' ? settings.artifacts.dir : undefined;
  return {
    name,
    provider: plan.provider,
    emulated: plan.emulated,
    kubeconfig: plan.emulated
      ? undefined
      : plan.provider === 'existing'
        ? kubeconfigPath(plan, env)
        : join(paths.dir, 'kubeconfig'),
    artifactsDir: cache ?? env.E2E_ARTIFACTS_DIR,
    kubernetesVersion: vee(plan.kubernetes.version),
    dnsDomain: plan.kubernetes.dnsDomain,
    windowsNodes: plan.nodes.some((n) => n.os === 'windows'),
    nodeCount: plan.provider === 'existing' ? undefined : plan.nodes.length,
    networks: [plan.network.cidr, plan.kubernetes.podCIDR, plan.kubernetes.serviceCIDR],
    e2eImages: settings?.kubeadm.e2eImages ?? false,
    traits: { clusterDns: settings?.kubeadm.clusterDns ?? 'coredns' },
  };
}

/** The files e2e.test needs from the cache. */
export interface E2eTools {
  e2eTest: string;
  ginkgo: string;
  kubectl: string;
  repoList: string;
}

/** The tools in the lab's cache, or what is missing there and how to get it. */
export function e2eTools(lab: E2eLab): E2eTools | { missing: string } {
  const dir = lab.artifactsDir;
  if (dir === undefined) {
    return {
      missing:
        'no artifact cache holds e2e.test: the lab names no `artifacts: { dir }`; set E2E_ARTIFACTS_DIR',
    };
  }
  const at = (rel: string) => join(dir, ...rel.split('/'));
  const tools: E2eTools = {
    e2eTest: at(E2E_ARTIFACTS.e2eTest),
    ginkgo: at(E2E_ARTIFACTS.ginkgo),
    kubectl: at(kubernetesBinary({ kubernetes: lab.kubernetesVersion }, 'kubectl')),
    repoList: at(E2E_ARTIFACTS.repoList),
  };
  const absent = [tools.e2eTest, tools.ginkgo, tools.kubectl, tools.repoList].filter(
    (f) => !existsSync(f),
  );
  if (absent.length > 0) {
    return {
      missing: `the artifact cache ${dir} lacks ${absent.join(', ')}: build it with \`bash vagrant/artifacts/kubernetes/build.sh\``,
    };
  }
  return tools;
}
