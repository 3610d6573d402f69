/**
 * The spec fields kubeadm provisioning reads (`artifacts`, `kubeadm`; schemas in
 * lab/spec/kubeadm-spec-schema.ts), resolved for the provisioner: a typed accessor that reads
 * them off a spec object or its YAML text.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { LabSpecError } from '../errors.ts';
import { formatIssues } from '../spec/format-issues.ts';
import {
  ArtifactsSpecSchema,
  KubeadmSpecSchema,
  type KubeadmSpec,
} from '../spec/kubeadm-spec-schema.ts';

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
