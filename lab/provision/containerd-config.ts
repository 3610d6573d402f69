/**
 * containerd's config.toml of a node, rendered per OS and containerd version: only the settings
 * hybrid-lab needs, containerd keeps its defaults for the rest. The node scripts install it as it
 * is, after checking that the installed containerd reports every setting back (`containerd
 * --config FILE config dump`): a key that containerd does not know fails there instead of being
 * dropped. Keys as documented in containerd's docs/cri/config.md.
 */
import type { NodeOs } from '../plan/lab-plan.ts';
import { DEBIAN_CONTAINERD } from './artifact-catalogue.ts';
import type { ComponentVersions } from './component-versions.ts';

/** Where the node scripts find it in the node's config folder. */
export const CONTAINERD_CONFIG_FILE = 'containerd.toml';

/** The CNI plugins folder install-containerd.ps1 fills on Windows nodes. */
export const WINDOWS_CNI_BIN_DIR = 'C:/opt/cni/bin';
/** Where install-containerd.ps1 puts the node's CNI config (10-flannel.conf). */
export const WINDOWS_CNI_CONF_DIR = 'C:/etc/cni/net.d';

/** One `key = value` of a table. */
export interface ContainerdSetting {
  table: string;
  key: string;
  value: string | boolean | string[];
}

/** Major and minor of `1.7.22`, `2.1.0-rc.1`. */
export function versionParts(version: string): { major: number; minor: number } {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split(/[.~-]/).map(Number);
  return { major, minor };
}

/** The containerd version nodes of `os` run: the pin, else Debian's package on Linux. */
export function nodeContainerd(os: NodeOs, v: ComponentVersions): string {
  return v.containerd[os] ?? DEBIAN_CONTAINERD;
}

/**
 * What the node's config sets. containerd 1.x reads config version 2, where the CRI plugin
 * `io.containerd.grpc.v1.cri` holds everything; 2.x reads version 3, where the pause image is
 * pinned in `io.containerd.cri.v1.images`, runtimes and CNI sit in `io.containerd.cri.v1.runtime`.
 */
export function containerdSettings(
  os: NodeOs,
  version: string,
  pauseImage: string,
): ContainerdSetting[] {
  const { major, minor } = versionParts(version);
  const configV3 = major >= 2;
  const runtime = configV3
    ? 'plugins."io.containerd.cri.v1.runtime"'
    : 'plugins."io.containerd.grpc.v1.cri"';
  const settings: ContainerdSetting[] = [
    configV3
      ? {
          table: 'plugins."io.containerd.cri.v1.images".pinned_images',
          key: 'sandbox',
          value: pauseImage,
        }
      : { table: runtime, key: 'sandbox_image', value: pauseImage },
  ];
  if (os === 'linux') {
    const runc = `${runtime}.containerd.runtimes.runc`;
    // An entry of runtimes replaces containerd's default one whole (1.x): without its type, the
    // options would not be read as runc's.
    settings.push(
      { table: runc, key: 'runtime_type', value: 'io.containerd.runc.v2' },
      { table: `${runc}.options`, key: 'SystemdCgroup', value: true },
    );
  } else {
    const cni = `${runtime}.cni`;
    // containerd 2.1 replaced bin_dir (deprecated there) by a list, bin_dirs; 2.0 and 1.x know
    // only bin_dir.
    settings.push(
      configV3 && minor >= 1
        ? { table: cni, key: 'bin_dirs', value: [WINDOWS_CNI_BIN_DIR] }
        : { table: cni, key: 'bin_dir', value: WINDOWS_CNI_BIN_DIR },
      { table: cni, key: 'conf_dir', value: WINDOWS_CNI_CONF_DIR },
    );
  }
  return settings;
}

const toml = (value: ContainerdSetting['value']): string =>
  typeof value === 'boolean'
    ? String(value)
    : Array.isArray(value)
      ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]`
      : JSON.stringify(value);

/** config.toml for containerd `version` on `os`, tables in the order of their settings. */
export function renderContainerdConfig(os: NodeOs, version: string, pauseImage: string): string {
  const { major } = versionParts(version);
  const lines = [
    `# containerd ${major}.x of a hybrid-lab ${os} node; containerd's defaults for all else.`,
    `version = ${major >= 2 ? 3 : 2}`,
  ];
  let table = '';
  for (const s of containerdSettings(os, version, pauseImage)) {
    if (s.table !== table) lines.push('', `[${s.table}]`);
    table = s.table;
    lines.push(`  ${s.key} = ${toml(s.value)}`);
  }
  return `${lines.join('\n')}\n`;
}
