/** What this machine must offer before a netns lab can come up. */
import { accessSync, constants, existsSync } from 'node:fs';
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { PreflightProblem } from '../../errors.ts';
import { workloadPath, type WorkloadScript } from '../../cluster/runtime/workload-programs.ts';

const TOOLS: { file: string; args: string[]; pkg: string }[] = [
  { file: 'ip', args: ['-V'], pkg: 'iproute2' },
  { file: 'bridge', args: ['-V'], pkg: 'iproute2' },
  { file: 'iptables-restore', args: ['--version'], pkg: 'iptables' },
  { file: 'sysctl', args: ['--version'], pkg: 'procps' },
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
  for (const script of ['netexec.mjs', 'dns-server.mjs', 'probe.mjs'] satisfies WorkloadScript[]) {
    if (!existsSync(workloadPath(script))) {
      problems.push({
        what: `pod workload ${workloadPath(script)} is missing`,
        fix: 'restore lab/workload from the repository',
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
