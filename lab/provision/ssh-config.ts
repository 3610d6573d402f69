/** Turns `vagrant ssh-config` output into provisioning targets for the plan's nodes. */
import type { LabPlan } from '../plan/lab-plan.ts';
import { parseSshConfig, sshTarget } from '../remote/ssh-config.ts';
import type { SshTarget } from '../remote/ssh-node-shell.ts';
import { ProvisionError } from './provision-error.ts';

/**
 * One target per node of the plan, from the concatenated `vagrant ssh-config` of every
 * Vagrant project. `nodeOf` maps a Host alias to a node name (default: the alias itself).
 */
export function targetsFromSshConfig(
  text: string,
  plan: LabPlan,
  nodeOf: (alias: string) => string = (alias) => alias,
): SshTarget[] {
  const byNode = new Map(parseSshConfig(text).map((h) => [nodeOf(h.name), h]));
  return plan.nodes.map((node) => {
    const host = byNode.get(node.name);
    const target = host === undefined ? undefined : sshTarget(host, node.name);
    if (target === undefined) {
      throw new ProvisionError(
        `no SSH target: vagrant ssh-config has ${host === undefined ? 'no Host entry' : 'no HostName/IdentityFile'} for this node`,
        {
          node: node.name,
          step: 'connect',
          hint: 'is the VM up? `vagrant status` in its project folder',
        },
      );
    }
    return target;
  });
}
