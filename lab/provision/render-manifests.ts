/**
 * Renders manifests/flannel, manifests/windows and manifests/cluster-dns from the plan. A
 * template's `"{{NAME}}"` is replaced by the value as a JSON string, also a valid YAML scalar.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { flannelNetConf, renderFlannelNetConf } from '../cni/flannel-net-conf.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import { floorsMissing } from '../plan/windows-checks.ts';
import { flannelImages, type ComponentVersions } from './component-versions.ts';
import { controlPlaneOf } from './kubeadm-config.ts';
import { ProvisionError } from './provision-error.ts';

export const MANIFESTS_DIR = fileURLToPath(new URL('../../manifests/', import.meta.url));

export interface RenderedManifest {
  /** File name on the node, in apply order. */
  file: string;
  text: string;
}

/** The CNI conflist flannel's init container copies to /etc/cni/net.d on Linux nodes. */
export function linuxCniConflist(): string {
  const conf = {
    name: 'cbr0',
    cniVersion: '0.3.1',
    plugins: [
      { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  return `${JSON.stringify(conf, null, 2)}\n`;
}

/** Windows flanneld reads the same net-conf, plus the HNS network name it must create. */
export function windowsNetConf(plan: LabPlan): string {
  const conf = flannelNetConf(plan);
  const withName = { ...conf, Backend: { ...conf.Backend, Name: plan.cni.windowsNetworkName } };
  return `${JSON.stringify(withName, null, 2)}\n`;
}

/** Replaces every `"{{NAME}}"`; an unknown or unused name is a bug, not a silent blank. */
export function renderTemplate(
  template: string,
  values: Record<string, string>,
  source: string,
): string {
  const text = template.replace(/"\{\{([A-Z0-9_]+)\}\}"/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) {
      throw new ProvisionError(
        `template ${source} uses {{${name}}}, which the plan does not provide`,
        { node: '-', step: 'render' },
      );
    }
    return JSON.stringify(value);
  });
  if (text.includes('{{')) {
    throw new ProvisionError(`template ${source} has a placeholder outside double quotes`, {
      node: '-',
      step: 'render',
    });
  }
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      throw new ProvisionError(
        `rendered ${source} is not valid YAML: ${doc.errors[0]?.message ?? ''}`,
        { node: '-', step: 'render' },
      );
    }
  }
  return text;
}

function template(relative: string): string {
  return readFileSync(`${MANIFESTS_DIR}${relative}`, 'utf8');
}

/** Every manifest the control plane applies for this plan, in order. */
export function renderManifests(plan: LabPlan, versions: ComponentVersions): RenderedManifest[] {
  const cp = controlPlaneOf(plan);
  const images = flannelImages(versions);
  const values: Record<string, string> = {
    LAB_ID: plan.id,
    NET_CONF_JSON: renderFlannelNetConf(plan),
    CNI_CONF_JSON: linuxCniConflist(),
    FLANNEL_IMAGE: images.flannel,
    FLANNEL_CNI_PLUGIN_IMAGE: images.cniPlugin,
    WINDOWS_NET_CONF_JSON: windowsNetConf(plan),
    HOST_PROCESS_IMAGE: versions.hostProcessImage,
    KUBE_NETWORK: plan.cni.windowsNetworkName,
    CNI_BACKEND: plan.cni.backend,
    WINDOWS_DSR: String(plan.windows.dsr),
    POD_CIDR: plan.kubernetes.podCIDR,
    API_SERVER: `${cp.ip}:${plan.kubernetes.apiServerPort}`,
    CLUSTER_DNS_IP: plan.kubernetes.clusterDNS,
    DNS_DOMAIN: plan.kubernetes.dnsDomain,
    CLUSTER_DNS_IMAGE:
      versions.clusterDns.kind === 'hl-cluster-dns' ? versions.clusterDns.image : '',
  };
  const files: string[] = [];
  if (plan.cni.plugin === 'flannel') files.push('flannel/kube-flannel.yaml');
  if (plan.nodes.some((n) => n.os === 'windows')) {
    // HostProcess DaemonSets on a version without them would be refused or ignored: never render them.
    const missing = floorsMissing(plan.kubernetes.version, plan.windows.dsr);
    if (missing !== undefined)
      throw new ProvisionError(missing.message, { node: '-', step: 'render' });
    files.push('windows/flannel-hostprocess.yaml', 'windows/kube-proxy-hostprocess.yaml');
  }
  if (versions.clusterDns.kind === 'hl-cluster-dns') files.push('cluster-dns/hl-cluster-dns.yaml');
  return files.map((relative, i) => ({
    file: `${String(i + 1).padStart(2, '0')}-${relative.replace('/', '-')}`,
    text: renderTemplate(template(relative), values, `manifests/${relative}`),
  }));
}
