import { expect } from 'chai';
import { SettingError } from '../../model/settings.ts';
import { agnhostImages, kubernetesSettings } from './kubernetes-settings.ts';

describe("the Kubernetes driver's settings", () => {
  it("picks the agnhost image per OS: AGNHOST_IMAGE, else the lab's, else IMAGE_REPO and AGNHOST_TAG, else the default", () => {
    const image = (env: NodeJS.ProcessEnv, lab?: string) =>
      agnhostImages(kubernetesSettings(env), lab === undefined ? {} : { linux: lab }).linux;
    expect(image({})).to.equal('registry.k8s.io/e2e-test-images/agnhost:2.52');
    expect(image({ AGNHOST_TAG: '2.53' })).to.equal('registry.k8s.io/e2e-test-images/agnhost:2.53');
    expect(image({ IMAGE_REPO: 'mirror.local:5000/e2e/' })).to.equal(
      'mirror.local:5000/e2e/agnhost:2.52',
    );
    expect(image({ IMAGE_REPO: 'mirror.local:5000/e2e' }, 'hybrid-lab/agnhost:2.25')).to.equal(
      'hybrid-lab/agnhost:2.25',
    );
    expect(
      image(
        { AGNHOST_IMAGE: 'mirror.local/agnhost@sha256:abc', IMAGE_REPO: 'x', AGNHOST_TAG: 'y' },
        'hybrid-lab/agnhost:2.25',
      ),
    ).to.equal('mirror.local/agnhost@sha256:abc');
    // The lab's Linux-only image serves its Linux pods; Windows pods get the default.
    expect(
      agnhostImages(kubernetesSettings({}), {
        linux: 'hybrid-lab/agnhost:2.25',
        windows: 'mirror.local/agnhost:2.52',
      }),
    ).to.deep.equal({ linux: 'hybrid-lab/agnhost:2.25', windows: 'mirror.local/agnhost:2.52' });
  });

  it('defaults: echo port 8099, keep nothing, 80 % of 300 s for Ready pods, 300 s for the namespace', () => {
    expect(kubernetesSettings({})).to.deep.include({
      echoAddress: undefined,
      evidenceImage: undefined,
      echoPort: 8099,
      keepRunNamespace: false,
      podsReadyTimeoutMs: 240_000,
      namespaceGoneTimeoutMs: 300_000,
    });
    expect(
      kubernetesSettings({
        EXTERNAL_ECHO_ADDRESS: '198.51.100.7',
        EVIDENCE_NODE_IMAGE: 'mirror.local/e2e/agnhost:2.52',
        EXTERNAL_ECHO_PORT: '0',
        HYBRID_KEEP_RUN_NAMESPACE: '1',
        DEPLOY_TIMEOUT_MS: '1000',
        CLEANUP_TIMEOUT_MS: '5000',
      }),
    ).to.deep.include({
      echoAddress: '198.51.100.7',
      evidenceImage: 'mirror.local/e2e/agnhost:2.52',
      echoPort: 0,
      keepRunNamespace: true,
      podsReadyTimeoutMs: 800,
      namespaceGoneTimeoutMs: 5000,
    });
  });

  it('reads the node choice, the tolerations, per-OS images, the pull secret and the pre-pull timeout', () => {
    const settings = kubernetesSettings({
      NODE_SELECTOR: 'pool=hybrid',
      NODES: 'lin1,win1',
      TOLERATIONS: 'CriticalAddonsOnly=true:NoSchedule,os:NoSchedule',
      AGNHOST_IMAGE: 'mirror.local/e2e/agnhost:2.52',
      AGNHOST_IMAGE_WINDOWS: 'mirror.local/e2e/agnhost:2.52-windows-ltsc2022',
      IMAGE_PULL_SECRET: 'default/regcred',
      PREPULL_TIMEOUT_MS: '600000',
    });
    expect(settings.nodeFilter).to.deep.equal({
      selector: { text: 'pool=hybrid', terms: [{ key: 'pool', op: 'in', values: ['hybrid'] }] },
      names: ['lin1', 'win1'],
    });
    expect(settings.tolerations).to.deep.equal([
      { key: 'CriticalAddonsOnly', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
      { key: 'os', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    expect(agnhostImages(settings, { linux: 'hybrid-lab/agnhost:2.25' })).to.deep.equal({
      linux: 'mirror.local/e2e/agnhost:2.52',
      windows: 'mirror.local/e2e/agnhost:2.52-windows-ltsc2022',
    });
    expect(settings.imagePullSecret).to.deep.equal({ namespace: 'default', name: 'regcred' });
    expect(settings.prePullTimeoutMs).to.equal(600_000);
    expect(kubernetesSettings({})).to.deep.include({
      nodeFilter: {},
      tolerations: [],
      imagePullSecret: undefined,
      prePullTimeoutMs: 1_800_000,
    });
  });

  const BAD: [Record<string, string>, RegExp][] = [
    [{ AGNHOST_IMAGE: 'Not An Image' }, /^AGNHOST_IMAGE must look like /],
    [{ IMAGE_REPO: 'http://mirror' }, /^IMAGE_REPO must look like /],
    [{ EVIDENCE_NODE_IMAGE: 'debian 12' }, /^EVIDENCE_NODE_IMAGE must look like /],
    [{ AGNHOST_TAG: 'a b' }, /^AGNHOST_TAG must look like /],
    [{ EXTERNAL_ECHO_ADDRESS: 'echo.local' }, /^EXTERNAL_ECHO_ADDRESS must be an IPv4 address/],
    [
      { EXTERNAL_ECHO_ADDRESS: '127.0.0.1' },
      /^EXTERNAL_ECHO_ADDRESS must be an address Kubernetes accepts in an Endpoints object, got "127\.0\.0\.1" \(in the loopback range \(127\.0\.0\.0\/8\)\)$/,
    ],
    [
      { EXTERNAL_ECHO_ADDRESS: '169.254.3.4' },
      /\(in the link-local range \(169\.254\.0\.0\/16\)\)$/,
    ],
    [{ EXTERNAL_ECHO_ADDRESS: '224.0.0.251' }, /\(in the link-local multicast range/],
    [{ EXTERNAL_ECHO_ADDRESS: '0.0.0.0' }, /\(the unspecified address\)/],
    [{ EXTERNAL_ECHO_PORT: '70000' }, /^EXTERNAL_ECHO_PORT must be a port number \(0-65535\)/],
    [{ EXTERNAL_ECHO_PORT: 'x' }, /^EXTERNAL_ECHO_PORT must be a port number/],
    [{ HYBRID_KEEP_RUN_NAMESPACE: 'yes' }, /^HYBRID_KEEP_RUN_NAMESPACE must be 1 or 0, got "yes"/],
    [{ CLEANUP_TIMEOUT_MS: 'soon' }, /^CLEANUP_TIMEOUT_MS must be a positive integer, got "soon"/],
    [{ NODE_SELECTOR: 'pool=a b' }, /^NODE_SELECTOR must look like pool=hybrid.*"pool=a b"/],
    [{ NODES: 'lin1,Win_1' }, /^NODES must look like lin1,win1: "Win_1" is not a node name$/],
    [
      { TOLERATIONS: 'os=Windows:NoSchedul' },
      /^TOLERATIONS must look like .*NoSchedule, PreferNoSchedule, NoExecute, got "NoSchedul"/,
    ],
    [{ AGNHOST_IMAGE_WINDOWS: 'agnhost 2.52' }, /^AGNHOST_IMAGE_WINDOWS must look like /],
    [
      { IMAGE_PULL_SECRET: 'regcred' },
      /^IMAGE_PULL_SECRET must be NAMESPACE\/NAME of a docker-registry Secret/,
    ],
    [{ PREPULL_TIMEOUT_MS: '30m' }, /^PREPULL_TIMEOUT_MS must be a positive integer/],
  ];
  for (const [env, says] of BAD) {
    it(`${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}: names the setting`, () => {
      expect(() => kubernetesSettings(env))
        .to.throw(SettingError)
        .with.property('message')
        .that.matches(says);
    });
  }
});
