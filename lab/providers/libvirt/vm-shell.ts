/** How the libvirt provider reaches a VM: ssh over the lab's ssh_config and the node's master connection. */
import type { CommandRunner } from '../../exec/command-runner.ts';
import type { NodeOs } from '../../plan/lab-plan.ts';
import { SshNodeShell } from '../../remote/ssh-node-shell.ts';

/** A command that hangs on a dead VM must not hang the harness. */
const VM_COMMAND_TIMEOUT_MS = 300_000;

/** Linux guests run commands as root through sudo; Windows guests in PowerShell as they are. */
export function vmShell(
  node: string,
  sshConfig: string,
  runner: CommandRunner,
  guestOs: NodeOs,
): SshNodeShell {
  return new SshNodeShell(node, { configFile: sshConfig, alias: node }, runner, {
    flavour: guestOs === 'linux' ? 'posix' : 'powershell',
    become: guestOs === 'linux',
    defaultTimeoutMs: VM_COMMAND_TIMEOUT_MS,
  });
}
