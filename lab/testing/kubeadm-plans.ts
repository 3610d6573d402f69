/** Plans and helpers the provisioning tests share (not a test file itself). */
import { planLab } from '../plan/plan-lab.ts';
import type { CniBackend, LabPlan } from '../plan/lab-plan.ts';
import { validateSpec } from '../spec/load-spec.ts';

/** A kubeadm libvirt lab: cp1 (.10), lin1 (.11), win1 (.12), as the libvirt-hybrid preset. */
export function kubeadmPlan(
  options: { version?: string; backend?: CniBackend; windows?: boolean } = {},
): LabPlan {
  const spec = validateSpec(
    {
      name: 'kt',
      provider: 'libvirt',
      cluster: 'kubeadm',
      kubernetes: { version: options.version ?? '1.30.4' },
      cni: { backend: options.backend ?? 'vxlan' },
      nodes: [
        { name: 'cp1', os: 'linux', role: 'control-plane', cpus: 2, memory: 4096 },
        { name: 'lin1', os: 'linux', role: 'worker', cpus: 2, memory: 2048 },
        ...(options.windows === false
          ? []
          : [
              {
                name: 'win1',
                os: 'windows',
                role: 'worker',
                box: 'windows-2022',
                cpus: 2,
                memory: 8192,
              },
            ]),
      ],
    },
    'test',
  );
  return planLab(spec, 'test');
}
