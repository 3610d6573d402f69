/**
 * Every PowerShell script the project runs on Windows: the `.ps1` files anywhere in the
 * repository, the `.ps1` keys of ConfigMaps in manifests/, and inline `-Command` code of Windows
 * containers; plus what each Windows container of manifests/ starts, so a test can check that it
 * starts one of those scripts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Folders that hold no project scripts: dependencies, VCS data, labs' state, results. */
const SKIPPED = new Set(['node_modules', 'test-results']);

export interface WindowsScript {
  /** `vagrant/scripts/windows/common.ps1`, or `manifests/windows/x.yaml ConfigMap y start.ps1`. */
  origin: string;
  /** Repository folder of a `.ps1` file, where the scripts it dot-sources live. */
  dir?: string;
  text: string;
}

/** A container of a Windows pod template and the script its command runs, if any. */
export interface WindowsContainer {
  origin: string;
  /** `command` then `args`, as the kubelet joins them. */
  argv: string[];
  /** The `origin` of the ConfigMap script `-File` names, or undefined when it names none. */
  runs?: string;
  /** What `-File` names, when it resolves to no ConfigMap key. */
  unresolved?: string;
}

function files(dir: string, suffixes: string[]): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path, suffixes));
    else if (suffixes.some((s) => entry.name.endsWith(s))) out.push(path);
  }
  return out.sort();
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

interface Manifest {
  file: string;
  docs: Json[];
}

function manifests(root: string): Manifest[] {
  return files(join(root, 'manifests'), ['.yaml', '.yml']).map((path) => ({
    file: relative(root, path),
    docs: parseAllDocuments(readFileSync(path, 'utf8'))
      .map((d) => d.toJS() as unknown)
      .filter(isObject),
  }));
}

const nameOf = (doc: Json): string => {
  const name = isObject(doc.metadata) ? doc.metadata.name : undefined;
  return typeof name === 'string' ? name : '';
};

/** The `.ps1` files and the scripts manifests embed. */
export function windowsScripts(root = REPO_ROOT): WindowsScript[] {
  const scripts: WindowsScript[] = files(root, ['.ps1']).map((path) => ({
    origin: relative(root, path),
    dir: relative(root, join(path, '..')),
    text: readFileSync(path, 'utf8'),
  }));
  for (const { file, docs } of manifests(root)) {
    for (const doc of docs.filter((d) => d.kind === 'ConfigMap' && isObject(d.data))) {
      for (const [key, text] of Object.entries(doc.data as Json)) {
        if (key.endsWith('.ps1') && typeof text === 'string') {
          scripts.push({ origin: `${file} ConfigMap ${nameOf(doc)} ${key}`, text });
        }
      }
    }
    for (const c of containers(file, docs)) {
      const flag = c.argv.findIndex((a) => /^-(c|command)$/i.test(a));
      if (flag >= 0 && c.argv[flag + 1] !== undefined) {
        scripts.push({ origin: `${c.origin} -Command`, text: c.argv[flag + 1]! });
      }
    }
  }
  return scripts;
}

/** Every container of a Windows pod template in manifests/, with the ConfigMap script it runs. */
export function windowsContainers(root = REPO_ROOT): WindowsContainer[] {
  const all = manifests(root);
  const configMaps = all.flatMap(({ file, docs }) =>
    docs.filter((d) => d.kind === 'ConfigMap').map((doc) => ({ file, doc })),
  );
  return all.flatMap(({ file, docs }) =>
    containers(file, docs).map((c) => {
      const flag = c.argv.findIndex((a) => /^-file$/i.test(a));
      const target = flag >= 0 ? c.argv[flag + 1] : undefined;
      if (target === undefined) return c;
      const path = target.replace(/^\$env:CONTAINER_SANDBOX_MOUNT_POINT/i, '').replace(/\\/g, '/');
      const mount = c.mounts.find((m) => path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
      const key =
        mount === undefined ? undefined : path.slice(mount.mountPath.replace(/\/$/, '').length + 1);
      const map = configMaps.find(
        ({ doc }) =>
          nameOf(doc) === mount?.configMap &&
          isObject(doc.data) &&
          key !== undefined &&
          key in doc.data,
      );
      const base = { origin: c.origin, argv: c.argv };
      return map === undefined || mount === undefined
        ? { ...base, unresolved: target }
        : { ...base, runs: `${map.file} ConfigMap ${mount.configMap} ${key}` };
    }),
  );
}

interface RawContainer {
  origin: string;
  argv: string[];
  mounts: { mountPath: string; configMap?: string }[];
}

/** Containers of pod templates (or pods) that run on Windows. */
function containers(file: string, docs: Json[]): RawContainer[] {
  const out: RawContainer[] = [];
  for (const doc of docs) {
    const template = isObject(doc.spec) && isObject(doc.spec.template) ? doc.spec.template : doc;
    const pod = isObject(template.spec) ? template.spec : undefined;
    if (pod === undefined) continue;
    const selector = isObject(pod.nodeSelector) ? pod.nodeSelector : {};
    const windowsOptions = isObject(pod.securityContext)
      ? pod.securityContext.windowsOptions
      : undefined;
    if (selector['kubernetes.io/os'] !== 'windows' && !isObject(windowsOptions)) continue;
    const volumes = Array.isArray(pod.volumes) ? pod.volumes.filter(isObject) : [];
    const lists = [pod.initContainers, pod.containers].filter(Array.isArray) as unknown[][];
    for (const container of lists.flat().filter(isObject)) {
      const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
      const mounts = (Array.isArray(container.volumeMounts) ? container.volumeMounts : [])
        .filter(isObject)
        .map((m) => {
          const volume = volumes.find((v) => v.name === m.name);
          const configMap = isObject(volume?.configMap) ? String(volume.configMap.name) : undefined;
          return { mountPath: String(m.mountPath), ...(configMap ? { configMap } : {}) };
        });
      out.push({
        origin: `${file} ${String(doc.kind)} ${nameOf(doc)} container ${String(container.name)}`,
        argv: [...strings(container.command), ...strings(container.args)],
        mounts,
      });
    }
  }
  return out;
}
