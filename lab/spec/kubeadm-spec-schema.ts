/** The spec fields of kubeadm labs (`artifacts`, `kubeadm`), part of LabSpecSchema. */
import { z } from 'zod';

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
  .describe('Artifact cache: exactly one of dir or url (see docs/kubeadm.md, "Artifact cache").');

/** 1.6 or later: the HostProcess containers of Windows nodes (kube-proxy, flannel) need it. */
const containerdVersion = version.refine(
  (v) => {
    const [major = NaN, minor = NaN] = v.replace(/^v/, '').split('.').map(Number);
    // Not a version at all: the pattern above says so.
    return Number.isNaN(major) || major > 1 || (major === 1 && minor >= 6);
  },
  { error: 'expected containerd 1.6 or later (Windows HostProcess containers need it)' },
);

/** Versions of what kubeadm itself does not pin; the defaults match Kubernetes 1.30. */
export const ComponentVersionsSchema = z.strictObject({
  crictl: version.optional(),
  flannel: version.optional(),
  flannelCniPlugin: z.string().min(1).optional(),
  containerd: containerdVersion
    .optional()
    .describe(
      "containerd on every node, e.g. v1.7.22. Linux nodes install upstream's static release (containerd/v<version>/containerd-<version>-linux-amd64.tar.gz in the artifact cache) under a systemd unit of hybrid-lab's, and keep Debian's containerd package when this is unset; Windows nodes install containerd-<version>-windows-amd64.tar.gz, 1.7.22 when unset.",
    ),
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
      .optional()
      .describe("kubeadm's registry; default that of the version (k8s.gcr.io before 1.25)."),
    clusterDns: z
      .enum(['coredns', 'hl-cluster-dns'])
      .default('coredns')
      .describe(
        "coredns (kubeadm's addon), or hl-cluster-dns: the project's stand-in built from Debian's Kubernetes source where CoreDNS cannot be had.",
      ),
    agnhostImage: z
      .union([imageRef, z.strictObject({ linux: imageRef, windows: imageRef })])
      .optional()
      .describe(
        'The agnhost image the nodes import from the cache and the suite deploys: one reference for both OSes (an image with linux and windows variants), or one per OS. hybrid-lab/ images (vagrant/artifacts/kubernetes/build.sh) are Linux only.',
      ),
    e2eImages: z
      .boolean()
      .default(false)
      .describe(
        "Every Linux node imports the images upstream's e2e.test runs (the artifact cache's e2e/images.txt, from build.sh), so `npm run e2e` runs offline.",
      ),
    /** Attempts of a step whose failure looks transient (SSH drop, apt lock, timeout). */
    retries: z.int().min(1).max(10).default(3),
    versions: ComponentVersionsSchema.prefault({}),
  })
  .describe('kubeadm provisioning options (cluster: kubeadm).');

export type ArtifactsSpec = z.output<typeof ArtifactsSpecSchema>;

export type KubeadmSpec = z.output<typeof KubeadmSpecSchema>;
export type ComponentVersionOverrides = z.output<typeof ComponentVersionsSchema>;

/** The spec's agnhost image per OS: one reference serves both, an object names each. */
export function agnhostImagesOf(
  image: KubeadmSpec['agnhostImage'],
): Partial<Record<'linux' | 'windows', string>> {
  if (image === undefined) return {};
  return typeof image === 'string' ? { linux: image, windows: image } : { ...image };
}
