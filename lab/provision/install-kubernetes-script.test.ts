/**
 * install-kubernetes.sh's version checks against stub kubeadm/kubectl/kubelet that answer as the
 * real v1.30 binaries do (kubectl has no `-o short`, and asks a server without `--client`).
 * No root: apt-get, systemctl and install are stubs too, so nothing outside a temp folder changes.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { componentVersions } from './component-versions.ts';
import { linuxNodeEnv } from './node-config.ts';
import { SCRIPTS_DIR } from './node-stage.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';

/** Stubs of the three binaries at `version`, answering each invocation like the real ones. */
function kubernetesStubs(version: { kubeadm: string; kubectl: string; kubelet: string }) {
  return {
    kubeadm: `[ "$*" = "version -o short" ] && { echo ${version.kubeadm}; exit 0; }
echo 'kubeadm version: &version.Info{Major:"1", Minor:"30", GitVersion:"${version.kubeadm}"}'`,
    kubectl: `case "$*" in
  "version --client -o json") cat <<'JSON'
{
  "clientVersion": {
    "major": "1",
    "minor": "30",
    "gitVersion": "${version.kubectl}",
    "gitCommit": "a51b3b711150f57ffc1f526a640ec058514ed596",
    "gitTreeState": "clean",
    "buildDate": "2024-08-14T19:04:37Z",
    "goVersion": "go1.22.5",
    "compiler": "gc",
    "platform": "linux/amd64"
  },
  "kustomizeVersion": "v5.0.4-0.20230601165947-6ce0bf390ce3"
}
JSON
  ;;
  *"-o short"*) echo "error: --output must be 'yaml' or 'json'" >&2; exit 1 ;;
  version*) echo "Client Version: ${version.kubectl}"
    echo "The connection to the server localhost:8080 was refused - did you specify the right host or port?" >&2
    exit 1 ;;
  *) exit 1 ;;
esac`,
    kubelet: `[ "$*" = "--version" ] && { echo "Kubernetes ${version.kubelet}"; exit 0; }
echo "kubelet: unknown arguments: $*" >&2; exit 1`,
  };
}

describe('install-kubernetes.sh version checks (stub binaries, no root)', () => {
  const plan = kubeadmPlan();
  const versions = componentVersions(plan);
  const want = versions.kubernetes;
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-install-k8s-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the script with the stubs first on PATH; returns its output and the apt-get calls. */
  const run = (stubs: Record<string, string>) => {
    const calls = join(dir, 'calls');
    writeFileSync(calls, '');
    const all: Record<string, string> = {
      ...stubs,
      'apt-get': `echo "apt-get $*" >>'${calls}'; exit 100`,
      systemctl: 'exit 0',
      install: `echo "install $*" >>'${calls}'`,
    };
    for (const [name, body] of Object.entries(all)) {
      writeFileSync(join(dir, name), `#!/usr/bin/env bash\n${body}\n`);
      chmodSync(join(dir, name), 0o755);
    }
    const env = join(dir, 'node.env');
    writeFileSync(env, linuxNodeEnv(plan, plan.nodes[0]!, versions, { kind: 'none' }, []));
    const result = spawnSync('bash', [join(SCRIPTS_DIR, 'linux', 'install-kubernetes.sh')], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}`, HL_CONFIG: env },
    });
    const made = readFileSync(calls, 'utf8');
    return { status: result.status, out: result.stdout + result.stderr, calls: made };
  };

  it('reads each tool its own way and installs nothing when all three match', () => {
    const r = run(kubernetesStubs({ kubeadm: want, kubectl: want, kubelet: want }));
    expect(r.out).to.include(`hl: ok: kubeadm, kubelet, kubectl ${want}`);
    expect(r.calls).to.not.include('apt-get');
    expect(r.status, r.out).to.equal(0);
  });

  it('reinstalls from the package repository when only kubelet is stale', () => {
    const r = run(kubernetesStubs({ kubeadm: want, kubectl: want, kubelet: 'v1.29.8' }));
    expect(r.calls).to.include('apt-get');
    expect(r.status).to.not.equal(0);
  });
});
