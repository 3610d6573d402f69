/** The ginkgo command line that runs e2e.test against a lab, offline. Pure. */
import type { Selection } from './upstream-catalogue.ts';

/** The prefix of the JUnit files e2e.test writes: `junit_e2e_01.xml`, one per ginkgo node. */
export const RAW_JUNIT_PREFIX = 'e2e_';

export interface E2eCommandInput {
  ginkgo: string;
  e2eTest: string;
  kubectl: string;
  kubeconfig: string;
  /** Where e2e.test writes its own JUnit files. */
  reportDir: string;
  /** KUBE_TEST_REPO_LIST: upstream's registries → the lab's image names; none: upstream's names. */
  repoList: string | undefined;
  selection: Selection;
  /** Parallel ginkgo nodes (processes). */
  nodes: number;
  timeoutMs: number;
  dnsDomain: string;
  /** A lab with Windows nodes runs with --node-os-distro=windows, as test/e2e/windows/README.md says. */
  windowsNodes: boolean;
  /**
   * The lab's node count, as --num-nodes. e2e.test counts the nodes itself only on the first
   * parallel node; the others keep -1 and skip every spec that needs two ("Requires at least 2
   * nodes (not -1)", seen with two ginkgo nodes), so a known count is always passed.
   */
  nodeCount: number | undefined;
}

export interface E2eCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** `ginkgo [flags] e2e.test -- [e2e.test flags]`, as upstream's hack/ginkgo-e2e.sh runs it. */
export function e2eCommand(input: E2eCommandInput): E2eCommand {
  const minutes = Math.max(1, Math.ceil(input.timeoutMs / 60_000));
  return {
    file: input.ginkgo,
    args: [
      `-nodes=${input.nodes}`,
      '-noColor',
      `-focus=${input.selection.focus}`,
      `-skip=${input.selection.skip}`,
      `-timeout=${minutes}m`,
      input.e2eTest,
      '--',
      `--kubeconfig=${input.kubeconfig}`,
      // No cloud: the provider e2e.test itself falls back to, named so it does not warn.
      '--provider=skeleton',
      `--kubectl-path=${input.kubectl}`,
      `--report-dir=${input.reportDir}`,
      `--report-prefix=${RAW_JUNIT_PREFIX}`,
      `--dns-domain=${input.dnsDomain}`,
      ...(input.windowsNodes ? ['--node-os-distro=windows'] : []),
      ...(input.nodeCount === undefined ? [] : [`--num-nodes=${input.nodeCount}`]),
    ],
    env: input.repoList === undefined ? {} : { KUBE_TEST_REPO_LIST: input.repoList },
  };
}
