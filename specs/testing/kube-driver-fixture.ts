/**
 * Test support: a KubernetesDriver over the fakes, which answer with what a live API server
 * answered (kube-recorded-objects.ts). The kubeconfig names 127.0.0.1 but is never contacted; the
 * only socket opened is the external echo's, on 127.0.0.1.
 */
import type { ProbeRequest } from '../model/lab-driver.ts';
import type { ProbeReply } from '../../lab/contracts/probe-reply.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingRunner } from '../../lab/testing/recording-runner.ts';
import { FakeCore } from './kube-fake-core.ts';
import { FakeExec, type ExecCall, type ExecScript } from './kube-fake-exec.ts';
import type { KubernetesDriverOptions, LabFacts } from '../drivers/kubernetes/kubernetes-driver.ts';
import { kubernetesSettings } from '../drivers/kubernetes/kubernetes-settings.ts';
import { exitStatus, fakeVersion } from './kube-recorded-objects.ts';
import { FakeAccessReviews } from './kube-fake-access-reviews.ts';

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]
users: [{ name: u, user: { token: not-used } }]
contexts: [{ name: ctx, context: { cluster: c, user: u } }]
current-context: ctx
`;

let sharedKubeconfig: string | undefined;

/** The fixture's kubeconfig: written once per test process, its folder removed when it exits. */
function kubeconfigFile(): string {
  if (sharedKubeconfig !== undefined) return sharedKubeconfig;
  const dir = mkdtempSync(join(tmpdir(), 'hl-k8s-driver-'));
  process.once('exit', () => {
    rmSync(dir, { recursive: true, force: true });
  });
  sharedKubeconfig = join(dir, 'kubeconfig');
  writeFileSync(sharedKubeconfig, KUBECONFIG);
  return sharedKubeconfig;
}

/** A reachability answer: a timeout for a request whose key (`ADDRESS:PORT`, a URL) is listed. */
function reachable(request: ProbeRequest, unreachable: ReadonlySet<string>): ProbeReply {
  const key =
    request.kind === 'tcp'
      ? `${request.host}:${request.port}`
      : request.kind === 'http'
        ? request.url
        : '';
  return unreachable.has(key) ? { result: 'timeout', error: 'no answer' } : { result: 'ok' };
}

/** Fakes, options and a kubeconfig file for KubernetesDriver.open(); the echo binds 127.0.0.1:0. */
export function driverFixture(
  script: (call: ExecCall) => ExecScript = () => ({ status: exitStatus(0) }),
) {
  const kubeconfig = kubeconfigFile();
  const facts: LabFacts = { lab: 'hybrid', provider: 'existing', cni: 'flannel/vxlan' };
  const core = new FakeCore();
  const exec = new FakeExec((call) =>
    // A Windows host's /hostname, asked at deploy (host-identity.ts): answered at once, with
    // nothing a probe reads, so the node keeps its label; a script that hangs would stall deploy.
    call.pod.startsWith('host-') && call.command.some((a) => a.endsWith('/hostname'))
      ? { status: exitStatus(0) }
      : script(call),
  );
  /** What the driver warned the user of, and the progress it gave (the images' pulls). */
  const warnings: string[] = [];
  const progress: string[] = [];
  const unreachable = new Set<string>();
  const runner = new RecordingRunner().on(/^ip route get /, {
    stdout: '192.168.200.10 dev lab0 src 127.0.0.1 uid 0 \n    cache \n',
  });
  const reviews = new FakeAccessReviews();
  const options: KubernetesDriverOptions = {
    clients: { core, version: fakeVersion, exec, authorization: reviews },
    runner,
    settings: {
      ...kubernetesSettings({ EXTERNAL_ECHO_PORT: '0', IMAGE_REPO: 'mirror.local:5000/e2e' }),
      podsReadyTimeoutMs: 2000,
      namespaceGoneTimeoutMs: 500,
    },
    pollMs: 1,
    warn: (text) => warnings.push(text),
    say: (text) => progress.push(text),
    // Never a packet to the recorded node addresses: the reachability check asks these, which
    // answer every request but those a test lists in `unreachable`.
    // Never a request to a registry: the Windows image's variants are the test's to give.
    windowsVariants: () => Promise.resolve(undefined),
    reachability: {
      fromOutside: (request) => Promise.resolve(reachable(request, unreachable)),
      fromNode: (_node, request) => Promise.resolve(reachable(request, unreachable)),
    },
  };
  return {
    kubeconfig,
    facts,
    core,
    exec,
    runner,
    options,
    reviews,
    warnings,
    progress,
    unreachable,
  };
}
