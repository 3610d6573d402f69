/**
 * The spec fields kubeadm provisioning reads (`artifacts`, `kubeadm`): their zod schemas, meant
 * to be pasted into LabSpecSchema, and a typed accessor that works before and after that paste.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { LabSpecError } from '../errors.ts';
import { formatIssues } from '../spec/format-issues.ts';

const version = z.string().regex(/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, {
  error: 'expected a version such as v1.7.22',
});
const imageRef = z.string().regex(/^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)+(:[A-Za-z0-9._-]+)?$/, {
  error: 'expected an image reference such as registry.k8s.io/pause:3.9',
});

/** Where an offline lab takes its binaries, packages and image tarballs from. */
export const ArtifactsSpecSchema = z
  .union([
    z.strictObject({
      dir: z.string().min(1).describe('Cache folder on the harness host; uploaded to the nodes.'),
    }),
    z.strictObject({
      url: z
        .string()
        .regex(/^https?:\/\/\S+$/, { error: 'expected an http(s) URL' })
        .describe('Base URL of the same layout; the nodes download from it.'),
    }),
  ])
  .describe('Artifact cache: exactly one of dir or url (see README "Artifact cache").');

/** Versions of what kubeadm itself does not pin; the defaults match Kubernetes 1.30. */
export const ComponentVersionsSchema = z.strictObject({
  crictl: version.optional(),
  flannel: version.optional(),
  flannelCniPlugin: z.string().min(1).optional(),
  windowsContainerd: version.optional(),
  windowsCniPlugins: version.optional(),
  pauseImage: imageRef.optional(),
  hostProcessImage: imageRef.optional(),
});

/** kubeadm options of `cluster: kubeadm` labs. */
export const KubeadmSpecSchema = z
  .strictObject({
    imageRepository: z
      .string()
      .regex(/^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*$/, { error: 'expected a registry path' })
      .default('registry.k8s.io'),
    /** Attempts of a step whose failure looks transient (SSH drop, apt lock, timeout). */
    retries: z.int().min(1).max(10).default(3),
    versions: ComponentVersionsSchema.prefault({}),
  })
  .describe('kubeadm provisioning options (cluster: kubeadm).');

export type ArtifactsSpec = z.output<typeof ArtifactsSpecSchema>;
export type KubeadmSpec = z.output<typeof KubeadmSpecSchema>;
export type ComponentVersionOverrides = z.output<typeof ComponentVersionsSchema>;

/** The artifact source resolved: a host folder (absolute) or a URL, or none (online install). */
export type ArtifactSource =
  { kind: 'dir'; dir: string } | { kind: 'url'; url: string } | { kind: 'none' };

export interface ProvisionSettings {
  artifacts: ArtifactSource;
  kubeadm: KubeadmSpec;
}

const SettingsSchema = z.object({
  artifacts: ArtifactsSpecSchema.optional(),
  kubeadm: KubeadmSpecSchema.prefault({}),
});

/**
 * Reads `artifacts` and `kubeadm` off a spec object (a LabSpec, or parsed YAML); a relative
 * `artifacts.dir` is taken relative to `baseDir` (the spec's folder).
 */
export function provisionSettingsOf(
  spec: unknown,
  source = 'spec',
  baseDir = process.cwd(),
): ProvisionSettings {
  const holder = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : {};
  const result = SettingsSchema.safeParse(
    { artifacts: holder.artifacts, kubeadm: holder.kubeadm },
    { reportInput: true },
  );
  if (!result.success) throw new LabSpecError(source, formatIssues(result.error.issues));
  const { artifacts, kubeadm } = result.data;
  const resolved: ArtifactSource =
    artifacts === undefined
      ? { kind: 'none' }
      : 'dir' in artifacts
        ? {
            kind: 'dir',
            dir: isAbsolute(artifacts.dir) ? artifacts.dir : resolve(baseDir, artifacts.dir),
          }
        : { kind: 'url', url: artifacts.url.replace(/\/+$/, '') };
  return { artifacts: resolved, kubeadm };
}

/** The same, from spec YAML text (e.g. `.lab/<name>/spec.yaml`, which `lab up` keeps). */
export function provisionSettingsFromText(
  text: string,
  source: string,
  baseDir: string,
): ProvisionSettings {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new LabSpecError(source, [
      { path: '', message: `YAML: ${doc.errors[0]?.message ?? ''}` },
    ]);
  }
  return provisionSettingsOf(doc.toJS(), source, baseDir);
}
