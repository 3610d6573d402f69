/** The ordered steps of each kind of node, as data; the orchestrator runs them. */
import type { PlannedNode } from '../plan/lab-plan.ts';
import type { ClusterNeeds } from './artifact-catalogue.ts';
import type { ScriptStep } from './step-runner.ts';

const MIN = 60_000;
/** Windows asks for a reboot after enabling the Containers feature (ERROR_SUCCESS_REBOOT_REQUIRED). */
export const REBOOT_REQUIRED = 3010;

/**
 * Everything a Linux node needs before it can run kubeadm. A VM gets its node name as hostname,
 * its kernel settings, containerd and the Kubernetes binaries installed; a namespace node has
 * them from its provider (which names it and runs containerd and the kubelet's supervisor). Both import the images; with
 * the bridge plugin, both get its config, routes and masquerade rule.
 */
export function linuxBaseSteps(needs: ClusterNeeds): ScriptStep[] {
  return [
    ...(needs.runtime === 'install'
      ? [
          { id: 'hostname', script: 'set-hostname.sh', timeoutMs: 2 * MIN },
          { id: 'kernel', script: 'prepare-kernel.sh', timeoutMs: 2 * MIN },
          { id: 'containerd', script: 'install-containerd.sh', timeoutMs: 15 * MIN },
          { id: 'kubernetes', script: 'install-kubernetes.sh', timeoutMs: 15 * MIN },
          { id: 'external-route', script: 'external-route.sh', timeoutMs: 2 * MIN },
        ]
      : []),
    { id: 'images', script: 'import-images.sh', timeoutMs: 20 * MIN },
    ...(needs.cni === 'bridge' ? [{ id: 'cni', script: 'cni-bridge.sh', timeoutMs: 2 * MIN }] : []),
  ];
}

/** The control plane after its base steps: init, then the cluster add-ons. */
export function controlPlaneSteps(): { init: ScriptStep[]; addons: ScriptStep[] } {
  return {
    init: [{ id: 'kubeadm-init', script: 'kubeadm-init.sh', timeoutMs: 20 * MIN }],
    addons: [{ id: 'manifests', script: 'apply-manifests.sh', timeoutMs: 5 * MIN }],
  };
}

/** Everything a Windows node needs before it can join. */
export function windowsBaseSteps(): ScriptStep[] {
  return [
    {
      id: 'hostname',
      script: 'set-hostname.ps1',
      timeoutMs: 5 * MIN,
      rebootExitCode: REBOOT_REQUIRED,
    },
    {
      id: 'containers-feature',
      script: 'install-containers-feature.ps1',
      timeoutMs: 30 * MIN,
      rebootExitCode: REBOOT_REQUIRED,
    },
    { id: 'containerd', script: 'install-containerd.ps1', timeoutMs: 15 * MIN },
    { id: 'kubernetes', script: 'install-kubernetes.ps1', timeoutMs: 15 * MIN },
    { id: 'firewall', script: 'configure-firewall.ps1', timeoutMs: 5 * MIN },
    { id: 'images', script: 'import-images.ps1', timeoutMs: 30 * MIN },
  ];
}

/**
 * What a Windows node gets once it joined and flannel made its HNS network: creating that network
 * moves the node's address to a new `vEthernet (…)` adapter, so anything pinned to an interface is
 * made only then (the facts catalogue's `hns-adapter-rename`).
 */
export function windowsNetworkSteps(): ScriptStep[] {
  return [{ id: 'external-route', script: 'external-route.ps1', timeoutMs: 12 * MIN }];
}

/** The join of a worker; `input` carries the token and CA hash when a join is due. */
export function joinStep(node: PlannedNode, input: string | undefined): ScriptStep {
  return {
    id: 'kubeadm-join',
    script: node.os === 'linux' ? 'kubeadm-join.sh' : 'kubeadm-join.ps1',
    timeoutMs: 15 * MIN,
    ...(input === undefined ? {} : { input }),
  };
}

/** Labels every node carries: the lab id, so `lab reap` and the suite find them. */
export function nodeLabels(labId: string, node: PlannedNode): string[] {
  return [`hybrid-lab.io/lab=${labId}`, `hybrid-lab.io/node-index=${node.index}`];
}

/** Runs on the control plane after `node` joined: its plan pod CIDR and labels. */
export function registerStep(labId: string, node: PlannedNode): ScriptStep {
  return {
    id: `register-${node.name}`,
    script: 'register-node.sh',
    args: [node.name, node.podCIDR, ...nodeLabels(labId, node)],
    timeoutMs: 5 * MIN,
  };
}

/** Runs on the control plane last: every node Ready. */
export function readyStep(): ScriptStep {
  return { id: 'nodes-ready', script: 'wait-nodes-ready.sh', timeoutMs: 15 * MIN };
}
