/**
 * What goes onto a node before its scripts run: the scripts of its OS and its config folder
 * (node.env/node.json, containerd.toml; on the control plane the kubeadm config and manifests; on
 * Windows the CNI config). Written under `.lab/<name>/provision/<node>/`, then copied to the node.
 */
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { windowsCniConfig } from '../cni/windows-cni-config.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import { clusterNeeds } from './artifact-catalogue.ts';
import type { ComponentVersions } from './component-versions.ts';
import {
  CONTAINERD_CONFIG_FILE,
  nodeContainerd,
  renderContainerdConfig,
} from './containerd-config.ts';
import { renderKubeadmInitConfig, renderKubeadmJoinConfig } from './kubeadm-config.ts';
import { parseKubeadmConfig, parseKubeadmJoinConfig } from './kubeadm-config-schema.ts';
import { linuxNodeEnv, windowsNodeJson } from './node-config.ts';
import type { ArtifactSource } from './provision-settings.ts';
import { renderManifests } from './render-manifests.ts';
import { STAGE, type ProvisionShell } from './step-runner.ts';

export const SCRIPTS_DIR = fileURLToPath(new URL('../../vagrant/scripts/', import.meta.url));

/** The Windows CNI config file the provisioner writes (C:\etc\cni\net.d\10-flannel.conf). */
export function windowsCniFile(plan: LabPlan, node: PlannedNode): string {
  return `${JSON.stringify(windowsCniConfig(plan, node), null, 2)}\n`;
}

export interface StageInput {
  plan: LabPlan;
  node: PlannedNode;
  versions: ComponentVersions;
  source: ArtifactSource;
  /** Image tarballs (relative to the cache) this node imports. */
  imageTarballs: readonly string[];
  /** The node's shell: where it reads artifacts, and its machine's kubelet flags. */
  shell: Pick<ProvisionShell, 'hostFiles' | 'kubeletArgs'>;
}

/** Writes the node's local stage folder afresh and returns it. */
export function writeNodeStage(
  stageRoot: string,
  input: StageInput,
  scriptsDir = SCRIPTS_DIR,
): string {
  const { plan, node, versions, source, imageTarballs, shell } = input;
  const kubeletArgs = shell.kubeletArgs ?? {};
  const dir = join(stageRoot, node.name);
  rmSync(dir, { recursive: true, force: true });
  const scripts = join(dir, 'scripts');
  const config = join(dir, 'config');
  mkdirSync(scripts, { recursive: true });
  mkdirSync(config, { recursive: true });
  const osDir = join(scriptsDir, node.os);
  // Host-side helpers (stage-*) and dotfiles (.shellcheckrc) stay on the host.
  const nodeScripts = readdirSync(osDir).filter(
    (f) => !f.startsWith('stage-') && !f.startsWith('.'),
  );
  for (const file of nodeScripts) {
    cpSync(join(osDir, file), join(scripts, file));
  }
  if (node.os === 'linux') {
    writeFileSync(
      join(config, 'node.env'),
      linuxNodeEnv(plan, node, versions, source, imageTarballs, shell.hostFiles),
    );
  } else {
    writeFileSync(
      join(config, 'node.json'),
      windowsNodeJson(plan, node, versions, source, imageTarballs),
    );
    writeFileSync(join(config, '10-flannel.conf'), windowsCniFile(plan, node));
  }
  // A namespace node's containerd is its provider's, configured there.
  if (node.os === 'windows' || clusterNeeds(plan).runtime === 'install') {
    writeFileSync(
      join(config, CONTAINERD_CONFIG_FILE),
      renderContainerdConfig(node.os, nodeContainerd(node.os, versions), versions.pauseImage),
    );
  }
  if (node.role === 'control-plane') {
    const kubeadmConfig = renderKubeadmInitConfig(plan, versions, kubeletArgs);
    parseKubeadmConfig(kubeadmConfig); // a generator bug stops here, not in kubeadm on the VM
    writeFileSync(join(config, 'kubeadm-init.yaml'), kubeadmConfig);
    mkdirSync(join(config, 'manifests'));
    for (const manifest of renderManifests(plan, versions)) {
      writeFileSync(join(config, 'manifests', manifest.file), manifest.text);
    }
  } else if (node.os === 'linux') {
    const joinConfig = renderKubeadmJoinConfig(plan, versions, node, kubeletArgs);
    parseKubeadmJoinConfig(joinConfig);
    writeFileSync(join(config, 'kubeadm-join.yaml'), joinConfig);
  }
  return dir;
}

/** Creates the node's stage folder (owned by the login that uploads) and copies scripts and config in. */
export async function pushNodeStage(
  shell: ProvisionShell,
  os: PlannedNode['os'],
  localDir: string,
): Promise<void> {
  if (os === 'linux') {
    // A sudo shell uploads as its login, which must own the folder.
    await shell.exec(
      shell.root
        ? ['install', '-d', '-m', '0755', STAGE.linux]
        : ['sh', '-c', 'sudo install -d -m 0755 -o "$(id -un)" "$1"', 'sh', STAGE.linux],
    );
    await shell.exec(['rm', '-rf', `${STAGE.linux}/scripts`, `${STAGE.linux}/config`]);
  } else {
    await shell.exec(['New-Item', '-ItemType', 'Directory', '-Force', '-Path', STAGE.windows]);
  }
  await shell.upload(
    [join(localDir, 'scripts'), join(localDir, 'config')],
    os === 'linux' ? STAGE.linux : STAGE.windows,
    {
      timeoutMs: 5 * 60_000,
    },
  );
}
