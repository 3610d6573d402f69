/**
 * Which Windows builds an image has a variant for, read from its registry's image index (the
 * manifest list): a Windows node whose build no variant matches cannot start the image's
 * containers (windows-facts.ts, `container-build-must-match-host`), so the run leaves it out,
 * saying so, instead of waiting on pods that never start. Registry API v2 / OCI distribution:
 * GET /v2/<name>/manifests/<reference>, anonymous or with the bearer token a 401 points to.
 */

/** `registry/repository:tag` or `…@sha256:…`, with Docker Hub's defaults filled in. */
export interface ImageRef {
  registry: string;
  repository: string;
  reference: string;
}

const DOCKER_HUB = 'registry-1.docker.io';

export function parseImageRef(image: string): ImageRef {
  const [path, digest] = image.split('@') as [string, string | undefined];
  const parts = path.split('/');
  // The first part names a registry when it has a dot or a port, or is localhost.
  const hasRegistry = parts.length > 1 && (/[.:]/.test(parts[0]!) || parts[0] === 'localhost');
  const registry = hasRegistry ? parts.shift()! : DOCKER_HUB;
  let repository = parts.join('/');
  let tag = 'latest';
  const colon = repository.lastIndexOf(':');
  if (colon > 0) {
    tag = repository.slice(colon + 1);
    repository = repository.slice(0, colon);
  }
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;
  return {
    registry: registry === 'docker.io' ? DOCKER_HUB : registry,
    repository,
    reference: digest ?? tag,
  };
}

/** What the check needs of fetch(): status, one header, the body as text. */
export type RegistryFetch = (
  url: string,
  headers: Record<string, string>,
) => Promise<{
  status: number;
  header: (name: string) => string | null;
  text: () => Promise<string>;
}>;

/** The platform fetch: Node's own, bounded by `timeoutMs`. */
export function httpFetch(timeoutMs: number): RegistryFetch {
  return async (url, headers) => {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      text: () => response.text(),
    };
  };
}

const INDEX_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
];
const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
];

/** `Bearer realm="…",service="…",scope="…"` → the token URL; undefined for another scheme. */
export function tokenUrl(challenge: string | null): string | undefined {
  if (challenge === null || !/^Bearer\s/i.test(challenge)) return undefined;
  const params = Object.fromEntries(
    [...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
  );
  if (params.realm === undefined) return undefined;
  const url = new URL(params.realm);
  for (const key of ['service', 'scope'])
    if (params[key] !== undefined) url.searchParams.set(key, params[key]);
  return url.toString();
}

interface IndexEntry {
  platform?: { os?: string; 'os.version'?: string };
}

/**
 * The `os.version` of each Windows variant of `image` (`10.0.20348.2582`, …); an empty list
 * when its index has none; undefined when the manifest is a single image, which names no
 * platform to check. Throws, saying why, when the registry does not give the manifest.
 */
export async function windowsVariants(
  image: string,
  get: RegistryFetch,
): Promise<string[] | undefined> {
  const ref = parseImageRef(image);
  const url = `https://${ref.registry}/v2/${ref.repository}/manifests/${ref.reference}`;
  const accept = { Accept: [...INDEX_TYPES, ...MANIFEST_TYPES].join(', ') };
  let response = await get(url, accept);
  if (response.status === 401) {
    const token = tokenUrl(response.header('www-authenticate'));
    if (token === undefined) throw new Error(`${ref.registry} asks for credentials`);
    const granted = await get(token, {});
    if (granted.status !== 200)
      throw new Error(`${ref.registry}'s token service answered ${granted.status}`);
    const body = JSON.parse(await granted.text()) as { token?: string; access_token?: string };
    const bearer = body.token ?? body.access_token;
    if (bearer === undefined) throw new Error(`${ref.registry}'s token service gave no token`);
    response = await get(url, { ...accept, Authorization: `Bearer ${bearer}` });
  }
  if (response.status !== 200)
    throw new Error(
      `${ref.registry} answered ${response.status} for ${ref.repository}:${ref.reference}`,
    );
  const manifest = JSON.parse(await response.text()) as { manifests?: IndexEntry[] };
  if (manifest.manifests === undefined) return undefined;
  return manifest.manifests
    .filter((m) => m.platform?.os === 'windows')
    .map((m) => m.platform?.['os.version'] ?? '')
    .filter((v) => v !== '');
}

/** How long the registry may take to give the Windows image's index. */
const REGISTRY_TIMEOUT_MS = 10_000;

/**
 * The Windows image's variants for the node choice (node-usability.ts); a registry this host
 * cannot read (offline, credentials) is a warning, and then no node is judged by them.
 */
export async function windowsImageChoice(
  image: string,
  options: {
    read?: (image: string) => Promise<string[] | undefined>;
    warn: (text: string) => void;
  },
): Promise<{ image: string; variants: string[] } | undefined> {
  const read =
    options.read ?? ((ref: string) => windowsVariants(ref, httpFetch(REGISTRY_TIMEOUT_MS)));
  try {
    const variants = await read(image);
    return variants === undefined ? undefined : { image, variants };
  } catch (error) {
    options.warn(
      `cannot read the Windows builds ${image} has variants for (${error instanceof Error ? error.message : String(error)}); Windows nodes are not checked against them, and one without a variant shows as a pod that does not start`,
    );
    return undefined;
  }
}
