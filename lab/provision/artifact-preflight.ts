/** Preflight of the artifact cache: lists exactly which files the chosen versions lack. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../exec/command-runner.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import type { PreflightProblem } from '../errors.ts';
import {
  artifactsForPlan,
  DEBIAN_REPO_DIR,
  E2E_ARTIFACTS,
  e2eImageRefs,
  imageTarball,
  kubeadmImageList,
  kubeadmImagesUsed,
  type Artifact,
} from './artifact-catalogue.ts';
import type { ComponentVersions } from './component-versions.ts';
import type { ArtifactSource } from './provision-settings.ts';

export interface MissingArtifact {
  artifact: Artifact;
  /** `artifact missing: <file> for Kubernetes <version> — stage it in <dir>`. */
  message: string;
}

/** How the cache is read: a local folder or a URL (through curl, via the runner). */
interface CacheReader {
  where: string;
  exists(path: string): Promise<boolean>;
  read(path: string): Promise<string | undefined>;
}

function dirReader(dir: string): CacheReader {
  const file = (path: string) => join(dir, ...path.split('/'));
  return {
    where: dir,
    exists: (path) => Promise.resolve(existsSync(file(path)) && statSync(file(path)).size > 0),
    read: (path) =>
      Promise.resolve(existsSync(file(path)) ? readFileSync(file(path), 'utf8') : undefined),
  };
}

function urlReader(url: string, runner: CommandRunner): CacheReader {
  const curl = (args: string[]) =>
    runner.run('curl', ['-fsSL', '--max-time', '20', ...args], { check: false, timeoutMs: 30_000 });
  return {
    where: url,
    exists: async (path) =>
      (await curl(['-I', '-o', '/dev/null', `${url}/${path}`])).exitCode === 0,
    read: async (path) => {
      const result = await curl([`${url}/${path}`]);
      return result.exitCode === 0 ? result.stdout : undefined;
    },
  };
}

/** `Package:` → `Filename:` of a Debian Packages index. */
export function parsePackagesIndex(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const stanza of text.split(/\n\s*\n/)) {
    const name = /^Package:\s*(\S+)/m.exec(stanza)?.[1];
    const filename = /^Filename:\s*(\S+)/m.exec(stanza)?.[1];
    if (name !== undefined && filename !== undefined)
      files.set(name, filename.replace(/^\.\//, ''));
  }
  return files;
}

/** Image references of a `kubeadm config images list` output. */
export function parseImageList(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

async function isPresent(
  reader: CacheReader,
  artifact: Artifact,
  index: Map<string, string> | undefined,
): Promise<boolean> {
  if (artifact.kind !== 'deb') return reader.exists(artifact.path);
  const filename = index?.get(artifact.path);
  return filename !== undefined && (await reader.exists(`${DEBIAN_REPO_DIR}/${filename}`));
}

/** Everything the plan needs that the cache lacks; empty when an offline lab can provision. */
export async function missingArtifacts(
  plan: LabPlan,
  versions: ComponentVersions,
  source: ArtifactSource,
  runner: CommandRunner,
): Promise<MissingArtifact[]> {
  if (source.kind === 'none') return [];
  const reader = source.kind === 'dir' ? dirReader(source.dir) : urlReader(source.url, runner);
  const wanted = artifactsForPlan(plan, versions);
  const indexText = wanted.some((a) => a.kind === 'deb')
    ? await reader.read(`${DEBIAN_REPO_DIR}/Packages`)
    : undefined;
  const index = indexText === undefined ? undefined : parsePackagesIndex(indexText);
  const listText = plan.nodes.some((n) => n.os === 'linux')
    ? await reader.read(kubeadmImageList(versions))
    : undefined;
  for (const ref of listText === undefined
    ? []
    : kubeadmImagesUsed(parseImageList(listText), versions)) {
    wanted.push({
      kind: 'image',
      path: imageTarball('linux', ref),
      what: `image ${ref} of kubeadm ${versions.kubernetes}`,
      from: `ctr -n k8s.io images export --platform linux/amd64 FILE ${ref}`,
    });
  }
  if (versions.e2eImages === true) wanted.push(...(await e2eImageArtifacts(reader)));
  const present = await Promise.all(wanted.map((a) => isPresent(reader, a, index)));
  return wanted
    .filter((_, i) => present[i] !== true)
    .map((artifact) => ({ artifact, message: missingMessage(artifact, versions, reader.where) }));
}

/** The list of upstream's e2e images and, once it is there, each image it names. */
async function e2eImageArtifacts(reader: CacheReader): Promise<Artifact[]> {
  const from = "bash vagrant/artifacts/kubernetes/build.sh (upstream's e2e suite and its images)";
  const list: Artifact = {
    kind: 'file',
    path: E2E_ARTIFACTS.images,
    what: "the images of upstream's e2e.test (kubeadm.e2eImages)",
    from,
  };
  const text = await reader.read(E2E_ARTIFACTS.images);
  if (text === undefined) return [list];
  return e2eImageRefs(text).map((ref) => ({
    kind: 'image',
    path: imageTarball('linux', ref),
    what: `image ${ref} of upstream's e2e.test`,
    from,
  }));
}

/** The one wording of a missing artifact, shared with the node scripts. */
export function missingMessage(
  artifact: Artifact,
  versions: ComponentVersions,
  where: string,
): string {
  const file =
    artifact.kind === 'deb'
      ? `${DEBIAN_REPO_DIR}/${artifact.path}_*.deb (Debian package ${artifact.path}, listed in ${DEBIAN_REPO_DIR}/Packages)`
      : artifact.path;
  return `artifact missing: ${file} for Kubernetes ${versions.kubernetes} — stage it in ${where}`;
}

/** The same as PreflightProblems, for a provider's preflight(). */
export function artifactProblems(missing: readonly MissingArtifact[]): PreflightProblem[] {
  return missing.map((m) => ({ what: m.message, fix: `${m.artifact.what}: ${m.artifact.from}` }));
}
