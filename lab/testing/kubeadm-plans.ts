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

/** The netns-kubeadm preset's plan: Kubernetes 1.20.2 on three namespace nodes, CNI bridge. */
export function namespaceKubeadmPlan(): LabPlan {
  return planLab(
    validateSpec(
      {
        name: 'nk',
        provider: 'netns',
        cluster: 'kubeadm',
        kubernetes: { version: '1.20.2' },
        cni: { plugin: 'bridge', backend: 'host-gw' },
        artifacts: { dir: '/var/cache/hybrid-lab/kubernetes/v1.20.2' },
        kubeadm: { clusterDns: 'hl-cluster-dns' },
        nodes: [
          { name: 'cp1', os: 'linux', role: 'control-plane' },
          { name: 'lin1', os: 'linux', role: 'worker' },
          { name: 'lin2', os: 'linux', role: 'worker' },
        ],
      },
      'test',
    ),
    'test',
  );
}

/** The Debian-built kubeadm of the artifact cache (vagrant/artifacts/kubernetes/build.sh), if built here. */
export const CACHED_KUBEADM =
  '/var/cache/hybrid-lab/kubernetes/v1.20.2/kubernetes/v1.20.2/linux/amd64/kubeadm';
