/** What this machine must offer before a netns lab can come up (a kubeadm one: its nodes' runtime too). */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { PreflightProblem } from '../../errors.ts';
import type { LabPlan } from '../../plan/lab-plan.ts';
import { kubeadmPreflight } from '../../provision/provision-lab.ts';
import { provisionSettingsFromText } from '../../provision/provision-settings.ts';
import type { ProviderContext } from '../lab-provider.ts';
import { WORKLOAD_FILES, workloadPath } from '../../cluster/runtime/workload-programs.ts';

const TOOLS: { file: string; args: string[]; pkg: string }[] = [
  { file: 'ip', args: ['-V'], pkg: 'iproute2' },
  { file: 'bridge', args: ['-V'], pkg: 'iproute2' },
  { file: 'iptables-restore', args: ['--version'], pkg: 'iptables' },
  { file: 'sysctl', args: ['--version'], pkg: 'procps' },
  // The emulated API server stand-in's certificate is made at lab up.
  { file: 'openssl', args: ['version'], pkg: 'openssl' },
];

async function missingTool(
  runner: CommandRunner,
  tool: (typeof TOOLS)[number],
): Promise<PreflightProblem | undefined> {
  try {
    const result = await runner.run(tool.file, tool.args, { check: false, timeoutMs: 5000 });
    if (result.exitCode === 0) return undefined;
  } catch {
    // Could not even start it: same answer.
  }
  return { what: `\`${tool.file}\` is missing or broken`, fix: `apt-get install ${tool.pkg}` };
}

export async function netnsPreflight(
  runner: CommandRunner,
  uid = process.getuid?.(),
): Promise<PreflightProblem[]> {
  const problems: PreflightProblem[] = [];
  if (uid !== 0) {
    problems.push({
      what: `the netns provider needs root to create network namespaces, veths and iptables rules (running as uid ${String(uid)})`,
      fix: 'run as root (e.g. `sudo -E npm run lab:up`), or use provider: libvirt or existing',
    });
  }
  const tools = await Promise.all(TOOLS.map((tool) => missingTool(runner, tool)));
  problems.push(...tools.filter((p): p is PreflightProblem => p !== undefined));
  try {
    accessSync(process.execPath, constants.X_OK);
  } catch {
    problems.push({
      what: `node binary ${process.execPath} is not executable`,
      fix: 'install Node.js 20 or newer',
    });
  }
  for (const script of WORKLOAD_FILES) {
    if (!existsSync(workloadPath(script))) {
      problems.push({
        what: `pod workload ${workloadPath(script)} is missing`,
        fix: 'restore lab/cluster/workload from the repository',
      });
    }
  }
  // kube-proxy relies on bridged pod traffic passing iptables (reply DNAT between pods of one node).
  if (uid === 0 && !existsSync('/proc/sys/net/bridge/bridge-nf-call-iptables')) {
    problems.push({
      what: 'br_netfilter is not loaded: same-node pod→Service replies would bypass NAT',
      fix: 'modprobe br_netfilter',
    });
  }
  return problems;
}

/** Debian packages of what a kubeadm netns lab's nodes run, by the command that proves each. */
const NODE_RUNTIME: { file: string; args: string[]; pkg: string }[] = [
  { file: 'containerd', args: ['--version'], pkg: 'containerd' },
  { file: 'ctr', args: ['--version'], pkg: 'containerd' },
  { file: 'runc', args: ['--version'], pkg: 'runc' },
  { file: 'tini', args: ['--version'], pkg: 'tini' },
  { file: 'nsenter', args: ['--version'], pkg: 'util-linux' },
  { file: 'unshare', args: ['--version'], pkg: 'util-linux' },
];
const CNI_PLUGINS = ['bridge', 'host-local', 'portmap', 'loopback'];

/** What the nodes of a kubeadm netns lab need here: their runtime, cgroup v1, CNI plugins, the artifact cache. */
export async function kubeadmNodePreflight(
  context: ProviderContext,
  plan: LabPlan,
): Promise<PreflightProblem[]> {
  const { runner } = context;
  const problems = (await Promise.all(NODE_RUNTIME.map((t) => missingTool(runner, t)))).filter(
    (p): p is PreflightProblem => p !== undefined,
  );
  const plugins = CNI_PLUGINS.filter((p) => !existsSync(`/usr/lib/cni/${p}`));
  if (plugins.length > 0) {
    problems.push({
      what: `the CNI plugins ${plugins.join(', ')} are missing from /usr/lib/cni`,
      fix: 'apt-get install containernetworking-plugins',
    });
  }
  if (!existsSync('/sys/fs/cgroup/memory') || !existsSync('/sys/fs/cgroup/pids')) {
    problems.push({
      what: 'the kubelets of namespace nodes need cgroup v1 (no /sys/fs/cgroup/memory or pids here)',
      fix: 'boot with systemd.unified_cgroup_hierarchy=0, or use provider: libvirt',
    });
  }
  const spec = join(context.stateDir, 'spec.yaml');
  const settings = provisionSettingsFromText(readFileSync(spec, 'utf8'), spec, process.cwd());
  if (settings.artifacts.kind !== 'dir') {
    problems.push({
      what: 'a kubeadm netns lab runs its nodes from an artifact cache folder; the spec names none',
      fix: 'bash vagrant/artifacts/kubernetes/build.sh, then `artifacts: { dir: /var/cache/hybrid-lab/kubernetes/v1.20.2 }`',
    });
    return problems;
  }
  problems.push(...(await kubeadmPreflight(plan, settings, runner)));
  return problems;
}
