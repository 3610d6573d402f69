// The errors are ApiExceptions built from the codes and bodies a live v1.20.2 API server answered
// the driver's calls with (kube-recorded-objects.ts).
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { apiErrorText, apiStatusCode, isNotFound, loadKubeConfig } from './kube-clients.ts';
import { RECORDED, recordedApiError, recordedStatus } from '../../testing/kube-recorded-objects.ts';

describe('API errors (recorded ApiException codes and bodies)', () => {
  it('knows a 404 for what it is, and nothing else for one', () => {
    const missing = recordedApiError(RECORDED.namespaces.readMissing);
    expect(apiStatusCode(missing)).to.equal(404);
    expect(isNotFound(missing)).to.equal(true);
    expect(isNotFound(recordedApiError(RECORDED.pods.readMissing))).to.equal(true);
    expect(isNotFound(recordedApiError(RECORDED.namespaces.createAgain))).to.equal(false);
    expect(isNotFound(new Error('socket hang up'))).to.equal(false);
    expect(apiStatusCode(new Error('socket hang up'))).to.equal(undefined);
  });

  it('says an API error in one line: the code and the Status message of the body', () => {
    expect(
      apiErrorText(recordedApiError(RECORDED.namespaces.readMissing, 'hybrid-lab-r1')),
    ).to.equal('HTTP 404: namespaces "hybrid-lab-r1" not found');
    expect(apiErrorText(recordedApiError(RECORDED.services.createAgain))).to.equal(
      'HTTP 409: services "web-linux" already exists',
    );
    expect(apiErrorText(recordedApiError(RECORDED.pods.createAgain, 'netexec-lin1-a'))).to.equal(
      'HTTP 409: pods "netexec-lin1-a" already exists',
    );
  });

  it('keeps every field error of a 422 (invalid pod, invalid Service) in that line', () => {
    const pod = apiErrorText(recordedApiError(RECORDED.pods.createInvalid));
    expect(pod).to.match(
      /^HTTP 422: Pod "Netexec_Bad" is invalid: \[metadata\.name: Invalid value/,
    );
    expect(pod).to.contain('spec.containers[0].ports[0].containerPort: Invalid value: 70000');
    expect(pod).not.to.contain('\n');
    const service = apiErrorText(recordedApiError(RECORDED.services.createInvalid));
    expect(service).to.equal(
      `HTTP 422: ${recordedStatus(RECORDED.services.createInvalid).message}`,
    );
    expect(service).to.contain('spec.ports[0].nodePort: Invalid value: 99999');
  });

  it("reads the 500 a pod created before its namespace's service-account token gets", () => {
    const early = RECORDED.pods.createTooEarly;
    const text = apiErrorText(recordedApiError(early));
    expect(text).to.match(
      /^HTTP 500: No API token found for service account "default", retry after/,
    );
    expect(recordedStatus(early)).to.include({ reason: 'ServerTimeout' });
  });

  it('re-addresses a recorded body to another object by its details.name', () => {
    const error = recordedApiError(RECORDED.namespaces.createAgain, 'hybrid-lab-r9');
    const status = JSON.parse(error.body) as { details: { name: string }; message: string };
    expect(status.details.name).to.equal('hybrid-lab-r9');
    expect(status.message).to.equal('namespaces "hybrid-lab-r9" already exists');
    expect(error.headers).to.deep.equal({ 'content-type': 'application/json' });
  });
});

describe('a KUBECONFIG of several files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hl-kubeconfigs-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  // Two files naming the same cluster and context, as kubectl users keep them.
  const first = file(
    'a',
    `apiVersion: v1
kind: Config
clusters: [{ name: prod, cluster: { server: "https://10.0.0.1:6443" } }]
users: [{ name: me, user: { token: not-used } }]
contexts: [{ name: prod, context: { cluster: prod, user: me } }]
`,
  );
  const second = file(
    'b',
    `apiVersion: v1
kind: Config
clusters:
  - { name: prod, cluster: { server: "https://10.9.9.9:6443" } }
  - { name: lab, cluster: { server: "https://192.168.200.10:6443" } }
users: [{ name: me, user: { token: other } }]
contexts:
  - { name: prod, context: { cluster: prod, user: me } }
  - { name: lab, context: { cluster: lab, user: me } }
current-context: lab
`,
  );

  it('merges them as kubectl does: the first file to name something wins, the current context too', () => {
    const config = loadKubeConfig([first, second].join(delimiter));
    expect(config.clusters.map((c) => `${c.name} ${c.server}`)).to.deep.equal([
      'prod https://10.0.0.1:6443',
      'lab https://192.168.200.10:6443',
    ]);
    expect(config.users).to.have.length(1);
    // The first file sets no current-context: the second's is taken.
    expect(config.getCurrentContext()).to.equal('lab');
    expect(config.getCurrentCluster()?.server).to.equal('https://192.168.200.10:6443');
  });
});
