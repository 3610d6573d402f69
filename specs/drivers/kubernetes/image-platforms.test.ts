import { expect } from 'chai';
import { parseImageRef, tokenUrl, windowsVariants, type RegistryFetch } from './image-platforms.ts';

/** An OCI image index as registry.k8s.io serves agnhost's (platforms as its manifest names them). */
const INDEX = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: [
    { digest: 'sha256:a', platform: { architecture: 'amd64', os: 'linux' } },
    {
      digest: 'sha256:b',
      platform: { architecture: 'amd64', os: 'windows', 'os.version': '10.0.17763.5830' },
    },
    {
      digest: 'sha256:c',
      platform: { architecture: 'amd64', os: 'windows', 'os.version': '10.0.20348.2461' },
    },
  ],
});

interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** A registry that answers each URL in turn from `answers`, recording what was asked. */
function registry(answers: Record<string, Answer[]>) {
  const asked: { url: string; headers: Record<string, string> }[] = [];
  const get: RegistryFetch = (url, headers) => {
    asked.push({ url, headers });
    const answer = answers[url]?.shift();
    if (answer === undefined) return Promise.reject(new Error(`nothing answers ${url}`));
    return Promise.resolve({
      status: answer.status,
      header: (name: string) => answer.headers?.[name.toLowerCase()] ?? null,
      text: () => Promise.resolve(answer.body ?? ''),
    });
  };
  return { get, asked };
}

const MANIFEST = 'https://registry.k8s.io/v2/e2e-test-images/agnhost/manifests/2.52';

describe('the Windows builds an image has variants for (its registry index)', () => {
  it('names registry, repository and tag or digest, with Docker Hub defaults', () => {
    expect(parseImageRef('registry.k8s.io/e2e-test-images/agnhost:2.52')).to.deep.equal({
      registry: 'registry.k8s.io',
      repository: 'e2e-test-images/agnhost',
      reference: '2.52',
    });
    expect(parseImageRef('mirror.local:5000/e2e/agnhost@sha256:abc')).to.deep.equal({
      registry: 'mirror.local:5000',
      repository: 'e2e/agnhost',
      reference: 'sha256:abc',
    });
    expect(parseImageRef('busybox')).to.deep.equal({
      registry: 'registry-1.docker.io',
      repository: 'library/busybox',
      reference: 'latest',
    });
    expect(parseImageRef('docker.io/me/netexec:1')).to.deep.equal({
      registry: 'registry-1.docker.io',
      repository: 'me/netexec',
      reference: '1',
    });
    expect(parseImageRef('localhost/agnhost:2').registry).to.equal('localhost');
  });

  it("reads the token URL of a Bearer challenge, and nothing of another scheme's", () => {
    expect(
      tokenUrl(
        'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:e2e/agnhost:pull"',
      ),
    ).to.equal(
      'https://auth.example/token?service=registry.example&scope=repository%3Ae2e%2Fagnhost%3Apull',
    );
    expect(tokenUrl('Basic realm="registry"')).to.equal(undefined);
    expect(tokenUrl(null)).to.equal(undefined);
    expect(tokenUrl('Bearer service="x"')).to.equal(undefined);
  });

  it("gives each Windows variant's os.version, asking for an index first", async () => {
    const { get, asked } = registry({ [MANIFEST]: [{ status: 200, body: INDEX }] });
    expect(
      await windowsVariants('registry.k8s.io/e2e-test-images/agnhost:2.52', get),
    ).to.deep.equal(['10.0.17763.5830', '10.0.20348.2461']);
    expect(asked[0]!.headers.Accept).to.match(
      /^application\/vnd\.oci\.image\.index\.v1\+json, application\/vnd\.docker\.distribution\.manifest\.list\.v2\+json/,
    );
  });

  it('follows a 401 to the token service and asks again with the token', async () => {
    const token =
      'https://auth.example/token?service=reg&scope=repository%3Ae2e-test-images%2Fagnhost%3Apull';
    const { get, asked } = registry({
      [MANIFEST]: [
        {
          status: 401,
          headers: {
            'www-authenticate':
              'Bearer realm="https://auth.example/token",service="reg",scope="repository:e2e-test-images/agnhost:pull"',
          },
        },
        { status: 200, body: INDEX },
      ],
      [token]: [{ status: 200, body: JSON.stringify({ token: 't0k' }) }],
    });
    expect(
      await windowsVariants('registry.k8s.io/e2e-test-images/agnhost:2.52', get),
    ).to.have.length(2);
    expect(asked.map((a) => a.url)).to.deep.equal([MANIFEST, token, MANIFEST]);
    expect(asked[2]!.headers.Authorization).to.equal('Bearer t0k');
  });

  it('says why when the registry will not give the manifest', async () => {
    const ask = (answers: Record<string, Answer[]>) =>
      windowsVariants('registry.k8s.io/e2e-test-images/agnhost:2.52', registry(answers).get).then(
        () => 'no error',
        (e: unknown) => (e as Error).message,
      );
    expect(await ask({ [MANIFEST]: [{ status: 404 }] })).to.equal(
      'registry.k8s.io answered 404 for e2e-test-images/agnhost:2.52',
    );
    expect(
      await ask({
        [MANIFEST]: [{ status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } }],
      }),
    ).to.equal('registry.k8s.io asks for credentials');
  });

  it('has nothing to check for a single-platform image, and no variant for an index without Windows', async () => {
    const single = registry({
      [MANIFEST]: [{ status: 200, body: JSON.stringify({ schemaVersion: 2, layers: [] }) }],
    });
    expect(
      await windowsVariants('registry.k8s.io/e2e-test-images/agnhost:2.52', single.get),
    ).to.equal(undefined);
    const linuxOnly = registry({
      [MANIFEST]: [
        {
          status: 200,
          body: JSON.stringify({
            manifests: [{ platform: { os: 'linux', architecture: 'amd64' } }],
          }),
        },
      ],
    });
    expect(
      await windowsVariants('registry.k8s.io/e2e-test-images/agnhost:2.52', linuxOnly.get),
    ).to.deep.equal([]);
  });
});
